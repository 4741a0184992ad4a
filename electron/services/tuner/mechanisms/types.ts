// What one offload mechanism knows, in one place: the config it emits, the knobs it has (their
// defaults, the values the search tries, how a ds_config is read back into them), the memory it holds
// (GPU, host, NVMe) and the step-time terms it adds. The generic parts of the tuner (ds-config.ts,
// search.ts, memory.ts, throughput.ts, calibrate.ts, user-config/map-config.ts) ask the strategy's
// mechanism (registry.ts) instead of branching on its fields: adding a mechanism is one module here.
import type { ConfigValidation, HardwareProfile, Knobs, Machine, ModelArch, StrategyPreset, Workload } from '../../../contract';
import type { ParamCount } from '../model/params';
import type { ThroughputKnobs } from '../model/throughput-constants';

export type MechanismId = 'no-offload' | 'optimizer-offload' | 'param-offload' | 'superoffload' | 'nvme' | 'fsdp2';

export type JsonObject = Record<string, unknown>;

/** The parts of a config a mechanism reads its knobs from (each null when absent). */
export interface ConfigParts {
  config: JsonObject;
  zero: JsonObject | null;
  offloadOptimizer: JsonObject | null;
  offloadParam: JsonObject | null;
  fsdp: JsonObject | null;
}

/** One knob the search varies, with the values it tries (the default first). */
export type KnobAxis = [keyof ThroughputKnobs, unknown[]];

export interface KnobSearchSpace {
  base: ThroughputKnobs;
  axes: KnobAxis[];
}

export interface SearchContext {
  s: StrategyPreset;
  w: Workload;
  hw: HardwareProfile;
  machine: Machine;
  /** The user's cpuadam_cores_perc, kept as given (SuperOffload). */
  fixedPerc: number | undefined;
}

export interface MemoryContext {
  s: StrategyPreset;
  m: ModelArch;
  p: ParamCount;
  w: Workload;
  knobs: ThroughputKnobs;
  /** The share of the optimizer stepped on the CPU (cpuShare). */
  r: number;
  /** Data-parallel world size. */
  G: number;
  perNodeParams: number;
  /** DeepSpeed's estimator figure for the strategy (memory.modelStatesFor). */
  estimator: { gpuBytes: number; hostBytes: number };
  /** The reduce bucket (knob, else the seed keys'). */
  bucket: number;
}

export interface EstimatorCall {
  estimator: 'zero2' | 'zero3';
  cpuOffload: boolean;
  cpuOffloadParams: boolean;
}

/** GPU model states, by what the engine allocates; the gradients that join the backward and step phases. */
export interface GpuStates {
  terms: Record<string, number>;
  backwardGradients: number;
  stepGradients: number;
}

export interface MemoryTerms {
  gpu: GpuStates;
  /** Communication buffers alive in backward. */
  commBytes: number;
  host: Record<string, number>;
  nvme: Record<string, number>;
}

export interface TimeContext {
  s: StrategyPreset;
  p: ParamCount;
  w: Workload;
  hw: HardwareProfile;
  knobs: ThroughputKnobs;
  r: number;
  G: number;
  /** Forward, recompute (with checkpointing) and backward. */
  passes: number;
  /** cpuadam_cores_perc in effect (knob, else the plan's). */
  perc: number;
}

/** What a mechanism adds to a step, before the shared skeleton turns bytes into seconds and overlaps. */
export interface TimeTerms {
  /** GPU optimizer step and gradient copies, bytes of GPU memory traffic. */
  gpuStepBytes: number;
  /** Parameter gather/release hooks and per-sub-group costs, seconds. */
  fetchSeconds: number;
  pinnedBytes: number;
  pageableBytes: number;
  /** Host copies and casts by the training process / by SuperOffload's worker, bytes. */
  trainerCopyBytes: number;
  workerCopyBytes: number;
  /** CPU optimizer: whether there is one, its threads and its rate relative to DeepSpeedCPUAdam. */
  cpuAdam: { threads: number; rateFactor: number } | null;
  nvmeBytes: number;
  /** Shares hidden behind compute (the CPU step before the memory-bus correction). */
  cpuStepOverlap: number;
  streamOverlap: number;
  commOverlap: number;
  /**
   * How the engine moves parameters and gradients between GPUs: 'sharded' (ZeRO-3, FSDP2) all-gathers
   * in forward and backward and reduce-scatters every micro step; 'replicated' (ZeRO-1/2) reduces every
   * micro step and all-gathers the updated parameters once per step.
   */
  collectives: 'sharded' | 'replicated';
}

export interface Mechanism {
  id: MechanismId;
  /** Words for the docs and errors. */
  title: string;
  /** Whether a catalogue strategy runs through this mechanism. */
  covers(s: StrategyPreset): boolean;
  /**
   * On a machine without a GPU (DeepSpeed's CPU accelerator, gloo): 'smoke' runs by default as a CPU
   * smoke run, 'forced' runs only when asked (run --force), 'never' cannot run (it asserts CUDA, needs
   * a drive, or is a GPU-state policy). docs/engine-facts.md says what runs there.
   */
  withoutGpu: 'smoke' | 'forced' | 'never';
  /** Whether the mechanism has a CPU Adam worker whose share of the cores (cpuadam_cores_perc) is a knob. */
  hasCoresKnob: boolean;
  /** The strategy a plan without a GPU picks first among those that fit: the one the engine's own CPU CI path exercises. */
  cpuSmokeFirst?(s: StrategyPreset): boolean;
  /** What the plan says about this mechanism on this workload and GPU beyond fit and speed (none by default). */
  planWarnings?(s: StrategyPreset, w: Workload, hw: HardwareProfile): string[];
  // ---- config
  /** The knobs a config is generated from, with the generator's defaults for this mechanism. */
  resolveKnobs(s: StrategyPreset, w: Workload, k: Knobs): Knobs;
  /** The config the engine takes (ds_config, or the runner's FSDP2 block). */
  emitConfig(s: StrategyPreset, w: Workload, k: Knobs): JsonObject;
  /** That config checked as its engine would check it. */
  validateConfig(config: JsonObject, w: Workload): ConfigValidation;
  /** A config read back into the knobs this mechanism has. */
  readKnobs(parts: ConfigParts): ThroughputKnobs;
  // ---- search
  knobSpace(ctx: SearchContext): KnobSearchSpace;
  // ---- memory and time
  /** Share of the optimizer stepped on the CPU (0 none, 1 all). */
  cpuShare(s: StrategyPreset, knobs: ThroughputKnobs | undefined, paramsPerRank: number | undefined): number;
  /**
   * Which of DeepSpeed's model-state estimators reports this strategy, with its offload flags
   * (memory.modelStatesFor): the figure shown as DeepSpeed's own, beside the model's.
   */
  estimatorCall(s: StrategyPreset): EstimatorCall;
  memory(ctx: MemoryContext): MemoryTerms;
  /** Which of its host terms (MemoryTerms.host) live in pinned memory: the locked-memory limit applies to them. */
  pinnedHostTerms: readonly string[];
  time(ctx: TimeContext): TimeTerms;
}
