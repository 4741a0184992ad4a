// A comparison of selected runs against a baseline: their repeat groups with statistics, the
// headline, the differences of their configs and machines, each run's stored prediction beside its
// measurement. SQL stays here; the figures are computed by stats.ts and the differences by the
// contract's pure diff, so the UI, CLI and reports agree.
import {
  ApiError,
  METRICS,
  diffJson,
  hasPrediction,
  idTail,
  baselineRank,
  METRIC_SHORT,
  readStoredDocument,
  strategyLabel,
  type CompareGroup,
  type ComparedRun,
  type Comparison,
  type DiffEntry,
  type MetricId,
  type StoredHello,
  type StoredMachine,
} from '../../contract';
import { storedDataError, type Database } from './database';
import { groupRepeats, num, placeholders, type Groupable } from './queries';
import { summaryFromRow, type SummaryRow } from './summary-columns';
import { deltaPercent, speedup } from './stats';

interface CompareRow extends SummaryRow {
  snapshot_id: string | null;
  predicted_tflops_per_gpu: number | null;
  predicted_step_seconds: number | null;
  spec: string | null;
  hello: string | null;
  result: string | null;
  snapshot_body: string | null;
  snapshot_hostname: string | null;
}

// Paths that change on every detection or run without the machine or the setup changing.
const SNAPSHOT_VOLATILE = [
  'machine.detectedAt',
  'machine.detectionMs',
  'machine.memory.availableBytes',
  'software.t',
  'software.v',
  'software.rank',
  'software.pid',
];
// preflightMemory: the pre-flight's sizing for the host the run started on, set per run by runs/start
// (its basis is a sentence): not configuration, so not a configuration difference.
const CONFIG_VOLATILE = ['runId', 'seed', 'maxSeconds', 'configHash', 'preflightMemory'];

type LabelGroup = { strategy: string; model: string; engine: string; machineId: string | null; sweepId: string | null; runIds: string[] };

function distinctLabels(groups: LabelGroup[], hostOf: (machineId: string | null) => string, specOf?: (g: LabelGroup) => unknown): string[] {
  const differ = <T>(pick: (g: (typeof groups)[number]) => T) => new Set(groups.map(pick)).size > 1;
  const byModel = differ((g) => g.model);
  // The engine only where one strategy ran on two engines (strategy ids already imply it otherwise).
  const byEngine = groups.some((g) => groups.some((h) => h.strategy === g.strategy && h.engine !== g.engine));
  const byMachine = differ((g) => g.machineId);
  const labels = groups.map((g) => {
    const parts = [strategyLabel(g.strategy)];
    if (byEngine) parts.push(g.engine);
    if (byModel) parts.push(g.model);
    if (byMachine) parts.push(hostOf(g.machineId));
    return parts.join(' · ');
  });
  // Same strategy in one sweep with different setups (micro batch, knobs): name what differs.
  const dup = (l: string, i: number, all: string[]) => all.indexOf(l) !== all.lastIndexOf(l);
  const withSetup = labels.map((l, i) => {
    if (!specOf || !dup(l, i, labels)) return l;
    const same = groups.map((_, j) => j).filter((j) => labels[j] === l && groups[j].sweepId === groups[i].sweepId);
    if (same.length < 2) return l;
    const diffs = diffJson(
      same.map((j) => specOf(groups[j])),
      [...CONFIG_VOLATILE, 'configHash', 'prediction', 'dsConfig', 'fsdp', 'steps', 'warmup', 'model.label', 'model.source'],
    );
    const mine = same.indexOf(i);
    const note = diffs.map((d) => `${d.path.split('.').pop()} ${d.values[mine]}`).join(', ');
    return note ? `${l} (${note})` : l;
  });
  // Same strategy from two sweeps: tell them apart by sweep — by the end of its id, since every
  // sweep of a day starts "sw-20261203-" (a cut from the front once read "sw-20261" for all).
  return withSetup.map((l, i) => (dup(l, i, withSetup) ? `${l} (sweep ${idTail(groups[i].sweepId ?? '-')})` : l));
}

