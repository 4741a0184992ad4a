// The CLI read every path it was given with fs.readFileSync. `plan --model /dev/zero`
// reached 5.1 GB RSS in 12 s; a FIFO as --machine, --model, a --specs entry, measure --import or
// cluster save hung for good. Each is now refused by the one bounded regular-file reader
// (services/files): the real CLI, a real FIFO and /dev/zero, a clear error naming the path within
// 5 s, a non-zero exit, and the process's peak memory small (watched from outside, and the CLI's
// own maxRSS at exit).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, tmpDir } from './helpers';

const MiB = 1024 * 1024;
/** Well above the CLI's own footprint (node + tsx + the backend), far below what /dev/zero reached. */
const RSS_LIMIT = 512 * MiB;
const KILL_AFTER_MS = 20_000;

interface CliResult {
  code: number | null;
  out: string;
  ms: number;
  timedOut: boolean;
  /** Peak resident memory: the larger of the CLI's maxRSS at exit and what /proc showed meanwhile. */
  peakRss: number;
  killedForMemory: boolean;
}

let dir = '';
let dataDir = '';
let preload = '';

/** /proc/<pid>/status VmRSS in bytes (0 when gone or not Linux). */
function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The real CLI (`node --import tsx electron/cli/main.ts …`, one process), killed when it hangs or grows. */
function cli(args: string[]): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', preload, '--import', 'tsx', 'electron/cli/main.ts', ...args, '--data-dir', dataDir],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let timedOut = false;
    let killedForMemory = false;
    let watched = 0;
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    // A reader that trusts /dev/zero grows by hundreds of MB a second: stop it before it hurts the machine.
    const watch = setInterval(() => {
      watched = Math.max(watched, rssOf(child.pid!));
      if (watched > RSS_LIMIT * 2) ((killedForMemory = true), child.kill('SIGKILL'));
    }, 50);
    const timer = setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), KILL_AFTER_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(watch);
      const reported = Math.max(0, ...[...out.matchAll(/maxrss-kib (\d+)/g)].map((m) => Number(m[1]) * 1024));
      resolve({
        code,
        out: out.replace(/maxrss-kib \d+\n?/g, ''),
        ms: Date.now() - started,
        timedOut,
        peakRss: Math.max(watched, reported),
        killedForMemory,
      });
    });
  });
}

function expectRefused(r: CliResult, file: string, why: RegExp) {
  const shown = `${r.out} (${r.ms} ms, rss ${(r.peakRss / MiB).toFixed(0)} MiB)`;
  expect(r.timedOut, `hung: ${shown}`).toBe(false);
  expect(r.killedForMemory, `memory ran away: ${shown}`).toBe(false);
  expect(r.code, shown).not.toBe(0);
  expect(r.code, shown).not.toBeNull();
  expect(r.out, shown).toContain(file);
  expect(r.out, shown).toMatch(why);
  expect(r.ms, shown).toBeLessThan(5_000);
  expect(r.peakRss, shown).toBeLessThan(RSS_LIMIT);
}

