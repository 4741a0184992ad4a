// A user's own ds_config.json through the plan: read it (line and column where it is not JSON), fill its
// "auto" values as HF Trainer / accelerate would, check its keys as DeepSpeed 0.19 does, derive the batch
// as DeepSpeed does, map it onto a strategy and knobs, and plan it on the machine — its verdict and
// prediction beside the whole plan of the same workload, whose pick comes back as the user's config with
// the tuned keys changed (a diff) and the predicted gain. The spec that runs it carries the text byte for byte.
import { createHash } from 'node:crypto';
import {
  ApiError,
  type ConfigKeyNote,
  type RunSpec,
  type StrategyPlan,
  type UserConfigPlan,
  type UserConfigSource,
  type WorkloadOverrides,
} from '../../../contract';
import { formatDuration, hasPrediction } from '../../../contract/format';
import { planConfiguration, planWorkload, type PlanOptions } from '../plan/plan';
import { resolveModel } from '../catalogue/models';
import { buildRunSpec, configHash } from '../config/run-spec';
import { numericValue, SPEC_EXECUTION_DEFAULTS } from '../../../contract';
import { worldSize as worldSizeOf } from '../../../contract';
import { validateDsConfig } from '../config/validate-config';
import { resolveAutoValues } from './auto-values';
import { deriveBatch } from './batch';
import { checkKeys } from './check-keys';
import { checkScheduler } from './scheduler-values';
import { configDiff, tunedConfig } from './config-diff';
import { isObject, parseConfigText, type JsonObject } from './json-text';
import { checkValueRanges } from './value-ranges';
import { mapConfig } from './map-config';

export interface UserConfigInput {
  config: UserConfigSource;
  workload: WorkloadOverrides;
}

type Err = { field: string; message: string };

function refuse(fileName: string, errors: Err[]): never {
  const lines = errors.map((e) => `${e.field}: ${e.message}`);
  throw new ApiError('bad_config', `${fileName} cannot be run as it is — ${lines.join('; ')}`, errors[0].field);
}

/** A spec's config swapped for `dsConfig`, its hash recomputed (the hash is of what runs). */
function withConfig(spec: RunSpec, dsConfig: JsonObject, extra: Partial<RunSpec> = {}): RunSpec {
  const next = { ...spec, ...extra, dsConfig };
  return { ...next, configHash: configHash(next) };
}