function chooseBaseline(groups: { key: string; strategy: string; runIds: string[] }[], baselineId: string | undefined): string | null {
  if (groups.length === 0) return null;
  if (baselineId) {
    const g = groups.find((x) => x.runIds.includes(baselineId));
    if (!g) throw new ApiError('bad_request', `The baseline run ${baselineId} is not among the compared runs.`, 'baselineId');
    return g.key;
  }
  // The seed comparison reads "SuperOffload vs ZeRO-Offload" (DeepSpeed's zerooffload: ZeRO-3 Offload
  // here): BASELINE_RULE_WORDS says this order — ZeRO-3 Offload, else ZeRO-Offload, else the oldest run's.
  const ranked = groups.filter((g) => baselineRank(g.strategy) >= 0).sort((a, b) => baselineRank(a.strategy) - baselineRank(b.strategy));
  return (ranked[0] ?? groups[0]).key;
}

function primaryMetric(groups: Pick<CompareGroup, 'stats'>[]): MetricId {
  for (const id of ['tflopsPerGpu', 'tokensPerSecond', 'stepSeconds'] as const) if (groups.some((g) => g.stats[id])) return id;
  return 'tflopsPerGpu';
}

/** Two groups of ≥ 2 repeats each whose ranges (min–max) overlap: their difference is within the noise. */
function withinSpread(a: { n: number; min: number; max: number }, b: { n: number; min: number; max: number }): boolean {
  return a.n >= 2 && b.n >= 2 && a.min <= b.max && b.min <= a.max;
}

/** "SuperOffload was 1.52× faster than ZeRO-Offload (TFLOPS/GPU median of 2 repeats)". */
export function headline(groups: CompareGroup[], primary: MetricId): string | null {
  const base = groups.find((g) => g.isBaseline);
  const measured = groups.filter((g) => g.stats[primary]);
  if (!base || !base.stats[primary] || measured.length < 2) return null;
  const others = measured.filter((g) => g !== base);
  const best = others.reduce((a, b) => ((b.speedup ?? 0) > (a.speedup ?? 0) ? b : a));
  const ratio = best.speedup;
  if (ratio == null) return null;
  const repeats = (g: CompareGroup) => g.stats[primary]!.n;
  // The counts follow the groups in the order the sentence names them.
  const basisOf = (first: CompareGroup, second: CompareGroup) => {
    const counts =
      repeats(first) === repeats(second)
        ? `${repeats(first)} repeat${repeats(first) === 1 ? '' : 's'}`
        : `${repeats(first)} vs ${repeats(second)} repeats`;
    return `(${METRIC_SHORT[primary]} median of ${counts})`;
  };
  const basis = basisOf(best, base);
  const word = primary === 'tflopsPerGpu' || primary === 'tokensPerSecond' || primary === 'stepSeconds' ? 'faster' : 'better';
  if (Math.abs(ratio - 1) < 0.01) return `${best.label} and ${base.label} were within 1 % of each other ${basis}`;
  // With repeats on both sides, a difference inside their spread is noise, not a winner (the
  // Run page and Compare once named different winners for the same runs).
  if (withinSpread(best.stats[primary]!, base.stats[primary]!))
    return `${best.label} and ${base.label} tie within the spread of their repeats (medians ${ratio > 1 ? ratio.toFixed(2) : (1 / ratio).toFixed(2)}× apart, ranges overlap) ${basis}`;
  if (ratio > 1) return `${best.label} was ${ratio.toFixed(2)}× ${word} than ${base.label} ${basis}`;
  // The baseline won against every other group: say it the other way round.
  return `${base.label} was ${(1 / ratio).toFixed(2)}× ${word} than ${best.label} ${basisOf(base, best)}`;
}

