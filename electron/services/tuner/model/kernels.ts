// The workload's own kernels, measured on the user's GPU (resources/engine/kernel_probe.py; spawned and
// cached by services/environment/kernel-probe.ts, handed to the plan as PlanOptions.kernels), as the
// step-time and memory models read them. Where a plan has them, one micro batch's GPU work is
//   layers × (one decoder layer's forward + backward, with checkpointing's recompute) + the head
//   (embedding, final norm, LM head, fp32 loss),
// as timed at the probed micro batches (linear between them, per sample beyond the largest) — in place
// of the catalogue's matmul and attention efficiencies, the element-wise traffic and the loss bytes,
// which were read off Llama-shaped workloads (throughput-constants.ts). The activations and logits come
// from the same probe's allocated bytes instead of memory.ts's per-token formula. The mechanism terms
// (fetch, transfers, CPU Adam, hooks, the optimizer step on the GPU) are modelled as before. Without the
// probe's figures — no GPU, a machine file, a probe that failed or timed out — the plan rests on the
// catalogue's constants and its notes say so and why. Pure.
import type { HardwareProfile, KernelMicro, KernelProbe, KernelsInput, ModelArch, PlanKernels, Workload } from '../../../contract';
import { MICRO_CANDIDATES } from '../config/config-defaults';
import { MEMORY_CONSTANTS } from './memory-constants';
import type { ParamCount } from './params';

/** The probe's figures as the throughput and memory models read them (ParamCount.kernels). */
export interface WorkloadKernels {
  probe: KernelProbe;
  /** The model's decoder layers (a layer's figures × this = all of them). */
  layers: number;
}

const norm = (s: string | null | undefined) => (s ?? '').trim().toLowerCase();

/** Why the probe's figures do not describe this workload on this machine, or null where they do. */
export function kernelsMismatch(probe: KernelProbe, model: ModelArch, w: Workload, hw: HardwareProfile): string | null {
  if (hw.gpuCount === 0) return 'no GPU: a CPU run is a smoke test, nothing is predicted';
  if (probe.device !== 'cuda') return `the probe ran on the ${probe.device} (the tests' switch), not on a GPU`;
  if (hw.gpuName && probe.gpuName && norm(hw.gpuName) !== norm(probe.gpuName))
    return `the probe timed ${probe.gpuName}, the plan is for ${hw.gpuName}`;
  if (probe.seqLen !== w.seqLen) return `the probe timed sequence length ${probe.seqLen}, the plan is for ${w.seqLen}`;
  if (probe.dtype !== w.precision) return `the probe timed ${probe.dtype}, the plan is for ${w.precision}`;
  if (probe.checkpointing !== w.activationCheckpointing)
    return `the probe timed ${probe.checkpointing ? 'with' : 'without'} activation checkpointing, the plan is ${w.activationCheckpointing ? 'with' : 'without'} it`;
  const a = probe.arch;
  if (a.layers !== model.numLayers || a.hiddenSize !== model.hiddenSize || a.vocabSize !== model.vocabSize)
    return `the probe built ${a.architecture} (${a.layers} layers, hidden ${a.hiddenSize}, vocabulary ${a.vocabSize}), not the planned model (${model.numLayers}, ${model.hiddenSize}, ${model.vocabSize})`;
  return null;
}

/** A figure at `micro`: the probed value where probed, linear between two probed micro batches, per
 *  sample (× micro / largest) beyond the largest and below the smallest. */
export function atMicro(points: readonly KernelMicro[], micro: number, value: (p: KernelMicro) => number): number {
  const sorted = [...points].sort((a, b) => a.microBatch - b.microBatch);
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  if (micro <= first.microBatch) return (value(first) * micro) / first.microBatch;
  if (micro >= last.microBatch) return (value(last) * micro) / last.microBatch;
  for (let i = 1; i < sorted.length; i++) {
    const hi = sorted[i];
    if (micro > hi.microBatch) continue;
    const lo = sorted[i - 1];
    const f = (micro - lo.microBatch) / (hi.microBatch - lo.microBatch);
    return value(lo) + f * (value(hi) - value(lo));
  }
  return (value(last) * micro) / last.microBatch;
}

/** Seconds of GPU work of one micro batch from the probe: layers × a layer + the head. */
export function probedMicroSeconds(k: WorkloadKernels, micro: number): number {
  return atMicro(k.probe.micros, micro, (p) => k.layers * p.layerSeconds + p.headSeconds);
}

/** Activation bytes of one micro batch from the probe (memory.ts's ActivationBytes without the embeddings):
 *  what every layer keeps for backward, the one layer's backward peak above that, and the head's peak. */
