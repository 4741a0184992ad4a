// Fuzzing the doors a user's own files come in by (issue 48): a model folder (`--model DIR`, read by
// the backend as DIR/config.json), a Hugging Face config's text (plan/import-hf-config) and a
// ds_config's text (plan/user-config). Hostile shapes — FIFOs and /dev/zero links, nesting 2,000
// deep, sizes no GPU holds, numbers past a double, text that is not JSON carrying a secret — plus
// seeded mutations of real configs. Every answer must be a refusal with a stable code other than
// 'internal'/'bad_response', naming a field, never quoting the secret, within a second (no probe is
// started for a shape refused by field); mutations the app accepts are counted. In-process, lean.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from '../../electron/services/backend';
import { repoRoot, seededRandom, tmpDir } from './helpers';

const SECRET = 'root:*:20200:0:99999:7:::TOPSECRET';
const nest = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const WORKLOAD = { model: 'llama-3.1-8b', seqLen: 2048, gpus: 1 };

interface Refusal {
  code: string;
  field?: string;
  message: string;
}

let backend: Backend;
let dir = '';
beforeAll(() => {
  dir = tmpDir('os-fuzz-files-');
  backend = createBackend({ dataDir: path.join(dir, 'data'), transport: 'cli' });
});
afterAll(async () => backend?.close());

/** The answer to one request: its refusal (or null when accepted) and how long it took. */
async function answer(channel: string, payload: unknown): Promise<{ e: Refusal | null; ms: number }> {
  const started = Date.now();
  const e = await (backend.invoke as (c: string, p: unknown) => Promise<unknown>)(channel, payload).then(
    () => null,
    (error: unknown) => error as Refusal,
  );
  return { e, ms: Date.now() - started };
}

/** `echoes`: the file is JSON, so a refusal may name a key or value the user wrote (the secret in one). */
function expectCleanRefusal(r: { e: Refusal | null; ms: number }, context: string, code?: string, echoes = false) {
  expect(r.e, `${context}: accepted`).not.toBeNull();
  const e = r.e!;
  expect(e.code, `${context}: ${e.message}`).not.toMatch(/^(internal|bad_response)$/);
  if (code) expect(e.code, `${context}: ${e.message}`).toBe(code);
  expect(e.field, `${context}: ${e.message}`).toEqual(expect.any(String));
  if (!echoes) expect(e.message, context).not.toContain('TOPSECRET');
  expect(e.message, context).not.toMatch(/Maximum call stack/);
  expect(r.ms, context).toBeLessThan(2_000);
}

