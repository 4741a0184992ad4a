// One strategy's row of a plan at the workload and knobs given: its memory and verdict, its prediction,
// the config it writes and that config's check, the warnings of its mechanism.
import type { Knobs, StrategyPlan, StrategyPreset, Workload } from '../../../contract';
import { generateConfig } from '../config/ds-config';
import { mechanismOf } from '../mechanisms/registry';
import { checkFit, cpuSmokeHostBytes, cpuSmokeRunnable, type FitVerdict } from '../model/fit';
import { estimateMemory } from '../model/memory';
import { bandFor, measuredFit } from '../model/memory-evidence';
import { predictFrom } from '../model/throughput';
import { factorsFor, type PlanContext } from './context';

/** The verdict's margin and what measured it, for the plan's row. */
function fitDetail(fit: FitVerdict): StrategyPlan['fit'] {
  const band = fit.band ?? { relative: 0, source: 'uncalibrated' as const, runs: 0 };
  const m = fit.measured;
  return {
    verdict: fit.verdict,
    gpuBandBytes: Math.round(fit.gpuBandBytes),
    bandRelative: band.relative,
    bandSource: band.source,
    bandRuns: band.runs,
    measured: m
      ? { runId: m.point.runId, outcome: m.outcome, microBatch: m.point.workload.microBatch, peakGpuBytes: m.point.peakGpuBytes }
      : null,
  };
}

export function evaluate(
  ctx: PlanContext,
  s: StrategyPreset,
  w: Workload,
  searched?: Knobs,
): Omit<StrategyPlan, 'spec' | 'knobReasons'> & { spec?: StrategyPlan['spec']; knobReasons?: string[] } {
  // the strategy's row: the workload and knobs given (planWorkload passes the search's own choice)
  const { model, params, machine, hw, perc, evidence } = ctx;
  const factors = factorsFor(ctx, s.id);
  const knobs: Knobs = { cpuadamCoresPerc: perc, ...searched };
  const estimated = estimateMemory(s, model, params, w, true, knobs);
  const fit = checkFit(s, estimated, w, machine, hw, { band: bandFor(evidence, s.id), measured: measuredFit(evidence, s.id, w, knobs) });
  // A CPU smoke run keeps what a GPU would hold in host memory: the row's host figure, the spec's
  // (which the pre-flight checks) and the verdict's words are one number, so they cannot disagree.
  const memory = cpuSmokeRunnable(s, estimated, hw) ? { ...estimated, hostBytes: cpuSmokeHostBytes(estimated) } : estimated;
  const predicted = predictFrom(
    { strategy: s, model, params, workload: w, profile: hw, cpuadamCoresPerc: knobs.cpuadamCoresPerc ?? perc, knobs },
    factors,
  );
  const config = generateConfig(s, w, knobs);
  const validation = mechanismOf(s).validateConfig(config, w);
  const warnings = [...fit.warnings, ...validation.warnings.map((v) => `${v.field}: ${v.message}`)];
  warnings.push(...(mechanismOf(s).planWarnings?.(s, w, hw) ?? []));
  return {
    id: s.id,
    label: s.label,
    engine: s.engine,
    fits: fit.fits,
    reason: fit.reason,
    limitedBy: fit.limitedBy,
    fit: fitDetail(fit),
    memory,
    predicted,
    config,
    validation,
    warnings,
  };
}
