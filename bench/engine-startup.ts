// The engine start-up a run costs before its first step, over the bundled GPU sample runs (resources/samples):
// wall time (finished_at − started_at) less (warm-up + measured steps) × the run's step time, completed runs only.
// It is where contract/run-time.ts's ENGINE_START_ASSUMED_SECONDS comes from.
//
//   npx tsx bench/engine-startup.ts
import fs from 'node:fs';
import path from 'node:path';
import { ENGINE_START_ASSUMED_SECONDS } from '../electron/contract';

interface Row {
  run: { status: string; started_at: string | null; finished_at: string | null; steps: number; step_seconds: number | null };
  details: { spec?: { warmup?: number } };
}
const dir = path.resolve(import.meta.dirname, '..', 'resources', 'samples');
const startups: number[] = [];
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.runs.json')))
  for (const r of (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { runs: Row[] }).runs) {
    const { status, started_at, finished_at, steps, step_seconds } = r.run;
    if (status !== 'completed' || !step_seconds || !started_at || !finished_at) continue;
    const wall = (Date.parse(finished_at) - Date.parse(started_at)) / 1000;
    startups.push(wall - (steps + (r.details.spec?.warmup ?? 1)) * step_seconds);
  }
startups.sort((a, b) => a - b);
const at = (q: number) => startups[Math.floor(q * startups.length)];
console.log(
  `engine start-up over ${startups.length} completed sample runs: median ${at(0.5).toFixed(1)} s, middle half ${at(0.25).toFixed(1)}–${at(0.75).toFixed(1)} s; assumed where none measured: ${ENGINE_START_ASSUMED_SECONDS} s`,
);