describe('fuzz: the model-folder, HF-config and ds-config doors', () => {
  it('a model folder whose config.json is hostile: refused naming the file, at once', async () => {
    const shapes: [string, (file: string) => void, RegExp][] = [
      ['a link to /dev/zero', (f) => fs.symlinkSync('/dev/zero', f), /is not a regular file/],
      ['a FIFO', (f) => expect(spawnSync('mkfifo', [f]).status).toBe(0), /is not a regular file/],
      ['a dangling link', (f) => fs.symlinkSync(path.join(dir, 'nowhere'), f), /no such file/],
      ['a folder', (f) => fs.mkdirSync(f), /is a folder/],
      ['5 MiB (sparse)', (f) => (fs.writeFileSync(f, ''), fs.truncateSync(f, 5 * 1024 * 1024)), /at most 4\.0 MiB/],
      ['nested 2,000 deep', (f) => fs.writeFileSync(f, nest(2000)), /nests deeper than 64 levels/],
      ['a secret, not JSON', (f) => fs.writeFileSync(f, SECRET), /not valid JSON|not a readable/],
    ];
    for (const [name, make, message] of shapes) {
      const folder = path.join(dir, `model-${shapes.findIndex((s) => s[0] === name)}`);
      fs.mkdirSync(folder);
      make(path.join(folder, 'config.json'));
      const r = await answer('plan/compute', { workload: { ...WORKLOAD, model: folder } });
      expectCleanRefusal(r, `model folder with ${name}`);
      expect(r.e!.message, name).toMatch(message);
    }
  });

  it('HF-config text: deep, huge or garbled shapes are refused by field before a probe starts', async () => {
    const rng = seededRandom('fuzz-hf-config');
    const base = {
      model_type: 'llama',
      hidden_size: 4096,
      num_attention_heads: 32,
      num_hidden_layers: 32,
      intermediate_size: 11008,
      vocab_size: 32000,
    };
    const texts = [
      nest(2000),
      `{"model_type":"llama","x":${nest(100_000)}}`,
      `{"model_type":"llama","text_config":${nest(200)}}`,
      SECRET,
      `{"model_type":"llama","x":"${SECRET}`,
    ];
    // Sizes no GPU holds or no probe should build, set one or two at a time (seeded).
    const big: [string, number | string][] = [
      ['num_hidden_layers', 1_000_000],
      ['hidden_size', 1_000_000],
      ['vocab_size', 1e12],
      ['intermediate_size', 1e9],
      ['num_local_experts', 100_000],
      ['hidden_size', '1e309'],
      ['vocab_size', '123456789012345678901234567890'],
    ];
    for (let i = 0; i < 30; i++) {
      const [k, v] = rng.pick(big);
      const [k2, v2] = rng.pick(big);
      texts.push(
        JSON.stringify({ ...base, [k2]: '@2', [k]: '@1' })
          .replace('"@1"', String(v))
          .replace('"@2"', String(v2)),
      );
    }
    for (const text of texts)
      expectCleanRefusal(await answer('plan/import-hf-config', { text }), `hf config ${text.slice(0, 120)}`, 'invalid_hf_config');
  });

  it('ds_config text: deep nesting, a secret, numbers out of range and seeded mutations of real configs', async () => {
    const rng = seededRandom('fuzz-ds-config');
    const plan = (text: string) => answer('plan/user-config', { config: { fileName: 'ds_config.json', text }, workload: WORKLOAD });
    for (const text of [nest(65), nest(2000), '['.repeat(200_000), SECRET, `{"train_batch_size": "${SECRET}`])
      expectCleanRefusal(await plan(text), `ds_config ${text.slice(0, 80)}`, 'bad_config');
    const base = JSON.parse(fs.readFileSync(path.join(repoRoot, 'tests/fixtures/ds-configs/dsexamples-zero-offload.json'), 'utf8'));
    const numbers = ['1e300', '1e309', '-1', '0.5', '1234567890123456789012345678901', String(2 ** 62), '1e15'];
    for (const key of [
      'train_batch_size',
      'train_micro_batch_size_per_gpu',
      'gradient_accumulation_steps',
      'zero_optimization.reduce_bucket_size',
    ])
      for (const v of numbers) {
        if (key.startsWith('zero_optimization.') && v === '1e15') continue; // a whole element count in range
        const config = structuredClone(base);
        const [outer, inner] = key.split('.');
        if (inner) config[outer][inner] = '@v';
        else config[outer] = '@v';
        const r = await plan(JSON.stringify(config).replace('"@v"', v));
        expectCleanRefusal(r, `${key} = ${v}`, 'bad_config');
        expect(r.e!.message, `${key} = ${v}`).toMatch(/must be a whole number from \d+ to [\d,]+/);
      }
    // Text mutations (a character dropped, doubled or replaced): refused with line and column, or planned.
    const fixtures = ['dsexamples-zero-offload.json', 'hf-zero3-auto.json'].map((f) =>
      fs.readFileSync(path.join(repoRoot, 'tests/fixtures/ds-configs', f), 'utf8'),
    );
    let accepted = 0;
    for (let i = 0; i < 40; i++) {
      const text = rng.pick(fixtures);
      const at = rng.int(text.length);
      const mutated = rng.pick([
        () => text.slice(0, at) + text.slice(at + 1),
        () => text.slice(0, at) + text[at] + text.slice(at),
        () => text.slice(0, at) + rng.pick(['{', ']', ',', '"', '\\', '\u0001', SECRET]) + text.slice(at + 1),
      ])();
      const r = await plan(mutated);
      if (!r.e) {
        accepted++;
        continue;
      }
      const isJson = (() => {
        try {
          JSON.parse(mutated);
          return true;
        } catch {
          return false;
        }
      })();
      expectCleanRefusal(r, `seed ${rng.seed} mutation ${i}: ${JSON.stringify(mutated).slice(0, 200)}`, undefined, isJson);
      if (!isJson) expect(r.e.message).toMatch(/at line \d+, column \d+|nests deeper/);
    }
    console.log(`[fuzz-ds-config] 40 mutations: ${40 - accepted} refused cleanly, ${accepted} planned`);
  });
});
