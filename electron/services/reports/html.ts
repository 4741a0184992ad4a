// The self-contained HTML report: one file, inline CSS and inline SVG charts, no script, no
// external reference, and a CSP that forbids loading or running anything. Every interpolated
// value goes through the `html` template, which escapes it. The same document is printed to PDF.
import { METRICS, NO_PREDICTION, NO_PREDICTION_WHY, type CompareGroup, type Comparison, type RunResources } from '../../contract';
import {
  memoryPerResourceOption,
  predictedOption,
  repeatBarsOption,
  stepLinesHeight,
  stepLinesOption,
} from '../../contract/charts/compare-charts';
import { diffJson } from '../../contract/charts/diff';
import { reportWarnings, systemName } from './analysis';
import { reportBaseline, runDeltas, type ReportBaseline } from './baseline';
import { html, raw, type Raw } from './escape';
import { fmt, fmtBytes, fmtPct, fmtSpread, fmtTime, strategyName } from './format';
import { FORMULA_CONVENTION, FORMULA_TEXT, formulaFor } from './formula';
import { resourcesSection } from './resources-section';
import { renderSvg } from './svg';
import type { ReportRun, Spread } from './types';
import { trainingLaunch } from './launch';

export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

export interface HtmlOptions {
  baselineId?: string;
  pageSize?: 'A4' | 'Letter';
  generatedAt?: Date;
  appVersion?: string;
  /** The history's comparison of the same runs (history.compare, the Compare page's): its groups,
   *  headline and charts are the report's, so the report shows what the user saw. */
  comparison: Comparison;
  /** Each run's resource view (runs/resources): its lanes and attribution get a section when any run has samples. Absent: no section. */
  resources?: (runId: string) => RunResources | null;
}

const CSS = `
:root { color-scheme: light; }
body { font: 13px/1.45 Helvetica, Arial, sans-serif; color: #1b1f24; margin: 24px auto; max-width: 1100px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; border-bottom: 2px solid #2563eb; padding-bottom: 3px; margin-top: 28px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
.muted { color: #5d6672; } .headline { font-size: 17px; font-weight: 600; margin: 12px 0; }
.warn { color: #8a4b00; background: #fff7e6; border: 1px solid #f0c36d; padding: 6px 10px; border-radius: 6px; margin: 6px 0; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; font-size: 12px; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid #d9dee5; vertical-align: top; }
th { color: #5d6672; font-size: 11px; text-transform: uppercase; letter-spacing: .03em; }
table.runs { font-size: 11px; }
/* Run ids break only at their hyphens (never every few characters); the notes row spans the table. */
table.runs code { word-break: normal; overflow-wrap: normal; hyphens: none; background: none; padding: 0; font-size: 11px; }
table.runs tr.notes td { border-top: none; padding-top: 0; color: #5d6672; }
table.runs tr.has-notes td { border-bottom: none; }
.badge { display: inline-block; border-radius: 4px; padding: 0 4px; font-size: 10px; background: #fde8e8; color: #9b1c1c; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th.num { white-space: normal; }
tr.baseline td { background: #eef4ff; }
pre { background: #f6f7f9; border: 1px solid #d9dee5; border-radius: 6px; padding: 8px; font: 11px/1.35 Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 10px 0 18px; } figure svg { max-width: 100%; height: auto; } figcaption { font-weight: 600; margin-bottom: 4px; }
code { font: 12px Menlo, Consolas, monospace; background: #f6f7f9; padding: 0 3px; }
.tag { display: inline-block; border: 1px solid #9aa4b1; border-radius: 999px; padding: 0 6px; margin: 0 2px 2px 0; font-size: 11px; }
dl.kv { display: grid; grid-template-columns: 200px 1fr; gap: 2px 12px; margin: 0 0 10px; } dl.kv dt { color: #5d6672; } dl.kv dd { margin: 0; overflow-wrap: anywhere; }
section.appendix pre { font-size: 10px; }
@media print {
  body { margin: 0; max-width: none; padding: 0; }
  /* Sections flow on (a page break each left half-empty pages); only the appendix starts a page. */
  section.appendix { break-before: page; }
  section.appendix pre { columns: 2; column-gap: 14px; font-size: 8px; }
  h2, h3 { break-after: avoid; }
  tr, figure, .keep, dl.kv { break-inside: avoid; }
  thead { display: table-header-group; }
  /* The 11-column runs table must fit a portrait page (A4 leaves ~700 CSS px): one small size for
     every cell, header, id and tag (their screen sizes are fixed in px and would not shrink with
     the table), ids broken at their hyphens rather than anywhere, numbers allowed to wrap. */
  table.runs, table.runs th, table.runs code, table.runs .tag { font-size: 8.5px; }
  table.runs th { letter-spacing: 0; }
  table.runs code { overflow-wrap: anywhere; }
  table.runs .tag { padding: 0 3px; }
  table.runs td.num, table.runs th.num { white-space: normal; }
  table.runs th, table.runs td { padding: 3px 3px; }
  pre { white-space: pre-wrap; }
}`;

