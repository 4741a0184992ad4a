// A user's own ds_config.json planned on the real 1×H200 fixture host: the real-world configs of
// tests/fixtures/ds-configs mapped, their "auto" values filled as HF Trainer does, bad ones refused
// with the key named; the tuned alternative as a diff; the exports. (tests/engine/test_user_configs.py
// has DeepSpeed's own parser check the resolved configs.)
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, RunSpecSchema } from '../../../electron/contract';
import { launchExport } from '../../../electron/contract';
import { configDiff, planUserConfig, tunedConfig } from '../../../electron/services/tuner';
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
  it('not JSON: the file, line, column and what JSON expected there; the field is the file (no "(json)")', () => {
    const e = refusal('{\n  "train_batch_size": 4,\n  "bf16": {"enabled": true},\n}\n');
    expect(e.field).toBe('ds_config.json');
    expect(e.message).toMatch(
      /^ds_config\.json is not JSON: at line 4, column 1 JSON expected a property name in double quotes \(a trailing comma before \} is not allowed\)/,
    );
  });
  it.each([
    // the transformers docs' ZeRO-2 snippet as published: no comma after "contiguous_gradients": true
    [
      '{\n  "zero_optimization": {\n    "contiguous_gradients": true\n    "round_robin_gradients": true\n  }\n}',
      4,
      5,
      /',' or '\}' after the property value/,
    ],
    ['{\n  // ZeRO-2\n  "zero_optimization": {"stage": 2}\n}', 2, 3, /found a comment \(JSON has no comments\)/],
    ["{'train_batch_size': 4}", 1, 2, /single quote/],
    ['{"train_batch_size": 4', 1, 23, /the file ends/],
    ['{"a": [1, 2,]}', 1, 13, /trailing comma before \]/],
    ['{"a": 01}', 1, 7, /a number/],
    ['{"a": "x\ty"}', 1, 9, /raw control character/],
    ['{"a": 1} {"b": 2}', 1, 10, /nothing after the end/],
  ])('not JSON: %j at line %i, column %i', (text, line, column, expected) => {
    const e = refusal(text);
    expect(e.message).toContain(`at line ${line}, column ${column} JSON expected`);
    expect(e.message).toMatch(expected);
  });
  it("never quotes the file's text (a path may be a symlink to a secret)", () => {
    for (const secret of ['AWS_SECRET_ACCESS_KEY=abc123xyz\n', 'hunter2', '{"password": hunter2}', '"sk-live-123"', '424242'])
      expect(refusal(secret).message).not.toMatch(/abc123xyz|hunter2|sk-live|424242/);
  });
  it('a key given twice: DeepSpeed refuses the file, so it is refused here, with the key and where', () => {
    const e = refusal('{\n  "train_batch_size": 4,\n  "zero_optimization": {"stage": 2,\n    "stage": 3}\n}');
    expect(e.field).toBe('zero_optimization.stage');
    expect(e.message).toMatch(
      /zero_optimization\.stage is given twice \(again at line 4, column 5\); DeepSpeed refuses the file \("Duplicate keys in DeepSpeed config"\)/,
    );
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

describe('the tuned config keeps every key the tuner does not model (issue 47 item 3)', () => {
  // transformers' ZeRO-3 config with the blocks people add: checkpointing, saving, logging, profilers
  const hf = JSON.parse(fixture('hf-tests-zero3-auto.json')) as Record<string, unknown>;
  const yours = {
    ...hf,
    checkpoint: { use_node_local_storage: true },
    comms_logger: { enabled: true, verbose: false, prof_all: true, debug: false },
    flops_profiler: { enabled: true, profile_step: 1, module_depth: -1, top_modules: 1, detailed: true, output_file: null },
    tensorboard: { enabled: true, output_path: 'logs/', job_name: 'run1' },
    wall_clock_breakdown: true,
    steps_per_print: 10,
  };
  const r = plan(JSON.stringify(yours), { precision: 'fp16' });
  const merged = r.tuned!.spec.dsConfig as Record<string, Record<string, unknown>>;
  it('passes them through unchanged into the tuned ds_config', () => {
    expect(r.tuned).not.toBeNull();
    for (const key of [
      'checkpoint',
      'comms_logger',
      'flops_profiler',
      'tensorboard',
      'wall_clock_breakdown',
      'steps_per_print',
      'scheduler',
      'optimizer',
    ])
      expect(merged[key]).toEqual(r.resolvedConfig[key]);
    const zero = r.resolvedConfig.zero_optimization as Record<string, unknown>;
    for (const key of [
      'stage3_gather_16bit_weights_on_model_save',
      'stage3_max_live_parameters',
      'stage3_max_reuse_distance',
      'stage3_prefetch_bucket_size',
      'stage3_param_persistence_threshold',
      'contiguous_gradients',
    ])
      expect(merged.zero_optimization[key]).toEqual(zero[key]);
  });
  it('and never lists them as keys to change', () => {
    const tunedKeys =
      /^(zero_optimization\.(stage|overlap_comm|reduce_bucket_size|sub_group_size|offload_(optimizer|param)\.\w+)|gradient_clipping|train_batch_size|train_micro_batch_size_per_gpu|gradient_accumulation_steps)$/;
    expect(r.tuned!.diff.length).toBeGreaterThan(0);
    for (const d of r.tuned!.diff) expect(d.key).toMatch(tunedKeys);
  });
  it("keeps an offload block's own keys (nvme_path, buffer_count) where the tuned device is the same", () => {
    const user = {
      train_batch_size: 4,
      zero_optimization: { stage: 3, offload_optimizer: { device: 'cpu', buffer_count: 8, fast_init: true } },
    };
    const t = {
      train_batch_size: 4,
      train_micro_batch_size_per_gpu: 4,
      gradient_accumulation_steps: 1,
      zero_optimization: { stage: 3, offload_optimizer: { device: 'cpu', pin_memory: true, ratio: 0.5 } },
    };
    expect(tunedConfig(user, t).zero_optimization).toEqual({
      stage: 3,
      offload_optimizer: { device: 'cpu', buffer_count: 8, fast_init: true, pin_memory: true, ratio: 0.5 },
    });
    // the older cpu_offload spelling goes with the offload it said
    const old = { train_batch_size: 4, zero_optimization: { stage: 2, cpu_offload: true, allgather_bucket_size: 5e8 } };
    expect(tunedConfig(old, { ...t, zero_optimization: { stage: 1 } }).zero_optimization).toEqual({ stage: 1, allgather_bucket_size: 5e8 });
  });
});

describe('"auto" filled with what DeepSpeed 0.19.8 accepts; scheduler values it refuses, refused first (issue 47 item 1)', () => {
  it("the transformers ZeRO-3 config's WarmupLR gets a positive warmup_num_steps, and says why", () => {
    const r = plan(fixture('hf-tests-zero3-auto.json'), { precision: 'fp16' });
    const warm = r.resolved.find((a) => a.key === 'scheduler.params.warmup_num_steps');
    expect(warm?.value).toBe(1);
    expect(warm?.from).toMatch(/DeepSpeed 0\.19 refuses .*positive integer/);
    expect((r.resolvedConfig.scheduler as { params: Record<string, unknown> }).params.warmup_num_steps).toBe(1);
  });
  const base = { train_batch_size: 2, bf16: { enabled: true } };
  it.each([
    [{ type: 'WarmupLR', params: { warmup_num_steps: 0 } }, 'scheduler.params.warmup_num_steps', /positive integer, got 0/],
    [{ type: 'WarmupDecayLR', params: { warmup_num_steps: 10 } }, 'scheduler.params.total_num_steps', /requires it/],
    [
      { type: 'WarmupLR', params: { warmup_steps: 10 } },
      'scheduler.params.warmup_steps',
      /takes no argument "warmup_steps".*warmup_num_steps/,
    ],
    [{ type: 'WarmupLinearLR', params: {} }, 'scheduler.type', /does not recognize LR scheduler WarmupLinearLR/],
    [{ type: 'LRRangeTest', params: { lr_range_test_step_size: 2.5 } }, 'scheduler.params.lr_range_test_step_size', /positive integer/],
    [
      { type: 'OneCycle', params: { cycle_min_lr: 1e-4, cycle_max_lr: 1e-3, cycle_first_step_size: 0 } },
      'scheduler.params.cycle_first_step_size',
      /positive/,
    ],
  ])('%j is refused naming %s', (scheduler, field, message) => {
    const e = refusal(JSON.stringify({ ...base, scheduler }));
    expect(e.field).toBe(field);
    expect(e.message).toMatch(message);
  });
  it('a torch scheduler name passes to DeepSpeed (it falls back to torch.optim.lr_scheduler)', () => {
    expect(plan(JSON.stringify({ ...base, scheduler: { type: 'StepLR', params: { step_size: 10 } } })).mapping.strategyId).toBeNull();
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
