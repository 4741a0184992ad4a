// The one pure function that produces a plan: every strategy × the workload on one machine —
// fits (and why not), memory, predicted step time and TFLOPS, config + validation — and the
// recommendation. The CLI, the plan/compute channel and the Plan page all show its output.
import type {
  Knobs,
  Machine,
  PlanResult,
  Prediction,
  RunSpec,
  StrategyPlan,
  StrategyPreset,
  Workload,
  WorkloadInput,
} from '../../../contract';
import { catalog, strategyById } from '../catalogue/presets';
import { DEFAULT_CPUADAM_CORES_PERC, resolveKnobs } from '../config/ds-config';
import { buildRunSpec, planSpec, specPrediction } from '../config/run-spec';
import { memoryShortfall } from '../model/fit';
import { kernelsForPlan, kernelsNote, withKernels } from '../model/kernels';
import { estimateMemory } from '../model/memory';
import { countParams } from '../model/params';
import { predictFrom, type EfficiencyFactors } from '../model/throughput';
import { planContext, type PlanOptions } from './context';
import { madeFor, memoryEvidenceNote, moeNote, speedSourcesNote } from './notes';
import { recommend, type Candidate } from './recommend';
import { evaluate } from './row';
import { searchStrategy } from './search';
import { edgeTrialFor } from './trial-worth';

export { chooseCpuadamCoresPerc, type PlanOptions } from './context';
export { speedSourcesNote } from './notes';

/** Plan a workload on a machine. Pure: the same inputs give the same numbers everywhere. */
export function planWorkload(input: WorkloadInput | Workload, options: PlanOptions): PlanResult {
  const ctx = planContext(input, options);
  const { workload, model, params, hw } = ctx;
  const strategies = options.strategies ? options.strategies.map(strategyById) : catalog().strategies;
  const bestOf = new Map<string, Candidate>();
  const recommended = recommend(ctx, strategies, bestOf);
  // Each row is one coherent configuration: the form's micro batch with the knobs best
  // for that micro batch — not with knobs searched for another ("ratio 0.75 at micro 1, 5.55 s": the
  // ratio the search chose for micro 8, a configuration nobody would run). Where the search's pick has
  // another micro batch, the knobs are searched again at the form's; the pick itself is the spec.
  // A configuration is evaluated once, whichever way it was reached: where the search's only configuration
  // at the form's micro batch is its edge (nothing fits for sure), the row is that edge — same knobs, same
  // prediction, same verdict — not the seed knobs beside it (Phi-3-mini ZeRO-Offload micro 25 on an H100 read
  // overlap_comm false, 11,336 tokens/s in the row and spec, overlap_comm true, 11,636 as the edge tune tried).
  const atFormMicro = (m: { microBatch: number; gradAccum?: number }) =>
    m.microBatch === workload.microBatch && (m.gradAccum ?? workload.gradAccum) === workload.gradAccum;
  const rowKnobs = (s: StrategyPreset): Knobs | undefined => {
    const best = hw.gpuCount ? bestOf.get(s.id) : undefined;
    if (!best) return undefined;
    if (best.edgeOnly) return best.edge && atFormMicro(best.edge) ? best.edge.knobs : undefined;
    if (atFormMicro(best)) return best.knobs;
    const atForm = searchStrategy(ctx, s, { ...workload, searchMicroBatch: false, globalBatch: undefined });
    if (atForm?.fitsNone) return atForm.edge && atFormMicro(atForm.edge) ? atForm.edge.knobs : undefined;
    return atForm ? atForm.knobs : undefined;
  };
  const knobsOfRow = strategies.map(rowKnobs);
  const plans = strategies.map((s, i) => evaluate(ctx, s, workload, knobsOfRow[i]));
  const notes = [
    "Memory: what DeepSpeed 0.19 / FSDP2 allocate, by phase (ZeRO without offload: bf16 parameters, fp32 master + Adam states, gradient partitions, one fp32 sub-group gradient; offload: DeepSpeed's estimator + the GPU share) + activations + logits + buffers, the allocator's free block and the CUDA context; GPU per GPU, host and NVMe per node. A GPU verdict carries the model's measured error as a band: within it, \"at the edge\" — a trial decides (docs/tuner-model.md).",
    memoryEvidenceNote(ctx.evidence),
    speedSourcesNote(hw.sources),
    kernelsNote(ctx.kernels),
  ];
  if (options.machineSource === 'catalogued') notes.push('The machine is catalogued (a synthetic description), not detected.');
  if (params.experts) notes.push(moeNote(params));
  const measured = madeFor(hw);
  // Each strategy's RunSpec: the knobs its search chose and the prediction for exactly those (no GPU:
  // nothing was searched for real, the form's values run).
  for (const [i, s] of strategies.entries()) plans[i].knobReasons = (hw.gpuCount ? bestOf.get(s.id)?.why : undefined) ?? [];
  for (const [i, s] of strategies.entries()) {
    const best = hw.gpuCount ? (bestOf.get(s.id) ?? null) : null;
    plans[i].spec = planSpec(
      s,
      model,
      params,
      workload,
      best && !best.edgeOnly ? best : null,
      plans[i],
      // without a pick, the row's own configuration (its knobs: the edge's where that is the row): the spec
      // runs what its prediction and verdict are for
      { cpuadamCoresPerc: ctx.perc, ...(best && !best.edgeOnly ? {} : knobsOfRow[i]) },
      measured,
    );
    const edge = best?.edge;
    plans[i].edge = edge
      ? {
          microBatch: edge.microBatch,
          fitChance: edge.fitChance,
          reason: `micro ${edge.microBatch} is predicted ${best.edgeOnly ? `at ${edge.predicted.tflopsPerGpu.toFixed(0)} TFLOPS/GPU, but nothing of this strategy fits for sure` : `${((edge.predicted.tokensPerSecond / best.predicted.tokensPerSecond - 1) * 100).toFixed(0)}% faster than micro ${best.microBatch}`} — at the edge of GPU memory, within the model's error (about ${Math.round(edge.fitChance * 100)}% likely to fit): a short trial decides`,
          spec: planSpec(s, model, params, workload, edge, plans[i], { cpuadamCoresPerc: ctx.perc }, measured),
        }
      : null;
  }
  if (recommended)
    recommended.edgeTrial = edgeTrialFor(plans as StrategyPlan[], {
      strategyId: recommended.strategyId,
      tokensPerSecond: recommended.predicted.tokensPerSecond,
      stepSeconds: recommended.predicted.stepSeconds,
    });
  return {
    params: params.total,
    largestLayerParams: params.largestLayer,
    model,
    workload,
    profile: hw,
    strategies: plans as StrategyPlan[],
    recommended,
    scenario: options.scenario ?? null,
    notes,
    kernels: ctx.kernels,
  };
}

