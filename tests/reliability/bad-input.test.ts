// Absurd workloads and malformed model configs through plan/compute, plan/import-hf-config and
// runs/start (backend.invoke, the path every transport takes): refused, the field named, nothing
// written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from '../../electron/services/backend';
import { FAKE_PYTHON, fileList, rowCounts, tinySweep, tmpDir } from './helpers';

let backend: Backend;
let dataDir: string;
beforeAll(() => {
  dataDir = tmpDir('os-bad-');
  backend = createBackend({ dataDir, transport: 'server' });
});
afterAll(async () => backend?.close());

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as { code: string; field?: string; message: string },
  );

describe('bad input: workloads and model configs', () => {
  const absurd: [string, Record<string, unknown>, RegExp][] = [
    ['seq 0', { seqLen: 0 }, /seqLen/],
    ['negative batch', { microBatch: -4 }, /microBatch/],
    ['NaN batch', { microBatch: Number.NaN }, /microBatch/],
    ['fractional GPUs', { gpus: 1.5 }, /gpus/],
    ['0 layers (inline model)', { model: { id: 'x', label: 'x', numLayers: 0 } }, /model/],
    [
      '10^15-parameter model (inline, absurd sizes)',
      {
        model: {
          id: 'huge',
          label: 'huge',
          family: 'llama',
          hiddenSize: 1e9,
          numLayers: 1e6,
          numHeads: 1,
          numKvHeads: 1,
          intermediateSize: 1e9,
          vocabSize: 1e9,
          tieEmbeddings: false,
          ropeTheta: 1,
          rmsNormEps: 1e-5,
          headDim: 1e9,
          maxPositionEmbeddings: 1,
        },
      },
      /model/,
    ],
    ['path traversal as model', { model: '../../etc/passwd' }, /model/],
  ];
  for (const [name, change, field] of absurd) {
    it(`${name}: plan/compute and runs/start refuse it, naming the field`, async () => {
      const before = { rows: rowCounts(dataDir), files: fileList(dataDir) };
      const plan = await refusal(
        backend.invoke('plan/compute', { workload: { model: 'tiny-llama', seqLen: 32, microBatch: 1, gpus: 1, ...change } }),
      );
      expect(plan, `plan/compute ${name}`).not.toBeNull();
      expect(`${plan!.field ?? ''} ${plan!.message}`, `plan/compute ${name}: ${plan!.message}`).toMatch(field);
      const start = tinySweep(FAKE_PYTHON);
      (start as { workload: Record<string, unknown> }).workload = { ...(start.workload as object), ...change };
      const run = await refusal(backend.invoke('runs/start', start));
      expect(run, `runs/start ${name}`).not.toBeNull();
      expect(`${run!.field ?? ''} ${run!.message}`, `runs/start ${name}: ${run!.message}`).toMatch(field);
      expect({ rows: rowCounts(dataDir), files: fileList(dataDir) }).toEqual(before);
    });
  }

  const malformed: [string, string][] = [
    ['not JSON', '{"hidden_size": 4096,'],
    ['an array', '[1,2,3]'],
    ['no architecture fields', '{"model_type": "llama"}'],
    [
      'zero layers',
      '{"model_type":"llama","hidden_size":4096,"num_hidden_layers":0,"num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000}',
    ],
    [
      'negative hidden size',
      '{"model_type":"llama","hidden_size":-1,"num_hidden_layers":2,"num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000}',
    ],
    [
      'string numbers + __proto__',
      '{"__proto__":{"x":1},"model_type":"llama","hidden_size":"4096","num_hidden_layers":"2","num_attention_heads":32,"intermediate_size":1,"vocab_size":1}',
    ],
  ];
  for (const [name, text] of malformed)
    it(`plan/import-hf-config refuses a malformed config.json (${name}) with a code and message`, async () => {
      const e = await refusal(backend.invoke('plan/import-hf-config', { text }));
      expect(e, name).not.toBeNull();
      expect(e!.code, e!.message).toMatch(/bad_request|bad_config|invalid|hf/);
      expect(e!.message.length).toBeGreaterThan(10);
      expect(({} as Record<string, unknown>).x).toBeUndefined();
    });
});
