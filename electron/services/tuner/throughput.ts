// Step time and model TFLOPS of one strategy × workload on a hardware profile. Every term is a
// time per optimizer step for one GPU (all GPUs symmetric); a strategy hides part of a term
// behind compute by its overlap share. docs/tuner-model.md states the terms.
import type { HardwareProfile, ModelArch, Prediction, StrategyPreset, Workload } from '../../contract';
import { effectiveGradientClipping, SUPER_OFFLOAD_RATIO } from './ds-config';
import type { ParamCount } from './params';
import { cpuAdamRate } from './profile';

/** Efficiency factors the calibration fits (1 = the uncalibrated model). */
export interface EfficiencyFactors {
  compute: number;
  comm: number;
  transfer: number;
  cpuAdam: number;
  nvme: number;
}
export const UNIT_FACTORS: EfficiencyFactors = { compute: 1, comm: 1, transfer: 1, cpuAdam: 1, nvme: 1 };

export const THROUGHPUT_CONSTANTS = {
  /** Best share of the matmul ceiling a training step reaches (large tokens, large hidden). */
  computeEfficiency: 0.8,
  /** Tokens per micro batch at which efficiency is half its best. */
  tokensHalf: 256,
  /** Hidden size at which efficiency is half its best. */
  hiddenHalf: 512,
  /** Bus-bandwidth share of a link in ring collectives. */
  collectiveEfficiency: 0.8,
  /** Share of the host link a pinned copy stream reaches inside a step. */
  transferEfficiency: 0.9,
  /** torch AdamW on CPU (FSDP2) vs DeepSpeedCPUAdam. */
  torchCpuAdamFactor: 0.8,
  /** Cores the training process keeps per rank (kernel launches, Python) under SuperOffload. */
  minTrainingCoresPerRank: 2,
} as const;

/** ENGINE.md (finetune_zero3.py estimate_transformer_tflops): per sample, c = 4 with checkpointing else 3. */
export function flopsPerSample(p: ParamCount, m: ModelArch, seqLen: number, checkpointing: boolean): number {
  const c = checkpointing ? 4 : 3;
  return 2 * c * p.total * seqLen + 4 * c * m.numLayers * m.hiddenSize * seqLen * seqLen;
}

export const TFLOPS_FORMULA =
  'TFLOPS per GPU = micro × accumulation × (2·c·N·s + 4·c·L·h·s²) / step_seconds / 1e12, c = 4 with activation checkpointing else 3 (counts recomputation, not MFU); aggregate = per GPU × GPUs';

export interface ThroughputInputs {
  strategy: StrategyPreset;
  model: ModelArch;
  params: ParamCount;
  workload: Workload;
  profile: HardwareProfile;
  cpuadamCoresPerc: number;
}

/** Uncalibrated phase times (seconds per optimizer step, before overlap) and the exposed share of each. */
export interface PhaseTimes {
  compute: number;
  comm: number;
  transfer: number;
  cpuAdam: number;
  nvme: number;
  /** Share of each phase that is exposed (not hidden behind compute), 0..1. */
  exposed: { comm: number; transfer: number; cpuAdam: number; nvme: number };
  /** The part of the CPU step that can never hide (last sub-group), seconds. */
  cpuTail: number;
}