function pageCss(size: HtmlOptions['pageSize']): string {
  return size ? `@page { size: ${size}; margin: 14mm 12mm; }` : '@page { margin: 14mm 12mm; }';
}

function tags(run: ReportRun): Raw {
  return html`${run.summary.tags.map((t) => html`<span class="tag">${t}</span>`)}`;
}

const REPORT_CHART_WIDTH = 860;

function chartFigure(title: string, option: Record<string, unknown>, height = 360): Raw {
  // The SVG comes from ECharts' SSR renderer, which escapes the text it draws.
  return html`<figure class="keep"><figcaption>${title}</figcaption>${raw(renderSvg(option, REPORT_CHART_WIDTH, height))}</figure>`;
}

const spreadOf = (s: CompareGroup['stats']['tflopsPerGpu'] | undefined): Spread | null =>
  s ? { median: s.median, min: s.min, max: s.max, n: s.n } : null;

/** The comparison's repeat groups, as the Compare page groups them (one config hash per group). */
function groupsTable(comparison: Comparison): Raw {
  const primary = METRICS.find((m) => m.id === comparison.primary)!;
  return html`<table><thead><tr><th>Strategy</th><th>Model</th><th>Engine</th><th class="num">Repeats</th>
    <th class="num">TFLOPS/GPU median (min–max)</th><th class="num">Tokens/s</th>
    <th class="num">Step time s</th><th class="num">vs baseline (${primary.label})</th><th class="num">Δ TFLOPS/GPU</th></tr></thead><tbody>
    ${comparison.groups.map((g) => {
      const base = g.isBaseline;
      return html`<tr class="${base ? 'baseline' : ''}"><td>${g.label}${base ? ' (baseline)' : ''}</td><td>${g.model}</td><td>${g.engine}</td>
        <td class="num">${g.runIds.length}</td><td class="num">${fmtSpread(spreadOf(g.stats.tflopsPerGpu))}</td>
        <td class="num">${fmtSpread(spreadOf(g.stats.tokensPerSecond), 0)}</td><td class="num">${fmtSpread(spreadOf(g.stats.stepSeconds), 3)}</td>
        <td class="num">${base ? 'baseline' : g.speedup == null ? '—' : `${g.speedup.toFixed(2)}×`}</td>
        <td class="num">${base ? '—' : fmtPct(g.deltaPct.tflopsPerGpu ?? null)}</td></tr>`;
    })}</tbody></table>`;
}