const fifoAt = (file: string) => {
  const r = spawnSync('mkfifo', [file], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return file;
};

const NOT_REGULAR = /is not a regular file \(a FIFO, device or socket\); give a regular file/;
const WORKLOAD = ['--seq', '2048', '--micro-batch', '1', '--gpus', '1'];

beforeAll(() => {
  dir = tmpDir('os-special-files-');
  dataDir = path.join(dir, 'data');
  preload = path.join(dir, 'maxrss.mjs');
  // Node's own peak (KiB) at exit: the CLI ends through process.exit, which runs 'exit' handlers.
  fs.writeFileSync(preload, "process.on('exit', () => process.stderr.write(`maxrss-kib ${process.resourceUsage().maxRSS}\\n`));\n");
});

describe('CLI inputs that are not regular files are refused at once', { timeout: 120_000 }, () => {
  it('plan --model /dev/zero, a FIFO config.json, a folder whose config.json is a FIFO, and an oversized config', async () => {
    expectRefused(await cli(['plan', '--model', '/dev/zero', ...WORKLOAD]), '/dev/zero', NOT_REGULAR);
    const fifo = fifoAt(path.join(dir, 'model.json'));
    expectRefused(await cli(['plan', '--model', fifo, ...WORKLOAD]), fifo, NOT_REGULAR);
    const folder = path.join(dir, 'hf-model');
    fs.mkdirSync(folder);
    const inner = fifoAt(path.join(folder, 'config.json'));
    expectRefused(await cli(['plan', '--model', folder, ...WORKLOAD]), inner, NOT_REGULAR);
    const big = path.join(dir, 'big-config.json');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 5 * MiB); // sparse: no disk used
    expectRefused(await cli(['plan', '--model', big, ...WORKLOAD]), big, /is 5.0 MiB; at most 4.0 MiB is read here/);
  });

  it('plan --machine FIFO and /dev/zero', async () => {
    const fifo = fifoAt(path.join(dir, 'detect.json'));
    expectRefused(await cli(['plan', '--model', 'llama-3.1-8b', ...WORKLOAD, '--machine', fifo]), fifo, NOT_REGULAR);
    expectRefused(await cli(['plan', '--model', 'llama-3.1-8b', ...WORKLOAD, '--machine', '/dev/zero']), '/dev/zero', NOT_REGULAR);
  });

  it('run --specs DIR with a FIFO inside, run --specs FIFO, run --model /dev/zero, tune --model FIFO', async () => {
    const specs = path.join(dir, 'specs');
    fs.mkdirSync(specs);
    fs.writeFileSync(path.join(specs, 'a.json'), '{}');
    const fifo = fifoAt(path.join(specs, 'b.json'));
    expectRefused(await cli(['run', '--specs', specs]), fifo, NOT_REGULAR);
    expectRefused(await cli(['run', '--specs', fifo]), fifo, NOT_REGULAR);
    expectRefused(await cli(['run', '--model', '/dev/zero', '--strategy', 'zero3-offload']), '/dev/zero', NOT_REGULAR);
    expectRefused(await cli(['tune', '--model', fifo, ...WORKLOAD]), fifo, NOT_REGULAR);
  });

  // Issue 48: modelFlagPath checked a --model file but not a folder's config.json, so `run --model d`
  // with d/config.json → /dev/zero reached 16 GB, and a FIFO there hung tune past SIGTERM.
  it('run/tune --model FOLDER whose config.json links to /dev/zero or is a FIFO', async () => {
    const zero = path.join(dir, 'zero-model');
    fs.mkdirSync(zero);
    fs.symlinkSync('/dev/zero', path.join(zero, 'config.json'));
    const inZero = path.join(zero, 'config.json');
    const fifoModel = path.join(dir, 'fifo-model');
    fs.mkdirSync(fifoModel);
    const inFifo = fifoAt(path.join(fifoModel, 'config.json'));
    const run = ['--strategy', 'zero3-offload', '--seq', '32', '--steps', '1', '--micro-batch', '1', '--gpus', '1'];
    expectRefused(await cli(['run', '--model', zero, ...run]), inZero, NOT_REGULAR);
    expectRefused(await cli(['tune', '--model', fifoModel, ...WORKLOAD]), inFifo, NOT_REGULAR);
  });

  it('measure --import FIFO or /dev/zero, cluster save FIFO, convert-sweep --snapshot /dev/zero', async () => {
    const fifo = fifoAt(path.join(dir, 'measure.json'));
    expectRefused(await cli(['measure', '--import', fifo]), fifo, NOT_REGULAR);
    expectRefused(await cli(['measure', '--import', '/dev/zero']), '/dev/zero', NOT_REGULAR);
    const cluster = fifoAt(path.join(dir, 'cluster.json'));
    expectRefused(await cli(['cluster', 'save', cluster]), cluster, NOT_REGULAR);
    const sweep = path.join(dir, 'sweep');
    fs.mkdirSync(sweep);
    const args = ['convert-sweep', sweep, '--out', path.join(dir, 'x.runs.json'), '--label', 'x', '--snapshot', '/dev/zero'];
    expectRefused(await cli(args), '/dev/zero', NOT_REGULAR);
  });

  it('a regular file still reads: plan --model config.json', async () => {
    const config = path.join(dir, 'tiny', 'config.json');
    fs.mkdirSync(path.dirname(config));
    fs.writeFileSync(
      config,
      JSON.stringify({
        model_type: 'llama',
        hidden_size: 256,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        num_key_value_heads: 4,
        intermediate_size: 512,
        vocab_size: 1000,
        max_position_embeddings: 2048,
      }),
    );
    const r = await cli(['plan', '--model', config, ...WORKLOAD, '--scenario', 'superoffload-llama-70b-4gpu']);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^tiny \(imported llama\)/);
  });
});
