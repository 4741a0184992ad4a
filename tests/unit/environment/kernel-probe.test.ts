// The app's side of the kernel probe (services/environment/kernel-probe.ts): the script's line read into the
// contract's shape (real outputs of resources/engine/kernel_probe.py, captured on this CPU VM: the figures with
// --device cpu, the refusals as they come); per-micro-batch caching in the data folder (only what is not measured
// yet is probed); one probe at a time, one child per identical request; every failure answered as a reason,
// timeouts saying "timed out". The fake interpreters below are shell scripts that print those captured lines.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KernelProbeSchema } from '../../../electron/contract';
import {
  chooseInterpreter,
  kernelCacheKey,
  kernelProbeFromOutput,
  probeKernels,
  storedPresetConfig,
} from '../../../electron/services/environment';

const dir = path.resolve(import.meta.dirname, '../../fixtures/kernel-probe');
const text = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
const config = JSON.parse(text('tiny-phi3.config.json')) as Record<string, unknown>;
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'os-kernel-probe-'));
const choice = chooseInterpreter(null);
const haveEngine = choice.source !== 'path';
const base = { config, gpuName: 'NVIDIA H100 80GB HBM3', dtype: 'bf16' as const, seqLen: 64, checkpointing: true };

/** An interpreter stand-in: logs its arguments (and start/end), waits, prints a captured probe line. */
function fakePython(folder: string, answer: string, seconds = 0.2): { python: string; log: string } {
  const log = path.join(folder, 'calls.log');
  const out = path.join(folder, 'answer.json');
  fs.writeFileSync(out, answer);
  const python = path.join(folder, 'python3');
  fs.writeFileSync(python, `#!/bin/sh\necho "start $*" >> '${log}'\nsleep ${seconds}\necho "end" >> '${log}'\ncat '${out}'\n`, {
    mode: 0o755,
  });
  return { python, log };
}
const calls = (log: string) => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []);

describe('kernel probe output', () => {
  it("reads the script's line (after any log line) into the contract's figures", () => {
    const got = kernelProbeFromOutput(`some warning\n${text('tiny-phi3.cpu-s64.json')}`);
    expect(got.ok).toBe(true);
    if (!got.ok) return;
    expect(got.probe).toEqual(KernelProbeSchema.parse(JSON.parse(text('tiny-phi3.cpu-s64.json'))));
    expect(got.probe.arch).toMatchObject({ architecture: 'Phi3ForCausalLM', fusedQkv: true, fusedGateUp: true, headDim: 16 });
    expect(got.probe.micros.map((m) => m.microBatch)).toEqual([1, 2, 4]);
  });

  it('says skipped without a GPU, names a refusal, and an answer that is not JSON', () => {
    expect(kernelProbeFromOutput(text('no-gpu.json'))).toEqual({
      ok: false,
      class: 'no_gpu',
      reason: "skipped: no GPU (torch sees no CUDA device); the plan uses the catalogue's constants",
    });
    const refused = kernelProbeFromOutput(text('unsupported.json'));
    expect(refused).toMatchObject({ ok: false, class: 'unsupported' });
    expect(!refused.ok && refused.reason).toMatch(/^the kernel probe failed \(unsupported\): model_type 'bert' is an encoder/);
    expect(kernelProbeFromOutput('Traceback (most recent call last):')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/printed no JSON line/),
    });
  });

  it('reads a preset’s stored config.json, the one the runner builds', () => {
    expect(storedPresetConfig('llama-3.2-1b')).toMatchObject({ model_type: 'llama', hidden_size: 2048, vocab_size: 128256 });
    expect(storedPresetConfig('no-such-preset')).toBeNull();
  });
});

