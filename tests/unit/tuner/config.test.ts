// ds_config generation (batch identity, per-strategy keys) and the validator's refusals, field named.
import { describe, expect, it } from 'vitest';
import { ModelArchSchema } from '../../../electron/contract';
import { buildRunSpec, catalog, generateConfig, parseWorkload, strategyById, validateDsConfig } from '../../../electron/services/tuner';

const w = parseWorkload({ model: 'llama-3.1-8b', seqLen: 2048, microBatch: 2, gradAccum: 3, gpus: 4, nodes: 2 });
const fields = (c: unknown) => validateDsConfig(c, w).errors.map((e) => e.field);
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

describe('generated configs', () => {
  it('every DeepSpeed strategy: batch identity, one precision, AdamW, valid', () => {
    for (const s of catalog().strategies.filter((x) => x.engine === 'deepspeed')) {
      const c = generateConfig(s, w) as Record<string, any>;
      expect(c.train_batch_size).toBe(2 * 3 * 4 * 2);
      expect(c.train_micro_batch_size_per_gpu).toBe(2);
      expect(c.gradient_accumulation_steps).toBe(3);
      expect(c.bf16).toEqual({ enabled: true });
      expect(c.fp16).toBeUndefined();
      expect(c.optimizer.type).toBe('AdamW');
      expect(c.zero_optimization.stage).toBe(s.stage);
      if (c.zero_optimization.offload_param) expect(c.zero_optimization.stage).toBe(3);
      expect(validateDsConfig(c, w)).toMatchObject({ ok: true, errors: [] });
    }
  });
  it("SuperOffload carries the seed scenario's keys and gradient_clipping 0.0", () => {
    const c = generateConfig(strategyById('superoffload'), w) as Record<string, any>;
    expect(c.gradient_clipping).toBe(0);
    expect(c.zero_optimization).toMatchObject({ stage: 3, overlap_comm: false, reduce_bucket_size: 4e8, sub_group_size: 4e8 });
    expect(c.zero_optimization.offload_optimizer).toEqual({
      device: 'cpu',
      pin_memory: true,
      ratio: 0.9,
      super_offload: true,
      cpuadam_cores_perc: 0.9,
    });
  });
  it('ZeRO-Infinity has nvme_path on both offloads and an aio block', () => {
    const c = generateConfig(strategyById('zero-infinity-nvme'), parseWorkload({ ...w, nvmePath: '/mnt/nvme0' })) as Record<string, any>;
    expect(c.zero_optimization.offload_optimizer).toMatchObject({ device: 'nvme', nvme_path: '/mnt/nvme0' });
    expect(c.zero_optimization.offload_param).toMatchObject({ device: 'nvme', nvme_path: '/mnt/nvme0' });
    expect(c.aio).toBeDefined();
  });
  it('fp16 workloads get fp16 and not bf16', () => {
    const c = generateConfig(strategyById('gpu-zero2'), parseWorkload({ ...w, precision: 'fp16' })) as Record<string, any>;
    expect(c.fp16.enabled).toBe(true);
    expect(c.bf16).toBeUndefined();
  });
  it('FSDP2 gets the runner fsdp block, not a ds_config', () => {
    const spec = buildRunSpec(w, 'fsdp2-cpu-offload');
    expect(spec).toMatchObject({ engine: 'fsdp2', dsConfig: null, fsdp: { cpuOffload: true, reshardAfterForward: true } });
    // The whole resolved architecture: the runner builds what the tuner counted.
    // (a preset's model: not the optional fields only an imported config.json has, hfConfig and probed)
    const presetKeys = Object.entries(ModelArchSchema.shape)
      .filter(([, v]) => !v.safeParse(undefined).success)
      .map(([k]) => k);
    expect(Object.keys(spec.model).sort()).toEqual(presetKeys.sort());
  });
});

describe('validator refusals name the field', () => {
  const base = generateConfig(strategyById('zero3-offload'), w) as Record<string, any>;
  it('batch identity', () => {
    const c = clone(base);
    c.train_batch_size = 40;
    expect(fields(c)).toContain('train_batch_size');
  });
  it('micro batch differing from the workload', () => {
    const c = clone(base);
    c.train_micro_batch_size_per_gpu = 4;
    expect(fields(c)).toContain('train_micro_batch_size_per_gpu');
  });
  it('bf16 and fp16 together', () => {
    const c = clone(base);
    c.fp16 = { enabled: true };
    expect(fields(c)).toContain('bf16.enabled');
  });
  it('offload_param below stage 3', () => {
    const c = clone(base);
    c.zero_optimization.stage = 2;
    c.zero_optimization.offload_param = { device: 'cpu' };
    expect(fields(c)).toContain('zero_optimization.offload_param');
  });
  it('super_offload without stage 3 or without CPU optimizer offload', () => {
    const c = clone(generateConfig(strategyById('superoffload'), w)) as Record<string, any>;
    c.zero_optimization.stage = 2;
    expect(fields(c)).toContain('zero_optimization.offload_optimizer.super_offload');
    const d = clone(generateConfig(strategyById('superoffload'), w)) as Record<string, any>;
    d.zero_optimization.offload_optimizer.device = 'nvme';
    d.zero_optimization.offload_optimizer.nvme_path = '/x';
    expect(fields(d)).toContain('zero_optimization.offload_optimizer.super_offload');
  });
  it('NVMe without nvme_path', () => {
    const c = clone(generateConfig(strategyById('zero-infinity-nvme'), w)) as Record<string, any>;
    delete c.zero_optimization.offload_param.nvme_path;
    expect(fields(c)).toEqual(['zero_optimization.offload_param.nvme_path']);
  });
  it('no optimizer block', () => {
    const c = clone(base);
    delete c.optimizer;
    expect(fields(c)).toContain('optimizer.type');
  });
  it('cpuadam_cores_perc without super_offload, ratio out of range', () => {
    const c = clone(base);
    c.zero_optimization.offload_optimizer.cpuadam_cores_perc = 0.5;
    c.zero_optimization.offload_optimizer.ratio = 1.5;
    expect(fields(c)).toEqual(
      expect.arrayContaining(['zero_optimization.offload_optimizer.cpuadam_cores_perc', 'zero_optimization.offload_optimizer.ratio']),
    );
  });
  it('warns (not refuses) SuperOffload with gradient clipping', () => {
    const c = clone(generateConfig(strategyById('superoffload'), w)) as Record<string, any>;
    c.gradient_clipping = 1.0;
    const v = validateDsConfig(c, w);
    expect(v.ok).toBe(true);
    expect(v.warnings.map((x) => x.field)).toEqual(['gradient_clipping']);
  });
});