export function planUserConfig(input: UserConfigInput, options: PlanOptions & { steps?: number }): UserConfigPlan {
  const { fileName, text } = input.config;
  const w = input.workload;
  for (const [key, flag] of [
    ['model', 'model'],
    ['seqLen', 'seq'],
  ] as const)
    if (w[key] === undefined)
      throw new ApiError(
        'bad_request',
        `a ds_config says how to train, not what: give the model and the sequence length too (--${flag})`,
        key,
      );
  const raw = parseConfigText(text, fileName);
  checkValueRanges(raw, fileName);
  const model = resolveModel(w.model!);
  const worldSize = worldSizeOf({ gpus: w.gpus ?? 1, nodes: w.nodes ?? 1 });
  const errors: Err[] = [];
  const notes: ConfigKeyNote[] = [];

  const auto = resolveAutoValues(raw, {
    microBatch: w.microBatch,
    gradAccum: w.gradAccum,
    worldSize,
    precision: w.precision ?? 'bf16',
    hiddenSize: model.hiddenSize,
    steps: options.steps ?? SPEC_EXECUTION_DEFAULTS.steps,
  });
  errors.push(...auto.errors);
  const config = auto.config;
  checkKeys(config, errors, notes);
  checkScheduler(config, errors);
  const batch = deriveBatch(config, worldSize, errors);
  // DeepSpeed's semantics of the values (bf16 xor fp16, offload only where the stage allows…); the
  // batch is checked above, and an absent optimizer block is the training script's to supply.
  const semantic = validateDsConfig(config);
  errors.push(
    ...semantic.errors
      .filter((e) => e.field !== 'optimizer.type' || isObject(config.optimizer))
      .filter((e) => !e.field.startsWith('train_')),
  );
  if (errors.length || !batch)
    refuse(fileName, errors.length ? errors : [{ field: 'train_batch_size', message: 'the batch could not be derived' }]);
  for (const wng of semantic.warnings) notes.push({ key: wng.field, kind: 'assumed', message: wng.message });

  const mapping = mapConfig(config, batch, worldSize, notes);
  const zero = isObject(config.zero_optimization) ? config.zero_optimization : {};
  const nvmePath = [zero.offload_optimizer, zero.offload_param]
    .map((b) => (isObject(b) && typeof b.nvme_path === 'string' ? b.nvme_path : undefined))
    .find(Boolean);
  const workload = {
    ...w,
    model: w.model!,
    seqLen: w.seqLen!,
    gpus: w.gpus ?? 1,
    nodes: w.nodes ?? 1,
    microBatch: batch.microBatch,
    gradAccum: batch.gradAccum,
    precision: mapping.precision === 'fp32' ? (w.precision ?? 'bf16') : mapping.precision,
    gradientClipping: numericValue(config.gradient_clipping) ?? 1.0, // DeepSpeed's default since 0.19.3
    ...(mapping.knobs.cpuadamCoresPerc !== undefined ? { cpuadamCoresPerc: mapping.knobs.cpuadamCoresPerc } : {}),
    ...(nvmePath ? { nvmePath } : {}),
  };
  const sha256 = createHash('sha256').update(text, 'utf8').digest('hex');
  const userConfig = { fileName, text, sha256, mappedStrategy: mapping.strategyId, resolved: auto.resolved };

  let yours: StrategyPlan | null = null;
  let spec: RunSpec;
  if (mapping.strategyId) {
    yours = planConfiguration({ ...workload, searchMicroBatch: false }, options, mapping.strategyId, mapping.knobs);
    yours.config = config;
    yours.validation = { ok: true, errors: [], warnings: semantic.warnings };
    spec = withConfig(yours.spec, config, { userConfig, runId: 'user-config' });
    const late = stepsPastTimeLimit(spec);
    if (late) notes.push({ key: 'gradient_accumulation_steps', kind: 'assumed', message: late });
  } else {
    // No strategy of the catalogue: the spec of the nearest engine, with the user's config and no prediction.
    const base = buildRunSpec({ ...workload, searchMicroBatch: false }, 'gpu-zero1');
    spec = withConfig(base, config, {
      strategy: 'custom',
      knobs: {},
      prediction: null,
      precision: mapping.precision,
      userConfig,
      runId: 'user-config',
    });
  }

  // The whole plan, keeping the user's global batch (what their training converges with).
  const plan = planWorkload({ ...workload, globalBatch: batch.trainBatch, searchMicroBatch: true }, options);
  // The plan's pick where it is a DeepSpeed config; else the fastest DeepSpeed spec its search found
  // fitting (a row's `fits` is for the form's micro batch; the search's spec may use another).
  const rec = plan.recommended ? plan.strategies.find((s) => s.id === plan.recommended!.strategyId) : undefined;
  const searched = plan.strategies
    .filter((s) => s.engine === 'deepspeed' && s.spec.dsConfig && hasPrediction(s.spec.prediction) && (s.fits || s.knobReasons.length > 0))
    .sort((a, b) => (b.spec.prediction?.tokensPerSecond ?? 0) - (a.spec.prediction?.tokensPerSecond ?? 0));
  const best = rec?.engine === 'deepspeed' && hasPrediction(rec.spec.prediction) ? rec : searched[0];
  let tuned: UserConfigPlan['tuned'] = null;
  if (best) {
    const merged = tunedConfig(config, best.spec.dsConfig as JsonObject, worldSize);
    const mine = yours && yours.fits && hasPrediction(yours.predicted) ? yours.predicted.tokensPerSecond : null;
    const theirs = best.spec.prediction!.tokensPerSecond;
    tuned = {
      strategyId: best.id,
      microBatch: best.spec.microBatch,
      gradAccum: best.spec.gradAccum,
      diff: configDiff(config, merged),
      predictedGain: mine ? theirs / mine : null,
      predicted: {
        ...best.predicted,
        tokensPerSecond: theirs,
        stepSeconds: best.spec.prediction!.stepSeconds,
        tflopsPerGpu: best.spec.prediction!.tflopsPerGpu,
        tflopsAggregate: best.spec.prediction!.tflopsAggregate,
      },
      spec: withConfig(best.spec, merged, { runId: `tuned-${best.id}` }),
    };
  }
  return {
    fileName,
    sha256,
    resolvedConfig: config,
    resolved: auto.resolved,
    validation: { ok: true, errors: [], warnings: semantic.warnings },
    mapping,
    yours,
    spec,
    plan,
    tuned,
    measured: null,
  };
}

/**
 * A run whose predicted steps (warm-up included) take longer than its time limit is stopped before
 * it measures anything (gradient_accumulation_steps 1e15 once ran 60 s without a step): said before.
 */
function stepsPastTimeLimit(spec: RunSpec): string | null {
  const step = spec.prediction?.stepSeconds;
  if (!step || !Number.isFinite(step)) return null;
  const first = step * (spec.warmup + 1);
  if (first <= spec.maxSeconds && step * (spec.warmup + spec.steps) <= spec.maxSeconds) return null;
  const s = (x: number) => (x < 60 ? `${x.toPrecision(3)} s` : formatDuration(x));
  return `warning: one step is predicted to take ${s(step)}; ${spec.warmup} warm-up and ${spec.steps} measured steps need about ${s(step * (spec.warmup + spec.steps))}, more than the run's time limit of ${s(spec.maxSeconds)} (--max-seconds): it would be stopped ${first > spec.maxSeconds ? 'before its first measured step' : 'before it finishes'}. Lower gradient_accumulation_steps or the micro batch, or raise --max-seconds.`;
}
