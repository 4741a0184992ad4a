// A user's own ds_config.json planned on the real 1×H200 fixture host: the real-world configs of
// tests/fixtures/ds-configs mapped, their "auto" values filled as HF Trainer does, bad ones refused
// with the key named; the tuned alternative as a diff; the exports. (tests/engine/test_user_configs.py
// has DeepSpeed's own parser check the resolved configs.)
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, RunSpecSchema } from '../../../electron/contract';
import { configDiff, launchExport, planUserConfig, tunedConfig } from '../../../electron/services/tuner';
import { h200Machine, h200Measurements } from './h200-machine';

const dir = path.resolve(__dirname, '../../fixtures/ds-configs');
const fixture = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
const options = { machine: h200Machine(), machineSource: 'file' as const, measurements: h200Measurements() };
const plan = (text: string, workload: Record<string, unknown> = {}, fileName = 'ds_config.json') =>
  planUserConfig({ config: { fileName, text }, workload: { model: 'llama-3.2-3b', seqLen: 4096, gpus: 1, ...workload } }, options);
const refusal = (text: string, workload: Record<string, unknown> = {}) => {
  try {
    plan(text, workload);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a refusal');
};

describe("the SuperOffload guide's config", () => {
  const r = plan(fixture('deepspeed-guide-superoffload.json'), {}, 'deepspeed-guide-superoffload.json');
  it('is SuperOffload with cpuadam_cores_perc 0.90 and DeepSpeed defaults for what it leaves out', () => {
    expect(r.mapping.strategyId).toBe('superoffload');
    expect(r.mapping.knobs).toMatchObject({
      cpuadamCoresPerc: 0.9,
      ratio: 1,
      overlapComm: true,
      reduceBucketSize: 5e8,
      subGroupSize: 1e9,
      pinMemory: true,
    });
  });
  it('resolves train_batch_size 4 against micro × accumulation × GPUs', () => {
    expect([r.mapping.microBatch, r.mapping.gradAccum, r.mapping.worldSize]).toEqual([4, 1, 1]);
    const four = plan(fixture('deepspeed-guide-superoffload.json'), { gpus: 4, model: 'llama-3.2-3b' });
    expect([four.mapping.microBatch, four.mapping.gradAccum, four.mapping.worldSize]).toEqual([1, 1, 4]);
    const three = refusal(fixture('deepspeed-guide-superoffload.json'), { gpus: 3 });
    expect(three.field).toBe('train_batch_size');
    expect(three.message).toMatch(/4 \/ 3 GPU\(s\)/);
  });
  it('gets a verdict and a prediction, and a tuned alternative as a diff of keys with the predicted gain', () => {
    expect(r.yours?.fit?.verdict).toBe('fits');
    expect(r.yours?.predicted.stepSeconds).toBeGreaterThan(0);
    expect(r.tuned).not.toBeNull();
    expect(r.tuned!.predictedGain).toBeGreaterThan(1);
    const keys = r.tuned!.diff.map((d) => d.key);
    expect(keys).toContain('zero_optimization.stage');
    // keys the user did not write and the tuned config leaves at DeepSpeed's default are no change
    expect(keys).not.toContain('gradient_clipping');
    expect(keys).not.toContain('train_micro_batch_size_per_gpu');
  });
  it('says what it assumes: no optimizer block, clipping at its 1.0 default turning the overlap off', () => {
    expect(r.mapping.notes.find((n) => n.key === 'optimizer')?.kind).toBe('assumed');
    expect(r.mapping.notes.find((n) => n.key === 'gradient_clipping')?.message).toMatch(/overlap off/);
  });
  it('runs through a spec carrying the file byte for byte', () => {
    const spec = RunSpecSchema.parse(r.spec);
    expect(spec.userConfig?.text).toBe(fixture('deepspeed-guide-superoffload.json'));
    expect(spec.userConfig?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(spec.dsConfig).toEqual(JSON.parse(fixture('deepspeed-guide-superoffload.json')));
    expect(spec.strategy).toBe('superoffload');
    expect(spec.microBatch).toBe(4);
    expect(spec.prediction?.stepSeconds).toBeCloseTo(r.yours!.predicted.stepSeconds);
  });
});

describe('HF Trainer / accelerate configs full of "auto"', () => {
  it('fills each auto from the workload or TrainingArguments defaults, naming the source', () => {
    const r = plan(fixture('hf-trainer-zero2-auto.json'), { microBatch: 2, gradAccum: 3 });
    const got = Object.fromEntries(r.resolved.map((a) => [a.key, a.value]));
    expect(got).toMatchObject({
      train_micro_batch_size_per_gpu: 2,
      gradient_accumulation_steps: 3,
      train_batch_size: 6,
      gradient_clipping: 1,
      'bf16.enabled': true,
      'fp16.enabled': false,
      'optimizer.params.lr': 5e-5,
    });
    expect(r.resolved.find((a) => a.key === 'train_batch_size')?.from).toMatch(/micro 2 × accumulation 3 × 1 GPU/);
    expect(r.mapping.strategyId).toBe('zero2-offload');
    expect(JSON.stringify(r.resolvedConfig)).not.toContain('"auto"');
  });
  it('fills the hidden-size buckets for ZeRO-3 as HF does, whole numbers for DeepSpeed 0.19', () => {
    const r = plan(fixture('hf-zero3-auto.json'), { precision: 'fp16' });
    const zero = r.resolvedConfig.zero_optimization as Record<string, unknown>;
    expect(zero.reduce_bucket_size).toBe(3072 * 3072);
    expect(zero.stage3_prefetch_bucket_size).toBe(Math.trunc(0.9 * 3072 * 3072));
    expect(zero.stage3_param_persistence_threshold).toBe(30720);
    expect(r.mapping).toMatchObject({ strategyId: 'zero3-offload-param', precision: 'fp16' });
  });
  it('with bf16 asked and no bf16 block, the config trains in fp32: not modelled, still runnable', () => {
    const r = plan(fixture('hf-zero3-auto.json'));
    expect(r.mapping.strategyId).toBeNull();
    expect(r.mapping.unmodelled).toMatch(/fp32/);
    expect(r.yours).toBeNull();
    expect(r.spec.strategy).toBe('custom');
    expect(r.spec.prediction).toBeNull();
    expect(r.spec.precision).toBe('fp32');
  });
  it("refuses an auto only accelerate's own config can fill, and one nobody fills", () => {
    const stage = refusal(JSON.stringify({ train_batch_size: 'auto', zero_optimization: { stage: 'auto' }, bf16: { enabled: true } }));
    expect(stage.field).toBe('zero_optimization.stage');
    expect(stage.message).toMatch(/accelerate's own config file \(zero_stage\)/);
    const odd = refusal(JSON.stringify({ train_batch_size: 2, steps_per_print: 'auto', bf16: { enabled: true } }));
    expect(odd.field).toBe('steps_per_print');
  });
  it('refuses an explicit batch value that contradicts the workload, as HF Trainer does', () => {
    const e = refusal(JSON.stringify({ train_micro_batch_size_per_gpu: 4, bf16: { enabled: true } }), { microBatch: 2 });
    expect(e.field).toBe('train_micro_batch_size_per_gpu');
    expect(e.message).toMatch(/set the key to "auto"/);
  });
});

describe('DeepSpeedExamples and NVMe configs', () => {
  it('maps the SuperOffload script config with its ratio and buckets', () => {
    const r = plan(fixture('dsexamples-superoffload.json'));
    expect(r.mapping).toMatchObject({
      strategyId: 'superoffload',
      microBatch: 4,
      knobs: { ratio: 0.9, overlapComm: false, reduceBucketSize: 4e8, subGroupSize: 4e8 },
    });
  });
  it('maps ZeRO-Offload (stage 3) and ZeRO-Infinity with its NVMe path', () => {
    expect(plan(fixture('dsexamples-zero-offload.json')).mapping.strategyId).toBe('zero3-offload');
    const nvme = plan(fixture('zero-infinity-nvme.json'));
    expect(nvme.mapping.strategyId).toBe('zero-infinity-nvme');
    expect(nvme.spec.dsConfig).toEqual(JSON.parse(fixture('zero-infinity-nvme.json')));
    // the H200 fixture host has no NVMe: the verdict says so rather than predicting a speed
    expect(nvme.yours?.fits).toBe(false);
    expect(nvme.yours?.reason).toMatch(/NVMe/);
    expect(nvme.mapping.notes.some((n) => n.kind === 'not-modelled' && n.key.includes('stage3_max_live_parameters'))).toBe(false); // 1e9 is DeepSpeed's default
    expect(nvme.mapping.notes.some((n) => n.kind === 'not-modelled' && n.key.includes('stage3_prefetch_bucket_size'))).toBe(false);
  });
});

describe('bad input: refused with the key named and what to do', () => {
  it('not JSON: line and column', () => {
    const e = refusal('{\n  "train_batch_size": 4,\n  "bf16": {"enabled": true},\n}\n');
    expect(e.field).toBe('(json)');
    expect(e.message).toMatch(/line 4, column 1/);
    expect(e.message).toMatch(/trailing commas/);
  });
  it('not an object', () => expect(refusal('[1, 2]').message).toMatch(/an array/));
  it('a key DeepSpeed refuses inside zero_optimization, with the near miss', () => {
    const e = refusal(
      JSON.stringify({ train_batch_size: 2, bf16: { enabled: true }, zero_optimization: { stage: 3, stage3_prefetch_bucket_sise: 1 } }),
    );
    expect(e.field).toBe('zero_optimization.stage3_prefetch_bucket_sise');
    expect(e.message).toMatch(/did you mean "stage3_prefetch_bucket_size"/);
  });
  it('a top-level key DeepSpeed never reads is a note, not an error (it is ignored)', () => {
    const r = plan(JSON.stringify({ train_batch_size: 2, bf16: { enabled: true }, zero_optimisation: { stage: 3 } }));
    const note = r.mapping.notes.find((n) => n.key === 'zero_optimisation');
    expect(note?.kind).toBe('ignored-by-deepspeed');
    expect(note?.message).toMatch(/did you mean "zero_optimization"/);
    expect(r.mapping.unmodelled).toMatch(/stage 0/); // and so it trains without ZeRO
  });
  it('contradictory keys', () => {
    expect(refusal(JSON.stringify({ train_batch_size: 2, bf16: { enabled: true }, fp16: { enabled: true } })).field).toBe('bf16.enabled');
    expect(
      refusal(
        JSON.stringify({ train_batch_size: 2, bf16: { enabled: true }, zero_optimization: { stage: 2, offload_param: { device: 'cpu' } } }),
      ).field,
    ).toBe('zero_optimization.offload_param');
    expect(
      refusal(
        JSON.stringify({ train_batch_size: 6, train_micro_batch_size_per_gpu: 4, gradient_accumulation_steps: 1, bf16: { enabled: true } }),
      ).field,
    ).toBe('train_batch_size');
  });
  it('a config the tuner cannot model still runs, and says why there is no prediction', () => {
    const r = plan(
      JSON.stringify({ train_batch_size: 2, bf16: { enabled: true }, zero_optimization: { stage: 3, zero_hpz_partition_size: 8 } }),
    );
    expect(r.mapping.unmodelled).toMatch(/ZeRO\+\+/);
    expect(RunSpecSchema.parse(r.spec).dsConfig).toMatchObject({ zero_optimization: { zero_hpz_partition_size: 8 } });
  });
});

describe('the tuned config and its diff', () => {
  it("keeps the user's own keys and writes the batch in the user's keys where they still say it", () => {
    const yours = {
      train_batch_size: 8,
      optimizer: { type: 'AdamW', params: { lr: 1e-4 } },
      zero_optimization: { stage: 3, offload_optimizer: { device: 'cpu' } },
      bf16: { enabled: true },
    };
    const tuned = {
      train_batch_size: 8,
      train_micro_batch_size_per_gpu: 8,
      gradient_accumulation_steps: 1,
      gradient_clipping: 1,
      zero_optimization: { stage: 1 },
      bf16: { enabled: true },
    };
    const merged = tunedConfig(yours, tuned);
    expect(merged).toMatchObject({ train_batch_size: 8, optimizer: yours.optimizer, zero_optimization: { stage: 1 } });
    expect(merged.train_micro_batch_size_per_gpu).toBeUndefined(); // DeepSpeed derives micro 8 from 8 on one GPU
    const split = tunedConfig(yours, { ...tuned, train_micro_batch_size_per_gpu: 4, gradient_accumulation_steps: 2 });
    expect(split).toMatchObject({ train_batch_size: 8, train_micro_batch_size_per_gpu: 4, gradient_accumulation_steps: 2 });
    expect(configDiff(yours, merged).map((d) => d.key)).toEqual(['zero_optimization.offload_optimizer.device', 'zero_optimization.stage']);
  });
});

describe('what the training takes out: ds_config, accelerate config, launch lines', () => {
  const r = plan(fixture('deepspeed-guide-superoffload.json'));
  it('one GPU: deepspeed, torchrun and accelerate lines, argv without a shell', () => {
    const e = launchExport(r.spec);
    expect(JSON.parse(e.dsConfigJson)).toEqual(r.spec.dsConfig);
    expect(e.launch.map((l) => l.line)).toEqual([
      'deepspeed --num_gpus 1 train.py --deepspeed ds_config.json',
      'torchrun --nproc_per_node 1 train.py --deepspeed ds_config.json',
      'accelerate launch --config_file accelerate_config.yaml train.py',
    ]);
    expect(e.accelerateYaml).toMatch(/distributed_type: DEEPSPEED/);
    expect(e.accelerateYaml).toMatch(/deepspeed_config_file: ds_config.json/);
    expect(e.accelerateYaml).toMatch(/zero3_init_flag: true/);
    expect(e.accelerateYaml).toMatch(/num_processes: 1\n/);
  });
  it('several nodes: the hostfile and the rendezvous', () => {
    const e = launchExport({ ...r.spec, gpus: 8, nodes: 2 }, { script: 'my train.py' });
    expect(e.launch[0].line).toBe("deepspeed --hostfile hostfile --num_nodes 2 --num_gpus 8 'my train.py' --deepspeed ds_config.json");
    expect(e.launch[1].argv).toContain('--nnodes');
    expect(e.accelerateYaml).toMatch(/num_machines: 2\nnum_processes: 16/);
  });
});

// Issue 48: gradient_accumulation_steps 1e15 ran 60 s without a step. Out of range is refused with
// key, value and range; in range but slower than the run's time limit is said before it runs.
describe('numbers a run cannot survive', () => {
  const base = JSON.parse(fixture('dsexamples-zero-offload.json')) as Record<string, unknown>;
  const without = (extra: Record<string, unknown>) => {
    const c: Record<string, unknown> = { ...base, train_micro_batch_size_per_gpu: 1, ...extra };
    delete c.train_batch_size;
    return JSON.stringify(c);
  };
  it('gradient_accumulation_steps 1e15 is refused with key, value and range', () => {
    expect(refusal(without({ gradient_accumulation_steps: 1e15 }))).toMatchObject({
      code: 'bad_config',
      field: 'gradient_accumulation_steps',
      message: expect.stringContaining('gradient_accumulation_steps is 1000000000000000; it must be a whole number from 1 to 1,048,576'),
    });
  });
  it('a step slower than the time limit is warned about; a normal one is not', () => {
    const warned = (gas: number) =>
      plan(without({ gradient_accumulation_steps: gas })).mapping.notes.filter((n) => n.message.startsWith('warning:'));
    expect(warned(1)).toEqual([]);
    const [note] = warned(1_048_576);
    expect(note.key).toBe('gradient_accumulation_steps');
    expect(note.message).toMatch(
      /^warning: one step is predicted to take \d+h \d+m; .* more than the run's time limit of 1h 0m \(--max-seconds\): it would be stopped before its first measured step/,
    );
  });
});
