// The generator's defaults and the values the knob search tries: a leaf module (imports nothing of
// the tuner) so the mechanisms, the generator and the search read one declaration.

/** Keys of the seed scenario's generated config (DeepSpeedExamples finetune_llama-70b_4gpu.sh), shared
 *  by every DeepSpeed strategy so strategies are compared on the same bucket sizes. */
export const SEED_ZERO_KEYS = {
  overlap_comm: false,
  reduce_bucket_size: 4e8,
  sub_group_size: 4e8,
} as const;
export const SUPER_OFFLOAD_RATIO = 0.9;
export const DEFAULT_CPUADAM_CORES_PERC = 0.9;
export const DEFAULT_NVME_PATH = '/local_nvme';
/** DeepSpeed's default since v0.19.3; written explicitly so the config says what it does. */
export const DEFAULT_GRADIENT_CLIPPING = 1.0;

export const MICRO_CANDIDATES = [1, 2, 4, 8, 16, 32, 64];
export const RATIO_CANDIDATES = [1, 0.9, 0.75, 0.5, 0.25, 0.1];
export const SUB_GROUP_CANDIDATES = [1e8, 4e8, 1e9];
