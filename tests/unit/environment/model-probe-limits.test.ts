// plan/import-hf-config under hostile configs (issue 48): 12 imports at once started 12 Python
// probes (7.8 GB); num_hidden_layers: 1000000 held one 180 s at 6.2 GB and then said "create the
// engine environment" although the environment was there. Now at most two probes run at once, shapes
// no GPU holds are refused by field before anything is built, and a probe stopped by its time limit
// says it timed out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from '../../../electron/services/backend';
import { chooseInterpreter, importProbedConfig, probeModelConfig } from '../../../electron/services/environment';
import { MAX_MODEL_PROBES_RUNNING } from '../../../electron/services/environment/model-probe';
import { refusal, scratchDir, TINY_GEMMA } from '../../helpers/model-probe';

const tmp = () => scratchDir('os-probe-limits-');
const small = TINY_GEMMA;

let backend: Backend;
beforeAll(() => {
  backend = createBackend({ dataDir: tmp(), transport: 'server' });
});
afterAll(async () => backend?.close());

describe('model probes are capped, bounded and say when they timed out', () => {
  it.each([
    ['num_hidden_layers', { num_hidden_layers: 1_000_000 }, /is 1,000,000: at most 1,024 layers are planned/],
    [
      'hidden_size',
      { model_type: 'phi3', hidden_size: 1_000_000 },
      /attention weights alone are .* GB in bf16, more than twice the largest GPU's/,
    ],
    ['vocab_size', { model_type: 'gemma', hidden_size: 8192, vocab_size: 100_000_000 }, /the embedding alone is .* GB/],
    ['num_local_experts', { model_type: 'mixtral', num_local_experts: 1_000_000 }, /at most 4,096 experts/],
  ])('%s beyond what any GPU holds is refused by name before a probe starts', async (field, change, message) => {
    const started = Date.now();
    const e = await refusal(backend.invoke('plan/import-hf-config', { text: JSON.stringify({ ...small, ...change }) }));
    expect(e?.code, e?.message).toBe('invalid_hf_config');
    expect(e?.field).toBe(field);
    expect(e?.message).toMatch(message);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it(`runs at most ${MAX_MODEL_PROBES_RUNNING} probes at once (real processes, counted from inside)`, async () => {
    // A stand-in interpreter: each process notes itself in `live/`, records how many it sees, waits
    // 0.4 s and answers a refusal (not cached as a table, so every config starts a process).
    const dir = tmp();
    const live = path.join(dir, 'live');
    fs.mkdirSync(live);
    const seen = path.join(dir, 'seen.log');
    const python = path.join(dir, 'python');
    fs.writeFileSync(
      python,
      `#!/usr/bin/env python3
import json, os, time
me = os.path.join(${JSON.stringify(live)}, str(os.getpid()))
open(me, "w").close()
with open(${JSON.stringify(seen)}, "a") as log: log.write(str(len(os.listdir(${JSON.stringify(live)}))) + "\\n")
time.sleep(0.4)
os.remove(me)
print(json.dumps({"ok": False, "class": "bad_config", "message": "stand-in", "fix": "none"}))
`,
      { mode: 0o755 },
    );
    const configs = Array.from({ length: 6 }, (_, i) => ({ ...small, vocab_size: 256 + i }));
    const answers = await Promise.all(configs.map((c) => probeModelConfig(c, { python, dataDir: dir })));
    expect(answers.map((a) => (a.ok ? 'table' : a.message))).toEqual(configs.map(() => 'stand-in'));
    const counts = fs.readFileSync(seen, 'utf8').trim().split('\n').map(Number);
    expect(counts).toHaveLength(6);
    expect(Math.max(...counts)).toBeLessThanOrEqual(MAX_MODEL_PROBES_RUNNING);
  });

  it('a real probe stopped by its time limit says "timed out", not "create the engine environment"', async () => {
    const python = chooseInterpreter(null).python;
    const e = await refusal(importProbedConfig(small, JSON.stringify(small), 'g', { python, dataDir: tmp(), timeoutMs: 300 }));
    expect(e?.code, e?.message).toBe('timed_out');
    expect(e?.message).toMatch(/^config\.json: Counting the model timed out: .* did not finish building it in 0 s\./);
    expect(e?.message).not.toMatch(/create the engine environment/i);
  });
});
