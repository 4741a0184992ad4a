// A plan for another machine, run here (the real runner): `run --force` of a 3B ZeRO-1 on this CPU
// machine (what a plan for a loaded H200 once started here) is refused by the runner's pre-flight in seconds, with this
// host's estimate and MemAvailable — before the fix it passed on the plan's "~2.0 GiB host" and grew
// until cancelled. Needs the engine venv; skipped on a host whose memory could hold the run (it would
// then start a 3B training on the CPU).
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseInterpreter } from '../../../electron/services/engine';
import { openHistory } from '../../../electron/services/history';
import { tmpDir } from './helpers';

const root = path.resolve(import.meta.dirname, '../../..');
const choice = chooseInterpreter(null);
const haveEngine = choice.source !== 'path';
const GiB = 1024 ** 3;
const small = os.totalmem() < 48 * GiB;

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(path.join(root, 'node_modules/.bin/tsx'), ['electron/cli/main.ts', ...args], { cwd: root, shell: false });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!haveEngine || !small)('the real pre-flight sizes a forced CPU run on this host', () => {
  it('refuses run --force --strategy gpu-zero1 of Llama-3.2-3B with the numbers', { timeout: 300_000 }, async () => {
    const dataDir = tmpDir('os-preflight-here-');
    const started = Date.now();
    const { code, stdout, stderr } = await cli([
      'run',
      '--model',
      'llama-3.2-3b',
      '--strategy',
      'gpu-zero1',
      '--force',
      '--seq',
      '256',
      '--steps',
      '1',
      '--warmup',
      '0',
      '--data-dir',
      dataDir,
      '--python',
      choice.python,
    ]);
    expect(code, stderr.slice(-2000)).toBe(1);
    expect(stdout).toMatch(
      /failed \(host_oom\): Pre-flight: need ~\d+\.\d GiB of host memory \(this host's estimate for ZeRO-1 \(no offload\) of Llama 3\.2 3B at seq 256, micro batch 1: no GPU here.*\), MemAvailable is \d+\.\d GiB\./,
    );
    expect(stdout).toContain('fix: Pick a smaller model');
    expect(Date.now() - started).toBeLessThan(120_000); // refused at start-up, not after building the model
    const history = openHistory(dataDir);
    try {
      const [run] = history.listRuns({}).runs;
      expect(run).toMatchObject({ status: 'failed', errorClass: 'host_oom' });
      const need = Number(/need ~(\d+\.\d) GiB/.exec(stdout)![1]) * GiB;
      expect(need).toBeGreaterThan(os.totalmem());
    } finally {
      history.close();
    }
  });
});
