// The real thing: `npm run cli -- run` with the bundled runner (resources/engine/bench.py),
// DeepSpeed ZeRO-3 + CPU optimizer offload on the tiny-llama model, on this CPU machine, into a
// temp data folder; then the stored run is read back. Needs the engine venv
// (scripts/setup-engine-venv.sh; CI has it). The first run JIT-builds CPU Adam (minutes).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseInterpreter } from '../../../electron/services/engine';
import { openHistory } from '../../../electron/services/history';
import { tmpDir } from './helpers';

const root = path.resolve(import.meta.dirname, '../../..');
const choice = chooseInterpreter(null);
// Only an engine venv (or an explicit OFFLOAD_STUDIO_PYTHON) has torch + deepspeed; a bare python3 does not.
const haveEngine = choice.source !== 'path';

/**
 * Runs the CLI as `npm run cli` does (`node --import tsx electron/cli/main.ts`); `onStderr` may
 * press Ctrl-C once. A press is SIGINT to the CLI's process group, as a terminal sends it, and
 * the same SIGINT again 20 ms later, as `npm run` (and tsx's own parent process) relay it to
 * their child: the CLI must read both as one press.
 */
function cli(
  args: string[],
  onStderr?: (text: string, interrupt: () => void) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Own group, as a terminal would give it: Ctrl-C reaches the CLI, not the runner (its own group).
    const child = spawn(process.execPath, ['--import', 'tsx', 'electron/cli/main.ts', ...args], {
      cwd: root,
      shell: false,
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    const interrupt = () => {
      if (interrupted) return;
      interrupted = true;
      process.kill(-child.pid!, 'SIGINT');
      setTimeout(() => child.exitCode === null && child.kill('SIGINT'), 20);
    };
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      onStderr?.(stderr, interrupt);
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!haveEngine)(
  `real runner (${haveEngine ? choice.python : 'skipped: no engine venv — run scripts/setup-engine-venv.sh or set OFFLOAD_STUDIO_PYTHON'})`,
  () => {
    it('runs tiny-llama with ZeRO-3 + CPU optimizer offload through the CLI and stores it', { timeout: 900_000 }, async () => {
      const dataDir = tmpDir('os-real-');
      const { code, stdout, stderr } = await cli([
        'run',
        '--model',
        'tiny-llama',
        '--strategy',
        'zero3-offload',
        '--seq',
        '32',
        '--micro-batch',
        '1',
        '--steps',
        '3',
        '--warmup',
        '1',
        '--data-dir',
        dataDir,
        '--python',
        choice.python,
        '--json',
        '--watch',
      ]);
      expect(code, stderr.slice(-3000)).toBe(0);
      expect(stderr).toMatch(/step 4\/4/); // progress went to stderr under --json
      const [printed] = JSON.parse(stdout) as { id: string; status: string; result: { tflopsPerGpu: number; stepSeconds: number } }[];
      expect(printed.status).toBe('completed');
      expect(printed.result.stepSeconds).toBeGreaterThan(0);

      const history = openHistory(dataDir);
      try {
        const run = history.getRun(printed.id)!;
        expect(run.summary).toMatchObject({ status: 'completed', model: 'tiny-llama', strategy: 'zero3-offload', engine: 'deepspeed' });
        expect(run.samples.map((s) => s.step)).toEqual([1, 2, 3, 4]);
        for (const s of run.samples) expect(Number.isFinite(s.loss)).toBe(true);
        expect(run.summary.tflopsPerGpu).toBeGreaterThan(0);
        expect(run.hello).toMatchObject({ accelerator: 'cpu', deepspeed: expect.any(String) });
        expect(run.config).toMatchObject({ engine: 'deepspeed', layers: 2, hidden: 64, seqLen: 32 });
        expect(
          (run.spec as { dsConfig: { zero_optimization: { stage: number; offload_optimizer: { device: string } } } }).dsConfig
            .zero_optimization,
        ).toMatchObject({
          stage: 3,
          offload_optimizer: { device: 'cpu' },
        });
        expect(run.snapshot).toMatchObject({ schemaVersion: 1 });
        expect(run.logTail.length).toBeGreaterThan(0);
        // The resource view: the CPU lanes of this real run, measured and stored with it;
        // --watch printed them live; no GPU here, and the lanes say so rather than reading 0.
        expect(stderr).toMatch(/\[resources\] GPU n\/a \(.+\).*CPU \d+\/\d+ cores busy/);
        const resources = history.resources(printed.id)!;
        expect(resources.availability.cpu.available).toBe(true);
        expect(resources.availability.gpu.available).toBe(false);
        expect(resources.steps.map((s) => s.step)).toEqual([1, 2, 3, 4]);
        const loads = resources.samples.filter((s) => s.cpuBusyPct.length > 0);
        expect(loads.length).toBeGreaterThan(2);
        expect(Math.max(...loads.flatMap((s) => s.cpuBusyPct))).toBeGreaterThan(50); // the runner kept a core busy
      } finally {
        history.close();
      }
    });

    it('Ctrl-C cancels the sweep gracefully and records the run cancelled (exit 130)', { timeout: 600_000 }, async () => {
      const dataDir = tmpDir('os-real-cancel-');
      const { code, stderr } = await cli(
        [
          'run',
          '--model',
          'tiny-llama',
          '--strategy',
          'zero3-offload,zero2-offload',
          '--seq',
          '32',
          '--steps',
          '50',
          '--warmup',
          '1',
          '--data-dir',
          dataDir,
          '--python',
          choice.python,
          '--json',
        ],
        (text, interrupt) => {
          if (/step 2\/51/.test(text)) interrupt();
        },
      );
      expect(code, stderr.slice(-3000)).toBe(130);
      const history = openHistory(dataDir);
      try {
        const { runs } = history.listRuns({});
        expect(runs.map((r) => r.status).sort()).toEqual(['cancelled', 'cancelled']);
        const first = runs.find((r) => r.strategy === 'zero3-offload')!;
        const detail = history.getRun(first.id)!;
        // the runner saw SIGINT and reported it (graceful, not killed); on failure, say how it ended
        expect(stderr).not.toMatch(/stopping now/); // one press, however many deliveries
        expect(
          detail.exitCode,
          JSON.stringify({ signal: detail.exitSignal, error: detail.summary.errorClass, log: detail.logTail.slice(-15) }),
        ).toBe(130);
        expect(detail.samples.length).toBeGreaterThanOrEqual(2);
      } finally {
        history.close();
      }
    });
  },
);