export function phaseTimes(x: ThroughputInputs): PhaseTimes {
  const { strategy: s, model: m, params: p, workload: w, profile: hw } = x;
  const P = p.total;
  const G = w.gpus * w.nodes;
  const C = THROUGHPUT_CONSTANTS;
  const tokensMicro = w.seqLen * w.microBatch;
  const eff = C.computeEfficiency * (tokensMicro / (tokensMicro + C.tokensHalf)) * (m.hiddenSize / (m.hiddenSize + C.hiddenHalf));
  const flops = w.microBatch * w.gradAccum * flopsPerSample(p, m, w.seqLen, w.activationCheckpointing);
  const compute = hw.matmulTflops > 0 ? flops / (hw.matmulTflops * 1e12 * eff) : Infinity;

  // GPU↔GPU collectives, bf16: ZeRO-1/2 reduce gradients every micro step and all-gather updated
  // params once per step; ZeRO-3 / FSDP2 all-gather forward and backward and reduce-scatter every micro step.
  let comm = 0;
  if (G > 1) {
    const ring = (2 * P * (G - 1)) / G;
    const bytes = s.stage === 3 ? 3 * ring * w.gradAccum : ring * (w.gradAccum + 1);
    const bw = w.nodes > 1 ? Math.min(hw.peerLinkBytesPerSecond, hw.interNodeBytesPerSecond / w.gpus) : hw.peerLinkBytesPerSecond;
    comm = bytes / (bw * C.collectiveEfficiency);
  }

  // host↔GPU: gradients down every micro step, updated params up once (optimizer offload);
  // streamed params up on forward and backward (param offload); FSDP2 moves fp32 shards.
  const ratio = s.superOffload ? SUPER_OFFLOAD_RATIO : 1;
  const elem = s.engine === 'fsdp2' ? 4 : 2;
  let hostBytes = 0;
  if (s.offloadOptimizer !== 'none') hostBytes += ratio * ((elem * P) / G) * (w.gradAccum + 1);
  if (s.offloadParam !== 'none') hostBytes += 2 * ((elem * P) / G) * w.gradAccum;
  const transfer = hostBytes / (hw.hostLinkBytesPerSecond * C.transferEfficiency);

  // CPU Adam on this node's share of the parameters, with the threads the strategy gives it
  let cpuAdam = 0;
  let cpuTail = 0;
  if (s.offloadOptimizer !== 'none') {
    const threads = s.superOffload ? Math.max(1, Math.round(hw.physicalCores * x.cpuadamCoresPerc)) : hw.physicalCores;
    const rate = cpuAdamRate(hw, threads) * (s.engine === 'fsdp2' ? C.torchCpuAdamFactor : 1);
    const nodeParams = (P / w.nodes) * ratio;
    cpuAdam = nodeParams / rate;
    // the last sub-group (sub_group_size 4e8 per rank) can only start once backward ends
    cpuTail = Math.min(cpuAdam, (cpuAdam * 4e8 * w.gpus) / nodeParams);
  }

  // NVMe (per node, one drive): optimizer states read and written once per step; params read per pass
  let nvme = 0;
  if (s.offloadOptimizer === 'nvme') nvme += (24 * P) / w.nodes / hw.diskBytesPerSecond;
  if (s.offloadParam === 'nvme') nvme += (2 * 2 * P * w.gradAccum) / w.nodes / hw.diskBytesPerSecond;

  // overlap: SuperOffload's CPU step hides behind the last micro step's backward, unless clipping is on
  const clipping = effectiveGradientClipping(s, w) !== 0;
  const cpuOverlap = s.superOffload && clipping ? 0 : s.cpuStepOverlap;
  const backwardShare = w.activationCheckpointing ? 3 / 4 : 2 / 3;
  const backwardLast = (compute / w.gradAccum) * backwardShare;
  const hideable = Math.min(cpuAdam - cpuTail, backwardLast * cpuOverlap);
  const cpuExposed = cpuAdam > 0 ? (cpuAdam - Math.max(0, hideable)) / cpuAdam : 0;

  return {
    compute,
    comm,
    transfer,
    cpuAdam,
    nvme,
    exposed: { comm: 1 - s.commOverlap, transfer: 1 - s.transferOverlap, cpuAdam: cpuExposed, nvme: 1 - s.transferOverlap * 0.5 },
    cpuTail,
  };
}

/** Step seconds from phase times and (calibrated) efficiency factors: each factor scales its phase's time. */
export function stepSecondsFrom(t: PhaseTimes, f: EfficiencyFactors = UNIT_FACTORS): { seconds: number; terms: Record<string, number> } {
  const terms = {
    compute: t.compute * f.compute,
    commExposed: t.comm * t.exposed.comm * f.comm,
    transferExposed: t.transfer * t.exposed.transfer * f.transfer,
    cpuAdamExposed: t.cpuAdam * t.exposed.cpuAdam * f.cpuAdam,
    nvmeExposed: t.nvme * t.exposed.nvme * f.nvme,
  };
  return { seconds: Object.values(terms).reduce((a, b) => a + b, 0), terms };
}

export function predictFrom(x: ThroughputInputs, factors?: EfficiencyFactors): Prediction {
  const t = phaseTimes(x);
  const { seconds, terms } = stepSecondsFrom(t, factors);
  const w = x.workload;
  const G = w.gpus * w.nodes;
  const flops = w.microBatch * w.gradAccum * flopsPerSample(x.params, x.model, w.seqLen, w.activationCheckpointing);
  // no GPU (matmul rate 0): no prediction — every figure 0 rather than Infinity, which JSON cannot carry
  const finite = Number.isFinite(seconds) && seconds > 0;
  const clean = (v: number) => (finite && Number.isFinite(v) ? v : 0);
  const tflopsPerGpu = finite ? flops / seconds / 1e12 : 0;
  return {
    stepSeconds: finite ? seconds : 0,
    tflopsPerGpu,
    tflopsAggregate: tflopsPerGpu * G,
    tokensPerSecond: finite ? (w.seqLen * w.microBatch * w.gradAccum * G) / seconds : 0,
    terms: Object.fromEntries(
      Object.entries({ ...terms, computeRaw: t.compute, commRaw: t.comm, transferRaw: t.transfer, cpuAdamRaw: t.cpuAdam, nvmeRaw: t.nvme }).map(([k, v]) => [k, clean(v)]),
    ),
    formula: TFLOPS_FORMULA,
    calibrated: !!factors && factors !== UNIT_FACTORS,
  };
}
