// `run --specs DIR`: the CLI runs RunSpecs (plan --write-specs output) through runs/start unchanged;
// a bad spec is refused naming its field.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../../electron/contract';
import { buildStartRequest } from '../../../electron/cli/commands/engine';
import { buildRunSpec } from '../../../electron/services/tuner';
import { tmpDir } from './helpers';

const workload = { model: 'tiny-llama', seqLen: 32, microBatch: 2, gpus: 1 };

describe('run --specs', () => {
  it('sends every spec of the folder, in name order, unchanged', () => {
    const dir = tmpDir();
    const specs = [buildRunSpec(workload, 'zero2-offload'), buildRunSpec(workload, 'zero3-offload')];
    for (const s of specs) fs.writeFileSync(path.join(dir, `${s.strategy}.json`), JSON.stringify(s));
    const request = parseRequest('runs/start', buildStartRequest({ specs: dir, repeats: '2', steps: '3', warmup: '1' }));
    expect(request.specs).toEqual(specs);
    expect([request.repeats, request.steps, request.warmup, request.workload]).toEqual([2, 3, 1, undefined]);
  });

  it('refuses a bad spec naming the field', () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'x.json'), JSON.stringify({ ...buildRunSpec(workload, 'zero3-offload'), microBatch: 0 }));
    expect(() => parseRequest('runs/start', buildStartRequest({ specs: dir }))).toThrow(/specs\.0\.microBatch/);
    expect(() => buildStartRequest({ specs: tmpDir() })).toThrow(/no \*\.json spec files/);
  });
});
