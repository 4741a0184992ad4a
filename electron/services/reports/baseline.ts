// The one baseline definition every format uses, the Compare page's and the CLI's: the history's
// comparison names a baseline repeat group, and every delta (per group and per run) is measured
// against that group's median of its runs' medians of measured steps. A run of the baseline group
// itself gets its small delta to its own group's median too; no delta reads against one run.
import type { CompareGroup, Comparison } from '../../contract';
import { deltaPercent, speedup } from '../history';
import type { ReportRun } from './types';

export interface ReportBaseline {
  group: CompareGroup | null;
  /** "ZeRO-Offload, median of 2 repeats" */
  label: string;
  tflopsPerGpu: number | null;
  stepSeconds: number | null;
  tokensPerSecond: number | null;
}

export function reportBaseline(comparison: Comparison): ReportBaseline {
  const group = comparison.groups.find((g) => g.isBaseline) ?? null;
  const n = group?.runIds.length ?? 0;
  return {
    group,
    label: group ? `${group.label}, ${n === 1 ? 'its one run' : `median of ${n} repeats`}` : '—',
    tflopsPerGpu: group?.stats.tflopsPerGpu?.median ?? null,
    stepSeconds: group?.stats.stepSeconds?.median ?? null,
    tokensPerSecond: group?.stats.tokensPerSecond?.median ?? null,
  };
}

/** A run's deltas against the baseline group's medians (percent; speed-up > 1 is faster). */
export function runDeltas(run: ReportRun, base: ReportBaseline) {
  const f = run.figures;
  return {
    tflopsPerGpuPct: deltaPercent(f.tflopsPerGpu?.median, base.tflopsPerGpu),
    stepSecondsPct: deltaPercent(f.stepSeconds?.median, base.stepSeconds),
    speedup:
      speedup({ better: 'higher' }, f.tokensPerSecond?.median, base.tokensPerSecond) ??
      speedup({ better: 'lower' }, f.stepSeconds?.median, base.stepSeconds),
  };
}

/** The repeat group a run belongs to (its label), from the same comparison. */
export function groupOf(comparison: Comparison, runId: string): CompareGroup | null {
  return comparison.groups.find((g) => g.runIds.includes(runId)) ?? null;
}
