// "auto" in a ds_config: Hugging Face Trainer and accelerate fill these from their own arguments before
// DeepSpeed sees the config (transformers' HfTrainerDeepSpeedConfig.trainer_config_process /
// trainer_config_finalize; accelerate's DeepSpeedPlugin). The app fills them the same way, from the
// workload where HF takes a TrainingArguments value and from TrainingArguments' defaults where the
// benchmark has nothing to say (learning rate, betas…: they change no step time or memory), and lists
// each one with its source. An "auto" only accelerate's own config file can answer (the ZeRO stage,
// offload devices) is refused with the key named: write the value into the ds_config.
import type { ResolvedAuto } from '../../../contract';
import { globalBatch } from '../../../contract';
import { isObject, type JsonObject } from './json-text';

export interface AutoContext {
  /** HF per_device_train_batch_size: the workload's micro batch, if the user gave one. */
  microBatch?: number;
  /** HF gradient_accumulation_steps: the workload's, if given. */
  gradAccum?: number;
  worldSize: number;
  precision: 'bf16' | 'fp16';
  /** The model's hidden size (the bucket sizes HF derives from it). */
  hiddenSize: number;
  /** Steps of the benchmark run (HF: num_training_steps). */
  steps: number;
}

export interface AutoResult {
  config: JsonObject;
  resolved: ResolvedAuto[];
  errors: { field: string; message: string }[];
}

// TrainingArguments' defaults (transformers): what HF Trainer writes for these when nothing is given.
const HF_DEFAULTS = { learningRate: 5e-5, betas: [0.9, 0.999], eps: 1e-8, weightDecay: 0.0, maxGradNorm: 1.0, warmupSteps: 0 };
const DEFAULT_MICRO = 1; // the Plan form's default micro batch
const DEFAULT_ACCUM = 1;

/** Keys only accelerate's own config (zero_stage, offload_*_device…) can fill. */
const ACCELERATE_ONLY: Record<string, string> = {
  'zero_optimization.stage': 'zero_stage',
  'zero_optimization.offload_optimizer.device': 'offload_optimizer_device',
  'zero_optimization.offload_param.device': 'offload_param_device',
  'zero_optimization.offload_optimizer.nvme_path': 'offload_optimizer_nvme_path',
  'zero_optimization.offload_param.nvme_path': 'offload_param_nvme_path',
};

function autoPaths(v: unknown, prefix = ''): string[] {
  if (v === 'auto') return [prefix];
  if (!isObject(v)) return [];
  return Object.entries(v).flatMap(([k, x]) => autoPaths(x, prefix ? `${prefix}.${k}` : k));
}

function setPath(o: JsonObject, path: string, value: unknown): void {
  const parts = path.split('.');
  let at: JsonObject = o;
  for (const p of parts.slice(0, -1)) at = at[p] as JsonObject;
  at[parts[parts.length - 1]] = value;
}

function getPath(o: JsonObject, path: string): unknown {
  let at: unknown = o;
  for (const p of path.split('.')) at = isObject(at) ? at[p] : undefined;
  return at;
}