function runsTable(runs: ReportRun[], base: ReportBaseline): Raw {
  const inBase = new Set(base.group?.runIds ?? []);
  return html`<table class="runs"><thead><tr><th>Run</th><th>Strategy</th><th>Started</th><th class="num">Steps</th>
    <th class="num">TFLOPS/GPU (min–max)</th><th class="num">Step time s (min–max)</th><th class="num">Tokens/s</th>
    <th class="num">GPU peak (predicted)</th><th class="num">Host peak (predicted)</th><th class="num">Predicted TFLOPS/GPU</th><th class="num">Δ TFLOPS/GPU vs baseline</th></tr></thead><tbody>
    ${runs.map((r) => {
      const s = r.summary;
      const delta = runDeltas(r, base).tflopsPerGpuPct;
      const notes = s.tags.length > 0 || !!s.notes || !!s.errorMessage;
      const measuredVsPredicted = (measured: number | null, predicted: number | null) =>
        predicted == null ? fmtBytes(measured) : `${fmtBytes(measured)} (${fmtBytes(predicted)})`;
      const classes = [inBase.has(s.id) ? 'baseline' : '', notes ? 'has-notes' : ''].filter(Boolean).join(' ');
      return html`<tr class="${classes}" data-run-id="${s.id}"><td><code>${s.id}</code></td>
        <td>${strategyName(s.strategy)}${s.repeatIndex > 0 ? ` · repeat ${s.repeatIndex + 1}` : ''}${inBase.has(s.id) ? ' (baseline)' : ''}${s.status !== 'completed' ? html` <span class="badge">${s.status}${s.errorClass ? ` (${s.errorClass})` : ''}</span>` : ''}</td>
        <td>${fmtTime(s.startedAt ?? s.createdAt)}</td><td class="num">${r.figures.measuredSteps}</td>
        <td class="num">${fmtSpread(r.figures.tflopsPerGpu)}</td><td class="num" data-col="step">${fmtSpread(r.figures.stepSeconds, 3)}</td>
        <td class="num">${fmtSpread(r.figures.tokensPerSecond, 0)}</td>${r.predicted.stepSeconds == null && r.figures.gpuPeakBytes == null ? html`<td class="num" data-col="gpu" title="${NO_PREDICTION_WHY}">${NO_PREDICTION}</td>` : html`<td class="num" data-col="gpu">${measuredVsPredicted(r.figures.gpuPeakBytes, r.predicted.gpuPeakBytes)}</td>`}
        <td class="num" data-col="host">${measuredVsPredicted(r.figures.hostPeakBytes, r.predicted.hostPeakBytes)}</td>${r.predicted.tflopsPerGpu != null ? html`<td class="num">${fmt(r.predicted.tflopsPerGpu)}</td>` : html`<td class="num" title="${NO_PREDICTION_WHY}">${NO_PREDICTION}</td>`}
        <td class="num" data-col="delta">${fmtPct(delta)}</td></tr>
        ${notes ? html`<tr class="notes${inBase.has(s.id) ? ' baseline' : ''}"><td colspan="11">${tags(r)}${s.notes ? html` ${s.notes}` : ''}${s.errorMessage ? html`<div class="muted">${s.errorMessage}</div>` : ''}</td></tr>` : ''}`;
    })}</tbody></table>`;
}

function systemsSection(runs: ReportRun[]): Raw {
  const machines = new Map<string, ReportRun[]>();
  for (const r of runs) {
    const key = r.machine ? JSON.stringify({ ...(r.machine.raw as object), detectedAt: null, detectionMs: null }) : 'none';
    machines.set(key, [...(machines.get(key) ?? []), r]);
  }
  const blocks = [...machines.values()].map((members) => {
    const m = members[0].machine;
    const ids = members.map((r) => r.summary.id).join(', ');
    if (!m) return html`<div class="keep"><h3>No system snapshot</h3><p class="muted">Runs: ${ids}</p></div>`;
    const gpus = m.gpus.length
      ? m.gpus.map((g) => `${g.index}: ${g.name} (${fmtBytes(g.memoryBytes)})`).join('; ')
      : `none — ${m.gpuStatus ?? 'no GPU detected'}`;
    return html`<div class="keep"><h3>${m.hostname} — ${systemName(members[0]) ?? ''}</h3><dl class="kv">
      <dt>Runs</dt><dd>${ids}</dd>
      <dt>OS</dt><dd>${[[m.os.distro, m.os.release].filter(Boolean).join(' '), m.os.kernel ? `kernel ${m.os.kernel}` : ''].filter(Boolean).join(', ') || '—'}${m.os.arch ? ` (${m.os.arch})` : ''}</dd>
      <dt>CPU</dt><dd>${m.cpu.model}: ${m.cpu.sockets ?? '—'} socket(s), ${m.cpu.physicalCores ?? '—'} cores / ${m.cpu.logicalCores ?? '—'} threads, ${m.cpu.numaNodes ?? '—'} NUMA node(s); ${m.cpu.simd.join(' ')}</dd>
      <dt>Memory</dt><dd>${fmtBytes(m.memory.totalBytes)}</dd>
      <dt>GPUs</dt><dd>${gpus}</dd>
      <dt>Driver / CUDA</dt><dd>${m.gpus[0]?.driverVersion ?? '—'} / ${m.gpus[0]?.cudaVersion ?? '—'}</dd>
      ${m.superchip ? html`<dt>Superchip</dt><dd>${m.superchip.kind}: ${m.superchip.description}</dd>` : ''}
      <dt>Detected</dt><dd>${fmtTime(m.detectedAt)}</dd></dl></div>`;
  });
  const distinct = [...machines.values()].map((ms) => ms[0].machine?.raw ?? null);
  const diffs = distinct.length > 1 ? diffJson(distinct, ['detectedAt', 'detectionMs', 'memory.availableBytes'], 60) : [];
  return html`${blocks}${
    diffs.length
      ? html`<h3>What differs between the systems</h3><table><thead><tr><th>Field</th>${[...machines.values()].map((ms, i) => html`<th>${ms[0].machine?.hostname ?? `system ${i + 1}`}</th>`)}</tr></thead>
        <tbody>${diffs.map((d) => html`<tr><td><code>${d.path}</code></td>${d.values.map((v) => html`<td>${v}</td>`)}</tr>`)}</tbody></table>`
      : ''
  }
  <h3>Software versions</h3><table><thead><tr><th>Runs</th><th>Runner</th><th>Python</th><th>torch</th><th>DeepSpeed</th><th>CUDA</th><th>Driver</th></tr></thead><tbody>
  ${versionGroups(runs).map(
    ({
      v,
      ids,
    }) => html`<tr><td>${ids.length === runs.length && runs.length > 1 ? `all ${runs.length} runs` : ids.join(', ')}</td><td>${v.runner ?? '—'}</td><td>${v.python ?? '—'}</td><td>${v.torch ?? '—'}</td>
    <td>${v.deepspeed ?? '—'}</td><td>${v.cuda ?? '—'}</td><td>${v.driver ?? '—'}</td></tr>`,
  )}</tbody></table>`;
}

