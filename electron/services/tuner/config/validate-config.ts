// The validator for ds_config.json (generated or edited by the user): it refuses an inconsistent
// config with the field named. It checks what DeepSpeed would refuse at start-up (batch identity,
// bf16 xor fp16, offload_param outside stage 3, super_offload outside stage 3 + CPU optimizer,
// NVMe without a path) and what would silently make the run differ from the plan (the workload's
// micro batch, accumulation, precision).
import type { ConfigValidation, Workload } from '../../../contract';
import { globalBatch, worldSize } from '../../../contract';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const OFFLOAD_DEVICES = ['none', 'cpu', 'nvme'];
const OFFLOAD_OPTIMIZERS = ['adam', 'adamw', 'cpuadam', 'deepspeedcpuadam', 'fusedadam', 'onebitadam'];

function enabled(block: unknown): boolean {
  return isObj(block) && block.enabled === true;
}

function toNumber(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

export function validateDsConfig(
  config: unknown,
  workload?: Pick<Workload, 'microBatch' | 'gradAccum' | 'gpus' | 'nodes' | 'precision'>,
): ConfigValidation {
  const errors: ConfigValidation['errors'] = [];
  const warnings: ConfigValidation['warnings'] = [];
  const err = (field: string, message: string) => errors.push({ field, message });
  if (!isObj(config)) {
    err('(root)', 'the config must be a JSON object');
    return { ok: false, errors, warnings };
  }

  // ---- precision: bf16 xor fp16
  const bf16 = enabled(config.bf16);
  const fp16 = enabled(config.fp16);
  if (bf16 && fp16) err('bf16.enabled', 'bf16 and fp16 are exclusive: enable one of them');
  if (workload) {
    if (workload.precision === 'bf16' && !bf16) err('bf16.enabled', 'the workload trains in bf16 but the config does not enable bf16');
    if (workload.precision === 'fp16' && !fp16) err('fp16.enabled', 'the workload trains in fp16 but the config does not enable fp16');
  }

  // ---- batch identity: train_batch_size = micro × accumulation × data-parallel world size
  const tbs = toNumber(config.train_batch_size);
  const micro = toNumber(config.train_micro_batch_size_per_gpu);
  const ga = toNumber(config.gradient_accumulation_steps);
  for (const [field, v] of [
    ['train_batch_size', config.train_batch_size],
    ['train_micro_batch_size_per_gpu', config.train_micro_batch_size_per_gpu],
    ['gradient_accumulation_steps', config.gradient_accumulation_steps],
  ] as const)
    if (v !== undefined && (toNumber(v) === null || !Number.isInteger(toNumber(v)) || (toNumber(v) as number) <= 0))
      err(field, `must be a positive integer (got ${JSON.stringify(v)})`);
  if (tbs === null && micro === null) err('train_batch_size', 'one of train_batch_size or train_micro_batch_size_per_gpu is required');
  if (workload) {
    const world = worldSize(workload);
    if (micro !== null && micro !== workload.microBatch)
      err('train_micro_batch_size_per_gpu', `${micro} differs from the workload's micro batch ${workload.microBatch}`);
    if (ga !== null && ga !== workload.gradAccum)
      err('gradient_accumulation_steps', `${ga} differs from the workload's gradient accumulation ${workload.gradAccum}`);
    const m = micro ?? workload.microBatch;
    const g = ga ?? workload.gradAccum;
    const batch = globalBatch({ microBatch: m, gradAccum: g, worldSize: world });
    if (tbs !== null && tbs !== batch) err('train_batch_size', `${tbs} ≠ micro ${m} × accumulation ${g} × GPUs ${world} = ${batch}`);
  } else if (tbs !== null && micro !== null && ga !== null && tbs % (micro * ga) !== 0) {
    err('train_batch_size', `${tbs} is not a multiple of micro ${micro} × accumulation ${ga}`);
  }

  // ---- optimizer
  const optimizer = config.optimizer;
  if (!isObj(optimizer) || typeof optimizer.type !== 'string')
    err('optimizer.type', 'an "optimizer" block with a type (AdamW) is required');

  // ---- gradient clipping
  const clip = config.gradient_clipping;
  if (clip !== undefined && (toNumber(clip) === null || (toNumber(clip) as number) < 0))
    err('gradient_clipping', `must be a non-negative number (got ${JSON.stringify(clip)})`);

  // ---- zero_optimization
  const zero = config.zero_optimization;
  if (zero !== undefined && !isObj(zero)) err('zero_optimization', 'must be an object');
  if (isObj(zero)) {
    const stage = toNumber(zero.stage ?? 0);
    if (stage === null || ![0, 1, 2, 3].includes(stage))
      err('zero_optimization.stage', `must be 0, 1, 2 or 3 (got ${JSON.stringify(zero.stage)})`);
    const oo = zero.offload_optimizer;
    const op = zero.offload_param;
    let ooDevice = 'none';
    if (oo !== undefined && oo !== null) {
      if (!isObj(oo)) err('zero_optimization.offload_optimizer', 'must be an object');
      else {
        ooDevice = String(oo.device ?? 'none');
        if (!OFFLOAD_DEVICES.includes(ooDevice))
          err('zero_optimization.offload_optimizer.device', `must be none, cpu or nvme (got ${JSON.stringify(oo.device)})`);
        if (ooDevice !== 'none' && (stage === 0 || stage === null))
          err('zero_optimization.offload_optimizer', 'optimizer offload needs ZeRO stage 1, 2 or 3');
        if (ooDevice === 'nvme' && (typeof oo.nvme_path !== 'string' || !oo.nvme_path))
          err('zero_optimization.offload_optimizer.nvme_path', 'is required when the optimizer is offloaded to NVMe');
        if (ooDevice === 'nvme' && stage !== 3)
          err('zero_optimization.offload_optimizer.device', 'NVMe optimizer offload (ZeRO-Infinity) needs ZeRO stage 3');
        const ratio = oo.ratio;
        if (ratio !== undefined) {
          const r = toNumber(ratio);
          if (r === null || r < 0 || r > 1)
            err('zero_optimization.offload_optimizer.ratio', `must be between 0 and 1 (got ${JSON.stringify(ratio)})`);
          else if (r < 1 && stage !== 3) err('zero_optimization.offload_optimizer.ratio', 'a ratio below 1 is a ZeRO stage 3 setting');
        }
        const superOffload = oo.super_offload === true;
        if (oo.super_offload !== undefined && typeof oo.super_offload !== 'boolean')
          err('zero_optimization.offload_optimizer.super_offload', 'must be true or false');
        if (superOffload && stage !== 3) err('zero_optimization.offload_optimizer.super_offload', 'super_offload needs ZeRO stage 3');
        if (superOffload && ooDevice !== 'cpu')
          err('zero_optimization.offload_optimizer.super_offload', 'super_offload needs offload_optimizer.device "cpu"');
        if (oo.cpuadam_cores_perc !== undefined) {
          const p = toNumber(oo.cpuadam_cores_perc);
          if (p === null || p <= 0 || p > 1)
            err(
              'zero_optimization.offload_optimizer.cpuadam_cores_perc',
              `must be in (0, 1] (got ${JSON.stringify(oo.cpuadam_cores_perc)})`,
            );
          else if (!superOffload) err('zero_optimization.offload_optimizer.cpuadam_cores_perc', 'only applies with super_offload: true');
        }
        if (superOffload && toNumber(clip ?? 1.0) !== 0)
          warnings.push({
            field: 'gradient_clipping',
            message: `gradient clipping ${String(clip ?? '1.0 (DeepSpeed default since 0.19.3)')} turns SuperOffload's overlap off (the whole optimizer step runs in step()); set 0.0 to overlap`,
          });
        if (
          ooDevice !== 'none' &&
          isObj(optimizer) &&
          typeof optimizer.type === 'string' &&
          !OFFLOAD_OPTIMIZERS.includes(optimizer.type.toLowerCase())
        )
          err('optimizer.type', `'${optimizer.type}' cannot run with an offloaded optimizer (zero_force_ds_cpu_optimizer): use AdamW`);
      }
    }
    if (op !== undefined && op !== null) {
      if (!isObj(op)) err('zero_optimization.offload_param', 'must be an object');
      else {
        const opDevice = String(op.device ?? 'none');
        if (!OFFLOAD_DEVICES.includes(opDevice))
          err('zero_optimization.offload_param.device', `must be none, cpu or nvme (got ${JSON.stringify(op.device)})`);
        if (opDevice !== 'none' && stage !== 3) err('zero_optimization.offload_param', 'parameter offload needs ZeRO stage 3');
        if (opDevice === 'nvme' && (typeof op.nvme_path !== 'string' || !op.nvme_path))
          err('zero_optimization.offload_param.nvme_path', 'is required when parameters are offloaded to NVMe');
      }
    }
    for (const key of ['reduce_bucket_size', 'sub_group_size', 'allgather_bucket_size'])
      if (zero[key] !== undefined && (toNumber(zero[key]) === null || (toNumber(zero[key]) as number) <= 0))
        err(`zero_optimization.${key}`, `must be a positive number (got ${JSON.stringify(zero[key])})`);
  }
  return { ok: errors.length === 0, errors, warnings };
}

/** The runner's FSDP2 block: two booleans. */
export function validateFsdpBlock(block: unknown): ConfigValidation {
  const errors: ConfigValidation['errors'] = [];
  if (!isObj(block)) errors.push({ field: '(root)', message: 'the fsdp block must be an object' });
  else
    for (const key of ['cpuOffload', 'reshardAfterForward'])
      if (typeof block[key] !== 'boolean')
        errors.push({ field: key, message: `must be true or false (got ${JSON.stringify(block[key])})` });
  return { ok: errors.length === 0, errors, warnings: [] };
}