/** Fills every "auto"; `errors` names each one that cannot be filled and each explicit value that contradicts the workload. */
export function resolveAutoValues(input: JsonObject, ctx: AutoContext): AutoResult {
  const config = structuredClone(input);
  const resolved: ResolvedAuto[] = [];
  const errors: AutoResult['errors'] = [];
  const fill = (key: string, value: unknown, from: string) => {
    setPath(config, key, value);
    resolved.push({ key, value, from });
  };
  const isAuto = (key: string) => getPath(config, key) === 'auto';
  const h = ctx.hiddenSize;
  const stage = Number(getPath(config, 'zero_optimization.stage') ?? 0);

  // An explicit batch value that contradicts the workload's is HF's mismatch error, named here before anything runs.
  for (const [key, want, flag] of [
    ['train_micro_batch_size_per_gpu', ctx.microBatch, 'micro batch'],
    ['gradient_accumulation_steps', ctx.gradAccum, 'gradient accumulation'],
  ] as const) {
    const have = getPath(config, key);
    if (want !== undefined && have !== undefined && have !== 'auto' && Number(have) !== want)
      errors.push({
        field: key,
        message: `is ${JSON.stringify(have)} in the config but the workload's ${flag} is ${want}: leave the ${flag} out (the config's value is used) or set the key to "auto"`,
      });
  }

  for (const key of autoPaths(config)) {
    const accelerateKey = ACCELERATE_ONLY[key];
    if (accelerateKey) {
      errors.push({
        field: key,
        message: `"auto" here is filled from accelerate's own config file (${accelerateKey}), which the app does not have: write the value into the ds_config`,
      });
      continue;
    }
    switch (key) {
      case 'train_micro_batch_size_per_gpu':
        fill(
          key,
          ctx.microBatch ?? DEFAULT_MICRO,
          `per_device_train_batch_size: the workload's micro batch${ctx.microBatch === undefined ? " (not given: the Plan form's default, 1)" : ''}`,
        );
        break;
      case 'gradient_accumulation_steps':
        fill(
          key,
          ctx.gradAccum ?? DEFAULT_ACCUM,
          `gradient_accumulation_steps: the workload's${ctx.gradAccum === undefined ? ' (not given: 1)' : ''}`,
        );
        break;
      case 'train_batch_size':
        break; // after micro and accumulation, below
      case 'gradient_clipping':
        fill(key, HF_DEFAULTS.maxGradNorm, 'max_grad_norm (TrainingArguments default 1.0)');
        break;
      case 'optimizer.params.lr':
      case 'scheduler.params.warmup_max_lr':
        fill(key, HF_DEFAULTS.learningRate, 'learning_rate (TrainingArguments default 5e-5; no effect on step time or memory)');
        break;
      case 'optimizer.params.betas':
        fill(key, HF_DEFAULTS.betas, 'adam_beta1, adam_beta2 (TrainingArguments defaults)');
        break;
      case 'optimizer.params.eps':
        fill(key, HF_DEFAULTS.eps, 'adam_epsilon (TrainingArguments default)');
        break;
      case 'optimizer.params.weight_decay':
        fill(key, HF_DEFAULTS.weightDecay, 'weight_decay (TrainingArguments default 0.0)');
        break;
      case 'scheduler.params.warmup_min_lr':
        fill(key, 0, 'HF Trainer writes 0');
        break;
      case 'scheduler.params.warmup_num_steps':
        // HF writes warmup_steps (default 0), which DeepSpeed 0.19.8's WarmupLR / WarmupDecayLR /
        // WarmupCosineLR refuse ("must be a positive integer", lr_schedules.py) once the run has
        // started: 1 is the least they take (they warm up over max(2, n) steps).
        fill(
          key,
          Math.max(1, HF_DEFAULTS.warmupSteps),
          'warmup_steps: TrainingArguments default 0, which DeepSpeed 0.19 refuses (warmup_num_steps must be a positive integer), so 1 — with HF Trainer pass --warmup_steps 1 or more',
        );
        break;
      case 'scheduler.params.total_num_steps':
        fill(key, Math.max(1, ctx.steps), "num_training_steps: the benchmark run's steps");
        break;
      case 'fp16.enabled':
        fill(key, ctx.precision === 'fp16', `fp16: the workload's precision is ${ctx.precision}`);
        break;
      case 'bf16.enabled':
        fill(key, ctx.precision === 'bf16', `bf16: the workload's precision is ${ctx.precision}`);
        break;
      case 'amp.enabled':
        fill(key, false, 'fp16_backend apex is not used (HF writes false)');
        break;
      case 'amp.opt_level':
        fill(key, 'O1', 'fp16_opt_level (TrainingArguments default O1)');
        break;
      case 'zero_optimization.reduce_bucket_size':
        fill(key, h * h, `hidden_size² (${h}²), as HF Trainer fills it`);
        break;
      case 'zero_optimization.stage3_prefetch_bucket_size':
        // HF writes 0.9·h², a float; DeepSpeed 0.19's pydantic field takes only whole numbers (15099494.4 is
        // refused), so the whole part is written.
        if (stage === 3)
          fill(key, Math.trunc(0.9 * h * h), `0.9 × hidden_size² (${h}), whole part — DeepSpeed 0.19 refuses the fraction HF writes`);
        else errors.push({ field: key, message: '"auto" is filled by HF Trainer only for ZeRO stage 3: remove the key or give a number' });
        break;
      case 'zero_optimization.stage3_param_persistence_threshold':
        if (stage === 3) fill(key, 10 * h, `10 × hidden_size (${h}), as HF Trainer fills it`);
        else errors.push({ field: key, message: '"auto" is filled by HF Trainer only for ZeRO stage 3: remove the key or give a number' });
        break;
      case 'zero_optimization.stage3_gather_16bit_weights_on_model_save':
      case 'zero_optimization.gather_16bit_weights_on_model_save':
        fill(key, false, "accelerate's zero3_save_16bit_model (default false; it only matters when saving)");
        break;
      default:
        errors.push({ field: key, message: '"auto" here is not one Hugging Face Trainer or accelerate fills: give a value' });
    }
  }
  if (isAuto('train_batch_size')) {
    const micro = Number(getPath(config, 'train_micro_batch_size_per_gpu') ?? ctx.microBatch ?? DEFAULT_MICRO);
    const accum = Number(getPath(config, 'gradient_accumulation_steps') ?? ctx.gradAccum ?? DEFAULT_ACCUM);
    if (Number.isFinite(micro) && Number.isFinite(accum))
      fill(
        'train_batch_size',
        globalBatch({ microBatch: micro, gradAccum: accum, worldSize: ctx.worldSize }),
        `micro ${micro} × accumulation ${accum} × ${ctx.worldSize} GPU(s), as HF Trainer computes it`,
      );
  }
  return { config, resolved, errors };
}