/** Runs with the same software versions share one row. */
/** Runs that were Slurm jobs: the cluster (target), partition, job id and nodes of each. */
function slurmSection(runs: ReportRun[]): Raw {
  const jobs = runs.filter((r) => r.job);
  if (jobs.length === 0) return html``;
  return html`<div class="keep" data-testid="slurm-jobs"><h3>Slurm jobs</h3><p class="muted">These runs ran as batch jobs on a Slurm cluster; the system above is the machine the app ran on, not the compute nodes.</p>
  <table><thead><tr><th>Run</th><th>Cluster</th><th>Partition</th><th>Job</th><th>Nodes</th><th>State</th></tr></thead><tbody>
  ${jobs.map((r) => html`<tr><td>${r.summary.id}</td><td>${r.job!.target}</td><td>${r.job!.partition}</td><td>${r.job!.jobId}</td><td>${r.job!.nodes.join(', ') || '—'}</td><td>${r.job!.state}</td></tr>`)}
  </tbody></table></div>`;
}

function versionGroups(runs: ReportRun[]): { v: ReportRun['versions']; ids: string[] }[] {
  const byKey = new Map<string, { v: ReportRun['versions']; ids: string[] }>();
  for (const r of runs) {
    const key = JSON.stringify(r.versions);
    const entry = byKey.get(key) ?? { v: r.versions, ids: [] };
    entry.ids.push(r.summary.id);
    byKey.set(key, entry);
  }
  return [...byKey.values()];
}

function configOf(run: ReportRun): { kind: string; value: unknown } | null {
  // (An FSDP2 run's stored effective config is its FSDP settings, not a ds_config.json.)
  if (run.dsConfig != null)
    return { kind: run.summary.engine === 'deepspeed' ? 'ds_config.json' : `${run.summary.engine} settings`, value: run.dsConfig };
  const spec = (run.spec ?? null) as { fsdp?: unknown; knobs?: unknown } | null;
  if (spec && (spec.fsdp != null || spec.knobs != null))
    return { kind: `${run.summary.engine} settings`, value: { fsdp: spec.fsdp ?? null, knobs: spec.knobs ?? null } };
  return null;
}

/** Where a config came from when it is the user's own file (one line in its block). */
function userConfigLine(run: ReportRun): Raw {
  const user = trainingLaunch(run)?.userConfig;
  if (!user) return html``;
  return html`<p class="muted">Your own config: ${user.fileName} (sha256 ${user.sha256.slice(0, 12)}…), run unchanged${user.resolved.length ? html`, its ${String(user.resolved.length)} "auto" value(s) filled` : ''}.</p>`;
}

