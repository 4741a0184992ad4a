// `npm run bench:detect`: full hardware detection (no measurements, no Python probe), cold —
// each sample is a fresh process, so module loading and first tool runs are counted. Median of 5.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { median, reportFigure } from './figure';

const run = promisify(execFile);
const here = path.dirname(new URL(import.meta.url).pathname);
const tsx = path.join(here, '..', 'node_modules', '.bin', 'tsx');

async function main(): Promise<void> {
  const samples: { totalMs: number; detectionMs: number; gpus: number }[] = [];
  for (let i = 0; i < 5; i++) {
    const { stdout } = await run(tsx, [path.join(here, '_detect-once.ts')], { cwd: path.join(here, '..') });
    samples.push(JSON.parse(stdout.trim().split('\n').pop() as string));
  }
  const total = median(samples.map((s) => s.totalMs));
  reportFigure({
    id: 'hardware-detect-cold-ms',
    label: 'Hardware detection, cold (fresh process: module load + detection), median of 5',
    value: total,
    unit: 'ms',
    goal: '< 1500 ms',
    ok: total < 1500,
    note: `detection alone ${Math.round(median(samples.map((s) => s.detectionMs)))} ms; ${samples[0].gpus} GPU(s); samples ${samples.map((s) => Math.round(s.totalMs)).join(', ')} ms`,
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
