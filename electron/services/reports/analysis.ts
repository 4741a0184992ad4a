// Groups of repeats, the baseline, deltas and the one-line headline of a report.
// Speed is compared on tokens per second (batch-independent), falling back to 1 / step time.
import { fmt, strategyName } from './format';
import { percentDelta, spread } from './stats';
import type { ReportGroup, ReportRun } from './types';

export function groupRuns(runs: ReportRun[]): ReportGroup[] {
  const groups = new Map<string, ReportRun[]>();
  for (const run of runs) {
    const s = run.summary;
    const key = [s.model, s.strategy, s.engine, s.machineId ?? ''].join('|');
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  return [...groups].map(([key, members]) => ({
    key,
    model: members[0].summary.model,
    strategy: members[0].summary.strategy,
    engine: members[0].summary.engine,
    runs: members,
    stepSeconds: spread(members.map((r) => r.figures.stepSeconds?.median)),
    tflopsPerGpu: spread(members.map((r) => r.figures.tflopsPerGpu?.median)),
    tflopsAggregate: spread(members.map((r) => r.figures.tflopsAggregate?.median)),
    tokensPerSecond: spread(members.map((r) => r.figures.tokensPerSecond?.median)),
  }));
}

/** Higher is faster. */
function speedOf(g: { tokensPerSecond: { median: number } | null; stepSeconds: { median: number } | null }): number | null {
  if (g.tokensPerSecond && g.tokensPerSecond.median > 0) return g.tokensPerSecond.median;
  if (g.stepSeconds && g.stepSeconds.median > 0) return 1 / g.stepSeconds.median;
  return null;
}

/** How many times faster `g` is than `base` (> 1 = faster). */
export function speedup(g: ReportGroup | ReportRun['figures'], base: ReportGroup | ReportRun['figures']): number | null {
  const a = speedOf(g);
  const b = speedOf(base);
  return a !== null && b !== null && b > 0 ? a / b : null;
}

export interface RunDelta {
  tflopsPerGpuPct: number | null;
  stepSecondsPct: number | null;
  tokensPerSecondPct: number | null;
  speedup: number | null;
}

export function runDelta(run: ReportRun, baseline: ReportRun): RunDelta {
  return {
    tflopsPerGpuPct: percentDelta(run.figures.tflopsPerGpu?.median, baseline.figures.tflopsPerGpu?.median),
    stepSecondsPct: percentDelta(run.figures.stepSeconds?.median, baseline.figures.stepSeconds?.median),
    tokensPerSecondPct: percentDelta(run.figures.tokensPerSecond?.median, baseline.figures.tokensPerSecond?.median),
    speedup: speedup(run.figures, baseline.figures),
  };
}

/** "4× NVIDIA GH200 480GB" / "Intel Xeon … (CPU only)" / null when no snapshot was kept. */
export function systemName(run: ReportRun): string | null {
  const m = run.machine;
  if (!m) return null;
  if (m.gpus.length > 0) {
    const n = Math.min(run.workload.worldSize, m.gpus.length) || m.gpus.length;
    return `${n}× ${m.superchip?.kind ?? m.gpus[0].name}`;
  }
  return `${m.cpu.model} (CPU only)`;
}

/** "SuperOffload was 1.5× faster than ZeRO-Offload for Llama-70B on 4× GH200." */
export function headline(groups: ReportGroup[], baseline: ReportGroup): string {
  const peers = groups.filter((g) => g.model === baseline.model && speedOf(g) !== null);
  const on = systemName(baseline.runs[0]);
  const where = `for ${baseline.model}${on ? ` on ${on}` : ''}`;
  if (peers.length < 2 || speedOf(baseline) === null) {
    const t = baseline.tflopsPerGpu?.median;
    return `${strategyName(baseline.strategy)} ran ${where}${t != null ? ` at ${fmt(t)} TFLOPS per GPU` : ''}.`;
  }
  const sorted = [...peers].sort((a, b) => speedOf(b)! - speedOf(a)!);
  const best = sorted[0];
  if (best !== baseline) {
    const x = speedup(best, baseline)!;
    return `${strategyName(best.strategy)} was ${x.toFixed(2)}× ${x >= 1 ? 'faster' : 'as fast'} than ${strategyName(baseline.strategy)} ${where}.`;
  }
  const next = sorted[1];
  return `${strategyName(baseline.strategy)} (the baseline) was the fastest ${where}: ${speedup(baseline, next)!.toFixed(2)}× faster than ${strategyName(next.strategy)}.`;
}

/** Warnings the reader must see: runs from different systems, failed runs, missing samples. */
export function reportWarnings(runs: ReportRun[]): string[] {
  const warnings: string[] = [];
  const systems = new Map<string, string[]>();
  for (const r of runs) {
    const key = r.machine ? `${r.machine.hostname} · ${systemName(r) ?? ''}` : '(no snapshot)';
    systems.set(key, [...(systems.get(key) ?? []), r.summary.id]);
  }
  if (systems.size > 1)
    warnings.push(`These runs come from ${systems.size} different systems (${[...systems.keys()].join('; ')}): figures across systems are not like for like.`);
  const notDone = runs.filter((r) => r.summary.status !== 'completed');
  if (notDone.length) warnings.push(`${notDone.length} run(s) did not complete (${notDone.map((r) => `${r.summary.id}: ${r.summary.status}`).join(', ')}); their figures are partial or absent.`);
  const noSamples = runs.filter((r) => r.figures.source !== 'samples' && r.summary.status === 'completed');
  if (noSamples.length) warnings.push(`${noSamples.length} run(s) have no stored per-step samples; their spread comes from the runner's summary.`);
  return warnings;
}