/** The launch lines for the user's own training, once per GPU × node shape (they are the same for every
 *  config of a shape: the ds_config file is the argument), so the appendix stays a few pages. */
function launchSection(runs: ReportRun[]): Raw {
  const byLines = new Map<string, string>();
  for (const r of runs) {
    const launch = trainingLaunch(r);
    if (launch) byLines.set(launch.files.launch.map((l) => l.line).join('\n'), `${r.workload.gpus} GPU(s) × ${r.workload.nodes} node(s)`);
  }
  if (byLines.size === 0) return html``;
  return html`<p class="muted">Launch your training with one of these configs (saved as ds_config.json; your script takes --deepspeed ds_config.json, as HF Trainer does)${byLines.size > 1 ? '' : html` — ${[...byLines.values()][0]}`}:</p>${[...byLines].map(([lines, shape]) => html`${byLines.size > 1 ? html`<p class="muted">${shape}:</p>` : ''}<pre>${lines}</pre>`)}`;
}

function configsSection(runs: ReportRun[]): Raw {
  // Each distinct config once, with the runs that used it (repeats and the same config in other
  // runs share one block): an appendix, so the report's pages are figures, not config dumps.
  const byText = new Map<string, { kind: string; members: ReportRun[] }>();
  for (const r of runs) {
    const c = configOf(r);
    const text = c ? JSON.stringify(c.value, null, 1) : '';
    const entry = byText.get(text) ?? { kind: c?.kind ?? '', members: [] };
    entry.members.push(r);
    byText.set(text, entry);
  }
  return html`<p class="muted">${byText.size} distinct configuration(s) for ${runs.length} run(s).</p>${[...byText].map(
    (
      [text, { kind, members }],
      i,
    ) => html`<div class="config-block"><h3>${String.fromCharCode(65 + (i % 26))}${i >= 26 ? String(Math.floor(i / 26)) : ''}. ${[...new Set(members.map((r) => strategyName(r.summary.strategy)))].join(', ')}${kind ? ` — ${kind}` : ''}</h3>
      <p class="muted">Runs: ${members.map((r) => r.summary.id).join(', ')}</p>
      ${text ? html`<pre>${text}</pre>` : html`<p class="muted">No configuration stored (${members[0].summary.engine}).</p>`}${userConfigLine(members[0])}</div>`,
  )}`;
}

function formulaSection(runs: ReportRun[]): Raw {
  return html`<p><strong>Model TFLOPS</strong>, ${FORMULA_TEXT}.</p><p>${FORMULA_CONVENTION}</p>
    <p class="muted">A figure is the median over the measured steps (warm-up steps are not counted), with min–max; a strategy's figure is the median of its repeats' medians, with min–max over repeats. Step times are taken after a device synchronize.</p>
    <table><thead><tr><th>Runs</th><th>Workload</th><th>Formula, with the first run's numbers</th></tr></thead><tbody>
    ${workloadGroups(runs).map(({ text, members }) => html`<tr><td>${members.map((r) => r.summary.id).join(', ')}</td><td>${text}</td><td>${formulaFor(members[0])}</td></tr>`)}</tbody></table>`;
}

/** Runs of one workload share a row of the formula table (each run's own figures are in the run table). */
function workloadGroups(runs: ReportRun[]): { text: string; members: ReportRun[] }[] {
  const byText = new Map<string, ReportRun[]>();
  for (const r of runs) {
    const w = r.workload;
    const text = `${r.summary.model}, seq ${w.seqLen ?? '—'}, global batch ${w.globalBatch ?? '—'} (micro ${w.microBatch ?? '—'} × accum ${w.gradAccum ?? '—'} × ${w.worldSize} GPU), ${w.precision ?? '—'}, checkpointing ${w.activationCheckpointing === null ? '—' : w.activationCheckpointing ? 'on' : 'off'}`;
    byText.set(text, [...(byText.get(text) ?? []), r]);
  }
  return [...byText].map(([text, members]) => ({ text, members }));
}