function capacityOf(m: StoredMachine | null | undefined, hello: StoredHello | null | undefined): Comparison['capacity'] {
  // Without a machine snapshot (runs converted from raw runner output), the runner's own device
  // list still says how much memory each GPU has.
  const devices = m?.gpus ?? hello?.devices ?? [];
  const gpu = devices.map((g) => g.memoryBytes ?? null).filter((x): x is number => x !== null);
  const nvme = (m?.disks ?? []).filter((d) => d.isNvme === true).map((d) => d.sizeBytes ?? 0);
  return {
    gpuBytes: gpu.length ? Math.min(...gpu) : null, // the smallest GPU is the one that runs out
    hostBytes: m?.memory?.totalBytes ?? null,
    nvmeBytes: nvme.length ? num(nvme.reduce((a, b) => a + b, 0)) : null, // null where a stored size made the sum overflow
    machine: m?.hostname ? m.hostname : null,
  };
}

/** The stored prediction of a run, both null where there is none (a step cannot take 0 s). */
function storedPrediction(r: CompareRow): Pick<ComparedRun, 'predictedTflopsPerGpu' | 'predictedStepSeconds'> {
  const stepSeconds = storedNumber(r, 'predicted_step_seconds');
  if (!hasPrediction({ stepSeconds })) return { predictedTflopsPerGpu: null, predictedStepSeconds: null };
  const tflops = storedNumber(r, 'predicted_tflops_per_gpu');
  return { predictedTflopsPerGpu: tflops !== null && tflops > 0 ? tflops : null, predictedStepSeconds: stepSeconds };
}

/** A nullable REAL column of a stored run, or a stored-data error naming it. */
function storedNumber<R extends { id: string }>(row: R, column: keyof R & string): number | null {
  const v = row[column] as unknown;
  if (v === null || v === undefined) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw storedDataError(row.id, column, 'not a number');
  return v;
}

