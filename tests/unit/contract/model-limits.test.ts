// A sequence longer than the model's positions is refused in one set of words wherever it is checked:
// the plan (plan/compute), the Plan page's form (its number check) and the runner's refusal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seqBeyondModel, WORKLOAD_OPTIONS } from '../../../electron/contract';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { refusalOf } from '../../../electron/services/engine/families';
import { problemOf } from '../../../renderer/src/pages/plan/number-problem';

const presets = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../resources/presets/models.json'), 'utf8')).models;
const gpt2 = presets.find((m: { id: string }) => m.id === 'gpt2');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-model-limits-'));
let backend: Backend;
beforeAll(() => {
  backend = createBackend({ dataDir: path.join(dir, 'data'), transport: 'cli' });
});
afterAll(async () => {
  await backend?.close();
});

describe('a sequence longer than the model reads', () => {
  it('names the field, the model and the limit', () => {
    expect(seqBeyondModel(gpt2, 2048)).toBe(
      "field 'seqLen' 2,048 is longer than GPT-2 (124M) reads: at most 1,024 positions (its max_position_embeddings); use a shorter sequence.",
    );
    expect(seqBeyondModel(gpt2, 1024)).toBeNull();
    expect(seqBeyondModel({ id: 'x' }, 1_000_000)).toBeNull();
  });

  it('is the same message from the plan, the form and the runner', async () => {
    const expected = seqBeyondModel(gpt2, 2048);
    const planned = await backend.invoke('plan/compute', { workload: { model: 'gpt2', seqLen: 2048, microBatch: 1, gpus: 1 } }).then(
      () => null,
      (e: { code: string; field?: string; message: string }) => e,
    );
    expect(planned).toMatchObject({ code: 'bad_request', field: 'seqLen', message: expected });
    expect(problemOf(WORKLOAD_OPTIONS.seqLen.value, '2048', (v) => seqBeyondModel(gpt2, v))).toBe(expected);
    expect(refusalOf({ model: gpt2, seqLen: 2048 })).toEqual({ field: 'seqLen', message: expected });
  });
});