function charts(runs: ReportRun[], comparison: Comparison): Raw {
  const withSteps = runs.some((r) => r.samples.some((s) => !s.warmup));
  const withPrediction = comparison.runs.some((r) => r.predictedTflopsPerGpu != null || r.predictedStepSeconds != null);
  return html`${chartFigure('Model TFLOPS per GPU by strategy', repeatBarsOption(comparison, 'tflopsPerGpu') as Record<string, unknown>, 380)}
    ${withSteps ? chartFigure('Step time over the measured steps', stepLinesOption(comparison, 'stepSeconds', undefined, REPORT_CHART_WIDTH) as Record<string, unknown>, stepLinesHeight(comparison, REPORT_CHART_WIDTH, 320)) : ''}
    ${chartFigure('Peak memory per resource', memoryPerResourceOption(comparison) as Record<string, unknown>, 360)}
    ${withPrediction ? chartFigure('Predicted vs measured', predictedOption(comparison) as Record<string, unknown>, 360) : ''}`;
}

/**
 * The one headline: the comparison's (history's), followed by the model and the system, since a
 * report travels without the app. One group (nothing to compare): what ran, where and how fast.
 */
function reportHeadline(runs: ReportRun[], comparison: Comparison, baselineRun: ReportRun): string {
  const on = systemName(baselineRun);
  const models = [...new Set(runs.map((r) => r.summary.model))];
  const where = `${models.length === 1 ? `for ${models[0]}` : ''}${on ? ` on ${on}` : ''}`.trim();
  if (comparison.headline) return `${comparison.headline}${where ? ` — ${where}` : ''}.`;
  const base = comparison.groups.find((g) => g.isBaseline) ?? comparison.groups[0];
  const t = base?.stats.tflopsPerGpu?.median;
  return `${base ? base.label : strategyName(baselineRun.summary.strategy)} ran${where ? ` ${where}` : ''}${t != null ? ` at ${fmt(t)} TFLOPS per GPU` : ''}.`;
}

export function renderHtml(runs: ReportRun[], options: HtmlOptions): string {
  if (runs.length === 0) throw new Error('a report needs at least one run');
  const baselineRun = runs.find((r) => r.summary.id === options.baselineId) ?? runs[0];
  const generated = options.generatedAt ?? new Date();
  const comparison = options.comparison;
  const title = reportHeadline(runs, comparison, baselineRun);
  const warnings = [...new Set([...reportWarnings(runs), ...comparison.warnings])];
  const base = reportBaseline(comparison);
  const resources = options.resources ? resourcesSection(runs, options.resources) : null;
  const body = html`<header class="keep"><h1>Offload Studio benchmark report</h1>
    <p class="muted">Generated <time datetime="${generated.toISOString()}">${fmtTime(generated)}</time> by Offload Studio ${options.appVersion ?? ''} · ${runs.length} run(s) · baseline: <span data-testid="baseline">${base.label}</span> (chosen by <code>${baselineRun.summary.id}</code>)</p></header>
    <section class="summary"><h2>Summary</h2><p class="headline" data-testid="headline">${title}</p>
    ${warnings.map((w) => html`<p class="warn">${w}</p>`)}
    ${groupsTable(comparison)}</section>
    <section class="major charts"><h2>Charts</h2>
    ${charts(runs, comparison)}</section>
    <section class="major runs"><h2>Runs</h2><p class="muted">Figures are the median of measured steps (warm-up steps not counted), min–max in parentheses; memory is measured, the tuner's prediction in parentheses. Δ: percent change of TFLOPS per GPU against the baseline (${base.label}: ${fmt(base.tflopsPerGpu)} TFLOPS per GPU), the same baseline as the summary.</p>${runsTable(runs, base)}</section>
    ${resources ? html`<section class="major resources"><h2>Resources during the runs</h2>${resources}</section>` : ''}
    <section class="major system"><h2>System</h2>${systemsSection(runs)}${slurmSection(runs)}</section>
    <section class="major formula"><h2>How the figures are computed</h2>${formulaSection(runs)}</section>
    <section class="appendix configs"><h2>Appendix: configurations</h2>${configsSection(runs)}${launchSection(runs)}</section>`;
  // (No footer: the header says when and by which version; a footer alone on a last page is waste.)
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Offload Studio report — ${html`${title}`.__html}</title>
<style>${CSS}
${pageCss(options.pageSize)}</style></head>
<body>${body.__html}</body></html>
`;
}
