// The memory a run needs on the host it is about to start on, sized there. A spec's
// prediction is what the Plan page showed for the machine it was planned for: a loaded H200's plan
// said "~2.0 GiB host" for a 3B ZeRO-1 that then grew past 12 GB on a CPU box, and a plan for this
// machine gives a strategy that needs a GPU only its host side (run --force puts it on the CPU).
// runs/start therefore asks the tuner again (the tuner planner's sizeHere, which the sweep calls),
// for THIS machine and the spec's own workload, micro batch and knobs, and hands that figure to the
// runner's pre-flight (spec.preflightMemory), which refuses (strict) or warns (warn) against
// MemAvailable with both numbers.
import { formatBytes, MachineSchema, type RunSpec } from '../../contract';
import type { PreflightMemory } from '../engine';
import * as tuner from '../tuner';

/**
 * This host's memory estimate for `spec`, or null where the tuner cannot size it (no machine snapshot,
 * a custom strategy it cannot model, a model it cannot read): the runner then uses the plan's figure,
 * else its own estimate. Without a GPU the runner uses DeepSpeed's CPU accelerator, where what a GPU
 * would hold lands in host memory too (one rank per "GPU").
 */
export function sizeRunHere(spec: RunSpec, machine: unknown): PreflightMemory | null {
  const parsed = MachineSchema.safeParse(machine);
  if (!parsed.success) return null;
  const strategyId = spec.userConfig ? spec.userConfig.mappedStrategy : spec.strategy;
  if (!strategyId) return null;
  try {
    const strategy = tuner.strategyById(strategyId);
    // the spec read as calibration reads a stored run: its workload (a preset by id, else the spec's own
    // architecture) and the knobs of its config; null where the tuner cannot read it (not sized)
    const ran = tuner.storedRunWorkload({ runId: spec.runId, strategy: strategyId, spec });
    if (!ran) return null;
    const { workload, knobs } = ran;
    const model = tuner.resolveModel(workload.model);
    const params = tuner.countParams(model);
    const memory = tuner.estimateMemory(strategy, model, params, workload, true, knobs);
    const onCpu = parsed.data.gpus.length === 0;
    const ranks = spec.gpus;
    const hostBytes = onCpu ? memory.hostBytes + memory.gpuBytes * ranks : memory.hostBytes;
    const what = `${strategy.label} of ${model.label || model.id} at seq ${spec.seqLen}, micro batch ${spec.microBatch}`;
    const basis = onCpu
      ? `this host's estimate for ${what}: no GPU here, so DeepSpeed's CPU accelerator keeps the ${formatBytes(memory.gpuBytes * ranks)} a GPU would hold in host memory too, beside the host side's ${formatBytes(memory.hostBytes)}`
      : `this host's estimate for ${what}: the host side of the run, per node`;
    return { hostBytes: Math.round(hostBytes), gpuBytes: onCpu ? null : Math.round(memory.gpuBytes), basis };
  } catch {
    return null;
  }
}
