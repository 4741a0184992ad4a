// A user's config.json is planned with the count of the model itself. plan/import-hf-config
// probes it with transformers in the engine environment (any decoder architecture transformers knows,
// not only the formula's four families), the arch carries the probe's table and the config, and the
// plan's specs carry the config so the runner builds exactly that model. Without the engine
// environment the import says the count is unavailable; an unknown architecture, remote code or a
// Mixture-of-Experts config routing to more experts than it has is refused by name with what to do;
// a real Mixtral config.json is planned with its total and active counts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelArch, PlanResult, RunSpec } from '../../../electron/contract';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { importProbedConfig } from '../../../electron/services/environment';
import { refusalOf } from '../../../electron/services/engine/families';
import { countParams } from '../../../electron/services/tuner/model/params';
import { haveEngine, refusal, scratchDir, TINY_GEMMA } from '../../helpers/model-probe';

const tmp = () => scratchDir('os-model-import-');
const gemma = TINY_GEMMA;
const llamaBias = {
  model_type: 'llama',
  hidden_size: 64,
  intermediate_size: 128,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: 256,
  attention_bias: true,
  tie_word_embeddings: false,
};

let backend: Backend;
beforeAll(() => {
  backend = createBackend({ dataDir: tmp(), transport: 'server' });
});
afterAll(async () => backend?.close());