/**
 * The spec of a strategy with knobs the search did not choose — a device grid's pinned ratio, the seed
 * defaults a `tune` is measured against — carrying what the model predicts for exactly those knobs at
 * the plan's micro batch, on the plan's machine profile: the runner's pre-flight then checks the plan's
 * own host-memory figure (its fallback estimate is coarser), and the run's prediction error can be read.
 * Uncalibrated: the plan keeps no factors. `doesNotFit`: where the model says those knobs exceed the
 * machine's memory (in words), else null.
 */
export function specForKnobs(plan: PlanResult, strategyId: string, knobs: Knobs): { spec: RunSpec; doesNotFit: string | null } {
  const s = strategyById(strategyId);
  const w = plan.workload;
  // the plan's own kernel figures, where it had them: the spec reads like the plan's rows
  const probed = plan.kernels?.source === 'probe' ? kernelsForPlan({ probe: plan.kernels.probe }, plan.model, w, plan.profile).use : null;
  const params = withKernels(countParams(plan.model), probed);
  const resolved = resolveKnobs(s, w, knobs);
  const memory = estimateMemory(s, plan.model, params, w, true, resolved);
  const perc = resolved.cpuadamCoresPerc ?? w.cpuadamCoresPerc ?? DEFAULT_CPUADAM_CORES_PERC;
  const predicted = predictFrom({
    strategy: s,
    model: plan.model,
    params,
    workload: w,
    profile: plan.profile,
    cpuadamCoresPerc: perc,
    knobs: resolved,
  });
  const spec = buildRunSpec({ ...w, model: plan.model }, strategyId, {
    knobs,
    prediction: specPrediction(predicted, memory, params.total, madeFor(plan.profile)),
  });
  return { spec, doesNotFit: plan.profile.gpuCount ? (memoryShortfall(memory, plan.profile)?.reason ?? null) : null };
}

/** Predicted figures of one strategy (stored beside the measured ones of a run). */
export function predict(
  input: WorkloadInput | Workload,
  strategyId: string,
  machine: Machine,
  measurements?: unknown,
  calibration?: EfficiencyFactors,
  knobs?: Knobs,
): Prediction {
  const ctx = planContext(input, { machine, measurements });
  return predictFrom(
    {
      strategy: strategyById(strategyId),
      model: ctx.model,
      params: ctx.params,
      workload: ctx.workload,
      profile: ctx.hw,
      cpuadamCoresPerc: knobs?.cpuadamCoresPerc ?? ctx.perc,
      knobs,
    },
    calibration,
  );
}

/**
 * One strategy at exactly these knobs and the workload's own micro batch and accumulation — no search:
 * the row a user's own ds_config gets (user-config/). The same evaluation as a plan's rows, so its
 * verdict, memory and prediction read like theirs.
 */
export function planConfiguration(input: WorkloadInput | Workload, options: PlanOptions, strategyId: string, knobs: Knobs): StrategyPlan {
  const ctx = planContext(input, options);
  const s = strategyById(strategyId);
  const row = evaluate(ctx, s, ctx.workload, knobs);
  const spec = planSpec(s, ctx.model, ctx.params, ctx.workload, null, row, knobs, madeFor(ctx.hw));
  return { ...row, knobReasons: [], spec, edge: null };
}