export function probedActivations(k: WorkloadKernels, micro: number): { kept: number; recompute: number; logits: number } {
  const ps = k.probe.micros;
  const kept = atMicro(ps, micro, (p) => p.layerKeptBytes);
  const peak = atMicro(ps, micro, (p) => p.layerPeakBytes);
  return { kept: k.layers * kept, recompute: Math.max(0, peak - kept), logits: atMicro(ps, micro, (p) => p.headPeakBytes) };
}

/** The ParamCount with the probe's figures attached (the search and every row read them from there). */
export function withKernels(p: ParamCount, k: WorkloadKernels | null | undefined): ParamCount {
  return k ? { ...p, kernels: k } : p;
}

/**
 * The micro batches worth probing for a workload: the search's ladder and the form's micro batch, up
 * to where the fp32 logits alone (MEMORY_CONSTANTS.logitBytes per element) would fill the GPU — the
 * probe would run out of memory there, and so would the model.
 */
export function kernelProbeMicros(model: ModelArch, w: Pick<Workload, 'seqLen' | 'microBatch'>, gpuMemoryBytes: number): number[] {
  const ladder = [...new Set([...MICRO_CANDIDATES, w.microBatch])].sort((a, b) => a - b);
  const logits = (m: number) => MEMORY_CONSTANTS.logitBytes * model.vocabSize * w.seqLen * m;
  const fit = ladder.filter((m) => !(gpuMemoryBytes > 0) || logits(m) <= gpuMemoryBytes);
  return fit.length ? fit : [1];
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** The architecture as the probe's model has it, in words. */
function archWords(probe: KernelProbe): string {
  const a = probe.arch;
  const fused = [a.fusedQkv ? 'q/k/v' : null, a.fusedGateUp ? 'gate/up' : null].filter(Boolean);
  const kinds = a.layerKinds.length > 1 ? `; layers ${a.layerKinds.map((k) => `${k.layers} ${k.kind}`).join(', ')}` : '';
  return (
    `${a.architecture}: head_dim ${a.headDim}, ${a.numHeads} heads / ${a.numKvHeads} KV heads, ` +
    `${fused.length ? `fused ${fused.join(' and ')} projections` : 'separate projections'}, vocabulary ${fmt(a.vocabSize)}${a.tieEmbeddings ? ' (tied)' : ''}` +
    `${a.slidingWindow ? `, sliding window ${fmt(a.slidingWindow)}` : ''}${kinds}; attention mask: ${a.attentionMask ?? 'not seen'}`
  );
}

/** The plan's note on what its step times and activation memory rest on. */
export function kernelsNote(plan: PlanKernels): string {
  if (plan.source === 'catalogue')
    return `Step compute and activation memory: the catalogue's constants (matmul and attention efficiencies read off Llama-shaped workloads, the per-token activation formula), not this workload's own kernels — ${plan.reason}. Its step times are uncalibrated for this architecture.`;
  const p = plan.probe;
  const micros = p.micros.map((m) => m.microBatch);
  const oom = p.oom ? ` Micro ${p.oom.microBatch} ran out of GPU memory in the probe (${p.oom.part}).` : '';
  const stopped = p.stopped ? ` The probe stopped early (${p.stopped}).` : '';
  return (
    `Step compute and activation memory: this workload's own kernels, measured on this GPU (${p.gpuName ?? p.device}) by the kernel probe — ` +
    `one decoder layer's forward + backward${p.checkpointing ? ' with its recompute' : ''} and the embedding, LM head and fp32 loss, ` +
    `seq ${fmt(p.seqLen)}, ${p.dtype}, at micro ${micros.join(', ')} (between: interpolated; past ${micros[micros.length - 1]}: per sample) — ` +
    `instead of the catalogue's efficiencies; fetch, transfers, CPU Adam and hooks as modelled, no calibrated compute factor on the measured compute. ` +
    `Architecture as built: ${archWords(p)}.${oom}${stopped}`
  );
}

/** What the plan uses: the probe's figures where they describe this workload here, else the catalogue and why. */
export function kernelsForPlan(
  input: KernelsInput | undefined,
  model: ModelArch,
  w: Workload,
  hw: HardwareProfile,
): { use: WorkloadKernels | null; plan: PlanKernels } {
  const catalogue = (reason: string) => ({ use: null, plan: { source: 'catalogue' as const, reason } });
  if (hw.gpuCount === 0) return catalogue('no GPU on this machine');
  if (!input) return catalogue('no kernel probe was run for this plan');
  if ('reason' in input) return catalogue(input.reason);
  const why = kernelsMismatch(input.probe, model, w, hw);
  if (why) return catalogue(why);
  return { use: { probe: input.probe, layers: model.numLayers }, plan: { source: 'probe', probe: input.probe } };
}