describe('probing and caching', () => {
  it('an interpreter that is not there, or one that does not answer in time: a reason, never a throw', async () => {
    const missing = await probeKernels({ ...base, python: '/nonexistent/python3', dataDir: tmp(), micros: [1] });
    expect(missing).toMatchObject({
      class: 'unavailable',
      reason: expect.stringMatching(/\/nonexistent\/python3\) could not be started \(ENOENT/),
    });
    const folder = tmp();
    const slow = fakePython(folder, text('tiny-phi3.cpu-s64.json'), 5);
    const late = await probeKernels({ ...base, python: slow.python, dataDir: folder, micros: [1, 2], timeoutMs: 300 });
    expect(late).toEqual({ class: 'timeout', reason: 'the kernel probe timed out after 0.3 s (micro 1, 2)' });
    expect(fs.readdirSync(path.join(folder, 'kernel-probe'))).toEqual([]); // nothing cached, the config file removed
  });

  it('an interpreter without torch names the script that creates the engine environment', async () => {
    // the system python3 of this machine has no torch: the probe's own import fails there
    const bare = spawnSync('python3', ['-c', 'import torch'], { encoding: 'utf8' });
    if (bare.status === 0) return; // a python3 with torch cannot show this refusal
    const answer = await probeKernels({ ...base, python: 'python3', dataDir: tmp(), micros: [1] });
    expect(answer, JSON.stringify(answer)).toMatchObject({ class: 'unavailable' });
    expect('reason' in answer && answer.reason).toMatch(/has no (torch|transformers): .*bash scripts\/setup-engine-venv\.sh/);
  });

  it('caches per micro batch: a later plan probes only the micro batches not measured yet', async () => {
    const folder = tmp();
    const fake = fakePython(folder, text('tiny-phi3.cpu-s64.json'));
    const first = await probeKernels({ ...base, python: fake.python, dataDir: folder, micros: [2, 1] });
    expect('probe' in first && first.probedMicros).toEqual([1, 2, 4]);
    expect(calls(fake.log)[0]).toMatch(
      /kernel_probe\.py --config .*\.config\.json --seq 64 --micro 1,2 --dtype bf16 --checkpointing --budget-seconds 50$/,
    );
    const key = await kernelCacheKey(base);
    expect(key).toMatch(/^[0-9a-f]{16}-nvidia-h100-80gb-hbm3-bf16-s64-ckpt$/);
    expect(fs.readdirSync(path.join(folder, 'kernel-probe'))).toEqual([`${key}.json`]);
    // micro 1, 2 and 4 are known: only 8 is asked for
    await probeKernels({ ...base, python: fake.python, dataDir: folder, micros: [1, 2, 4, 8] });
    expect(calls(fake.log).filter((l) => l.startsWith('start'))[1]).toMatch(/--micro 8 /);
    // everything known: answered from the cache, even by an interpreter that is gone
    const cached = await probeKernels({ ...base, python: '/nonexistent/python3', dataDir: folder, micros: [1, 4] });
    expect(cached).toMatchObject({ cachedMicros: [1, 2, 4], probedMicros: [] });
    // another sequence, dtype or checkpointing is another workload
    expect(await kernelCacheKey({ ...base, seqLen: 128 })).not.toBe(key);
    expect(await kernelCacheKey({ ...base, checkpointing: false })).toMatch(/-s64-full$/);
  });

  it('runs one probe at a time, and one child for identical requests made together', async () => {
    const folder = tmp();
    const fake = fakePython(folder, text('tiny-phi3.cpu-s64.json'), 0.3);
    const [a, b, c] = await Promise.all([
      probeKernels({ ...base, python: fake.python, dataDir: folder, micros: [1, 2] }),
      probeKernels({ ...base, python: fake.python, dataDir: folder, micros: [1, 2] }),
      probeKernels({ ...base, seqLen: 128, python: fake.python, dataDir: folder, micros: [1] }),
    ]);
    expect(a).toEqual(b);
    expect('probe' in c).toBe(true);
    const lines = calls(fake.log);
    expect(lines.map((l) => l.split(' ')[0])).toEqual(['start', 'end', 'start', 'end']);
  });

  it.skipIf(!haveEngine)(
    'probes a real tiny Llama on the CPU (the tests’ switch) through the engine interpreter',
    { timeout: 180_000 },
    async () => {
      const tiny = {
        model_type: 'llama',
        hidden_size: 64,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        num_key_value_heads: 2,
        head_dim: 16,
        intermediate_size: 128,
        vocab_size: 256,
      };
      const dataDir = tmp();
      const req = { ...base, config: tiny, seqLen: 32, device: 'cpu' as const, dataDir, micros: [1, 2] };
      const got = await probeKernels({ ...req, python: choice.python });
      expect('probe' in got).toBe(true);
      if (!('probe' in got)) return;
      expect(got.probe).toMatchObject({ device: 'cpu', memorySource: 'cpu-dispatch-tracker', seqLen: 32, checkpointing: true });
      expect(got.probe.arch).toMatchObject({ architecture: 'LlamaForCausalLM', numKvHeads: 2, fusedQkv: false });
      expect(got.probe.micros.map((m) => m.microBatch)).toEqual([1, 2]);
      expect(await probeKernels({ ...req, python: '/nonexistent/python3' })).toMatchObject({ cachedMicros: [1, 2] });
      // without a GPU (and without the tests' switch) the probe says it skipped
      const bare = spawnSync(choice.python, ['-c', 'import torch; print(torch.cuda.is_available())'], { encoding: 'utf8' });
      if (bare.stdout.trim() === 'False') {
        const skipped = await probeKernels({ ...base, config: tiny, seqLen: 32, dataDir, micros: [1], python: choice.python });
        expect(skipped).toEqual({
          class: 'no_gpu',
          reason: "skipped: no GPU (torch sees no CUDA device); the plan uses the catalogue's constants",
        });
      }
    },
  );
});