describe('plan/import-hf-config counts with the model itself', () => {
  it('without the engine environment the count is unavailable, not guessed', async () => {
    const e = await refusal(importProbedConfig(gemma, JSON.stringify(gemma), 'g', { python: '/nonexistent/python3', dataDir: tmp() }));
    expect(e?.code).toBe('params_unavailable');
    expect(e?.message).toMatch(
      /^Parameter count unavailable — create the engine environment \(the app’s Setup, or: bash scripts\/setup-engine-venv\.sh\)/,
    );
  });

  it.skipIf(!haveEngine)(
    "a Gemma config.json (no formula for it) is planned with transformers' count, and its specs carry the config",
    { timeout: 240_000 },
    async () => {
      const arch = (await backend.invoke('plan/import-hf-config', { text: JSON.stringify(gemma), id: 'tiny-gemma' })) as ModelArch;
      expect(arch.family).toBe('gemma');
      expect(arch.probed?.total).toBe(86_336); // GemmaForCausalLM.num_parameters() (model-probe.test.ts)
      expect(countParams(arch).total).toBe(86_336);
      expect([arch.numLayers, arch.numKvHeads, arch.headDim, arch.tieEmbeddings]).toEqual([2, 1, 16, true]);
      expect(arch.hfConfig).toEqual(gemma);
      const plan = (await backend.invoke('plan/compute', { workload: { model: arch, seqLen: 32, microBatch: 1, gpus: 1 } })) as PlanResult;
      const spec = plan.strategies[0].spec;
      expect(spec.model.hfConfig).toEqual(gemma);
      // …and its probe table, so whatever sizes the spec later (runs/start's pre-flight) counts as the plan did.
      expect(spec.model.probed?.total).toBe(86_336);
      expect(countParams(spec.model as ModelArch).total).toBe(86_336);
      expect(spec.model.family).toBe('gemma');
      // runs/start lets it through: transformers builds it from the config, not a runner family.
      expect(refusalOf(spec)).toBeNull();
      expect(refusalOf({ ...spec, model: { ...spec.model, hfConfig: null } })?.field).toBe('model.family');
    },
  );

  it.skipIf(!haveEngine)(
    "a real Gemma-2 config.json is planned, and its specs carry the file's text for the runner (30.0 stays a float)",
    { timeout: 240_000 },
    async () => {
      const text = fs.readFileSync(path.resolve(import.meta.dirname, '../../fixtures/model-configs/gemma-2-2b.json'), 'utf8');
      const arch = (await backend.invoke('plan/import-hf-config', { text })) as ModelArch;
      expect(arch.probed?.total).toBe(2_614_341_888);
      expect(arch.hfConfigText).toBe(text);
      const plan = (await backend.invoke('plan/compute', { workload: { model: arch, seqLen: 32, microBatch: 1, gpus: 1 } })) as PlanResult;
      expect(plan.strategies[0].spec.model.hfConfigText).toBe(text);
    },
  );

  it.skipIf(!haveEngine)(
    "a formula family imported through the probe has the formula's count (o_proj bias included)",
    { timeout: 120_000 },
    async () => {
      const arch = (await backend.invoke('plan/import-hf-config', { text: JSON.stringify(llamaBias) })) as ModelArch;
      const { probed, ...numbers } = arch;
      expect(probed?.total).toBe(countParams(numbers).total);
      expect(arch.attentionBias).toBe(true);
    },
  );

  const refused: [string, Record<string, unknown>, string, RegExp][] = [
    ['an unknown architecture', { ...gemma, model_type: 'llamma' }, 'unsupported_model', /model_type 'llamma'.*Check the spelling/],
    [
      'remote code',
      { ...gemma, model_type: 'llama', auto_map: { AutoModelForCausalLM: 'modeling_x.XForCausalLM' } },
      'unsupported_model',
      /remote code/,
    ],
    [
      'a Mixture-of-Experts model routing to more experts than it has',
      { ...gemma, model_type: 'mixtral', num_local_experts: 4, num_experts_per_tok: 6 },
      'invalid_hf_config',
      /num_experts_per_tok is 6.*Set num_experts_per_tok/,
    ],
  ];
  for (const [name, cfg, code, message] of refused)
    it.skipIf(!haveEngine)(`refuses ${name} by name with what to do`, { timeout: 120_000 }, async () => {
      const e = await refusal(backend.invoke('plan/import-hf-config', { text: JSON.stringify(cfg) }));
      expect(e?.code, e?.message).toBe(code);
      expect(e?.message).toMatch(message);
      expect(e?.field).toBe('config.json');
    });

  // The CLI's `--model path/to/config.json` goes through the same probe (handlers/model-guard.ts).
  const root = path.resolve(import.meta.dirname, '../../..');
  const cliPlan = (cfg: Record<string, unknown> | string, name: string) => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, name));
    fs.writeFileSync(path.join(dir, name, 'config.json'), typeof cfg === 'string' ? cfg : JSON.stringify(cfg));
    return spawnSync(
      path.join(root, 'node_modules', '.bin', 'tsx'),
      [
        'electron/cli/main.ts',
        'plan',
        '--model',
        path.join(dir, name, 'config.json'),
        '--seq',
        '32',
        '--micro-batch',
        '1',
        '--gpus',
        '1',
        '--machine',
        path.join(root, 'tests/fixtures/hosts/h200-sxm-x86/machine.json'),
        '--data-dir',
        path.join(dir, 'data'),
        '--json',
      ],
      { cwd: root, encoding: 'utf8' },
    );
  };

  it.skipIf(!haveEngine)(
    "the CLI plans a config.json path with transformers' count, and the real Mixtral's with its total and active counts",
    { timeout: 240_000 },
    () => {
      const ok = cliPlan(gemma, 'tiny-gemma');
      expect(ok.status, ok.stderr).toBe(0);
      const plan = JSON.parse(ok.stdout) as PlanResult;
      expect([plan.model.id, plan.model.family, plan.model.probed?.total]).toEqual(['tiny-gemma', 'gemma', 86_336]);
      expect(plan.strategies[0].spec.model.hfConfig).toEqual(gemma);
      // Its router_jitter_noise 0.0 reaches transformers as written (JSON.stringify would make it 0).
      const text = fs.readFileSync(path.join(root, 'tests/fixtures/model-configs/mixtral-8x7b.json'), 'utf8');
      const moe = cliPlan(text, 'mixtral-8x7b');
      expect(moe.status, moe.stderr).toBe(0);
      const moePlan = JSON.parse(moe.stdout) as PlanResult;
      // transformers' count and the published 46.7B total / 12.9B active (tests/engine/test_model_configs.py)
      expect(moePlan.model.probed).toMatchObject({ total: 46_702_792_704, active: 12_879_925_248, experts: { count: 8, perToken: 2 } });
      expect(moePlan.notes.join('\n')).toMatch(/Mixture-of-Experts: 8 experts per MoE layer, 2 per token.*Uncalibrated/);
    },
  );

  it.skipIf(!haveEngine)(
    'the CLI runs a Gemma config.json: the stored spec carries the config and the runner builds it from it',
    { timeout: 400_000 },
    () => {
      const dir = tmp();
      fs.mkdirSync(path.join(dir, 'tiny-gemma'));
      fs.writeFileSync(path.join(dir, 'tiny-gemma', 'config.json'), JSON.stringify(gemma));
      const dataDir = path.join(dir, 'data');
      const r = spawnSync(
        path.join(root, 'node_modules', '.bin', 'tsx'),
        [
          'electron/cli/main.ts',
          'run',
          '--model',
          path.join(dir, 'tiny-gemma'),
          '--strategy',
          'zero3-offload',
          '--seq',
          '32',
          '--steps',
          '2',
          '--warmup',
          '1',
          '--data-dir',
          dataDir,
        ],
        { cwd: root, encoding: 'utf8', timeout: 380_000 },
      );
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/completed/);
      const [specFile] = fs.readdirSync(path.join(dataDir, 'specs'));
      const spec = JSON.parse(fs.readFileSync(path.join(dataDir, 'specs', specFile), 'utf8')) as {
        model: { hfConfig: unknown; family: string };
      };
      expect([spec.model.family, spec.model.hfConfig]).toEqual(['gemma', gemma]);
      const [log] = fs.readdirSync(path.join(dataDir, 'logs'));
      expect(fs.readFileSync(path.join(dataDir, 'logs', log), 'utf8')).toContain(
        "model: built from the spec's config.json (model.hfConfigText, the file's text)",
      );
    },
  );
});