export function compareRuns(db: Database, ids: readonly string[], baselineId?: string): Comparison {
  const unique = [...new Set(ids)];
  const rows = db
    .prepare(
      `SELECT r.*, d.spec, d.hello, d.result, s.body AS snapshot_body, s.hostname AS snapshot_hostname
       FROM runs r LEFT JOIN run_details d ON d.run_id = r.id LEFT JOIN snapshots s ON s.id = r.snapshot_id
       WHERE r.id IN (${placeholders(unique.length)}) ORDER BY r.created_at, r.id`,
    )
    .all(...unique) as unknown as CompareRow[];
  const missing = unique.filter((id) => !rows.some((r) => r.id === id));
  if (missing.length) throw new ApiError('not_found', `No stored run with id ${missing.join(', ')}.`, 'ids');

  // The stored documents as history reads them (contract stored.ts); one that does not parse reads as null.
  const snapshots = rows.map((r) => readStoredDocument('snapshot', r.snapshot_body).value);
  const hellos = rows.map((r) => readStoredDocument('hello', r.hello).value);
  const results = rows.map((r) => readStoredDocument('result', r.result).value);
  const specs = rows.map((r) => readStoredDocument('spec', r.spec).value);
  const hostByMachine = new Map(rows.map((r) => [r.machine_id, r.snapshot_hostname ?? r.machine_id ?? 'unknown machine']));
  const runs: (ComparedRun & Groupable)[] = rows.map((r, i) => ({
    ...summaryFromRow(r),
    label: '',
    peakNvmeBytes: results[i]?.peakNvmeBytes ?? null,
    // A CPU smoke run's plan stores zeros: no prediction, not a prediction of zero.
    ...storedPrediction(r),
    snapshotId: r.snapshot_id,
    hostname: r.snapshot_hostname,
  }));

  const raw = groupRepeats(runs);
  const specById = new Map(rows.map((r, i) => [r.id, specs[i]]));
  const labels = distinctLabels(
    raw,
    (m) => hostByMachine.get(m) ?? 'unknown machine',
    (g) => specById.get(g.runIds[0]),
  );
  const baselineKey = chooseBaseline(raw, baselineId);
  const primary = primaryMetric(raw);
  const base = raw.find((g) => g.key === baselineKey);
  const groups: CompareGroup[] = raw.map((g, i) => ({
    ...g,
    label: labels[i],
    isBaseline: g.key === baselineKey,
    deltaPct: Object.fromEntries(
      METRICS.map((m) => [m.id, deltaPercent(g.stats[m.id]?.median, base?.stats[m.id]?.median)]),
    ) as CompareGroup['deltaPct'],
    speedup: speedup(
      METRICS.find((m) => m.id === primary)!,
      g.stats[primary]?.median,
      base?.stats[primary]?.median,
    ),
  }));
  // The baseline leads (tables and bars read from it), the rest keep their order of appearance.
  groups.sort((a, b) => Number(b.isBaseline) - Number(a.isBaseline));
  const labelOf = new Map(
    groups.flatMap((g) => g.runIds.map((id, k) => [id, g.runIds.length > 1 ? `${g.label} #${k + 1}` : g.label] as const)),
  );
  for (const r of runs) r.label = labelOf.get(r.id) ?? r.id;

  // Measured steps only: warm-up steps include compilation and allocation.
  const series = runs.map((r) => ({
    runId: r.id,
    label: r.label,
    steps: [] as number[],
    stepSeconds: [] as (number | null)[],
    tflopsPerGpu: [] as (number | null)[],
  }));
  const seriesById = new Map(series.map((s) => [s.runId, s]));
  const sampleRows = db
    .prepare(
      `SELECT run_id, step, step_seconds, tflops_per_gpu FROM samples WHERE run_id IN (${placeholders(unique.length)}) AND warmup = 0 ORDER BY run_id, step`,
    )
    .all(...unique) as unknown as { run_id: string; step: number; step_seconds: number; tflops_per_gpu: number | null }[];
  for (const s of sampleRows) {
    const target = seriesById.get(s.run_id)!;
    target.steps.push(s.step);
    target.stepSeconds.push(s.step_seconds);
    target.tflopsPerGpu.push(s.tflops_per_gpu);
  }

  // Systems: the machine plus the software the runner reported (torch, DeepSpeed, CUDA).
  const systemDocs = rows.map((_, i) => ({ machine: snapshots[i], software: hellos[i] }));
  const toEntry = (d: { path: string; values: string[] }): DiffEntry => ({ path: d.path, values: d.values });
  const snapshotDiff = diffJson(systemDocs, SNAPSHOT_VOLATILE).map(toEntry);
  const configDiff = diffJson(specs, CONFIG_VOLATILE).map(toEntry);

  const warnings: string[] = [];
  // Snapshot ids differ whenever a volatile field does (free memory): judge by the diff instead.
  const hosts = [...new Set(rows.map((r) => r.snapshot_hostname ?? r.machine_id ?? 'unknown'))];
  if (hosts.length > 1)
    warnings.push(
      `These runs come from different machines (${hosts.join(', ')}): ${snapshotDiff.length} system difference(s) below. Compare with care.`,
    );
  else if (snapshotDiff.length)
    warnings.push(`The system changed between these runs (${snapshotDiff.length} difference(s) below). Compare with care.`);
  const versions = snapshotDiff.filter((d) => /^software\.(torch|deepspeed|cuda|python|runnerVersion)$/.test(d.path));
  if (versions.length) warnings.push(`Software versions differ: ${versions.map((d) => d.path.replace('software.', '')).join(', ')}.`);
  const notCompleted = runs.filter((r) => r.status !== 'completed');
  if (notCompleted.length)
    warnings.push(
      `${notCompleted.length} run(s) did not complete (${notCompleted.map((r) => `${r.label}: ${r.status}`).join('; ')}); they add no figures.`,
    );

  const comparison: Comparison = {
    metrics: [...METRICS],
    primary,
    runs,
    series,
    groups,
    baselineKey,
    headline: null,
    snapshotDiff,
    configDiff,
    capacity: capacityOf(
      snapshots.find((s) => s != null),
      hellos.find((h) => h != null),
    ),
    warnings,
  };
  comparison.headline = headline(groups, primary);
  return comparison;
}