describe('a Mixture-of-Experts config.json through the CLI', () => {
  const root = path.resolve(import.meta.dirname, '../../..');
  // A tiny Mixtral as its file is written: router_jitter_noise 0.0 must reach transformers a float.
  const text = `{
  "model_type": "mixtral", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
  "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 256, "max_position_embeddings": 128,
  "num_local_experts": 4, "num_experts_per_tok": 2, "router_jitter_noise": 0.0, "router_aux_loss_coef": 0.02
}
`;
  it.skipIf(!haveEngine)(
    "runs under ZeRO-3 from the file's text: the runner's spec carries it, with the total and active counts",
    { timeout: 400_000 },
    () => {
      const dir = tmp();
      fs.mkdirSync(path.join(dir, 'tiny-mixtral'));
      fs.writeFileSync(path.join(dir, 'tiny-mixtral', 'config.json'), text);
      const dataDir = path.join(dir, 'data');
      const r = spawnSync(
        path.join(root, 'node_modules', '.bin', 'tsx'),
        ['electron/cli/main.ts', 'run', '--model', path.join(dir, 'tiny-mixtral'), '--strategy', 'zero3-offload'].concat([
          '--seq',
          '32',
          '--steps',
          '2',
          '--warmup',
          '1',
          '--data-dir',
          dataDir,
        ]),
        { cwd: root, encoding: 'utf8', timeout: 380_000 },
      );
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/completed/);
      const [specFile] = fs.readdirSync(path.join(dataDir, 'specs'));
      const spec = JSON.parse(fs.readFileSync(path.join(dataDir, 'specs', specFile), 'utf8')) as RunSpec;
      expect(spec.model.hfConfigText).toBe(text);
      // 254,784 parameters (MixtralForCausalLM.num_parameters()); a token computes 2 of 4 experts.
      expect(spec.model.probed).toMatchObject({ total: 254_784, active: 156_480, experts: { count: 4, perToken: 2 } });
      const [log] = fs.readdirSync(path.join(dataDir, 'logs'));
      const said = fs.readFileSync(path.join(dataDir, 'logs', log), 'utf8');
      expect(said).toContain('156480 of 254784 parameters active per token');
      expect(said).toContain("ZeRO-3 leaf modules: ['MixtralSparseMoeBlock']");
    },
  );
});
