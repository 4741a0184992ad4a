// Writes the RunSpecs of a device sweep, made by the app's own tuner, one file per run:
//
//   npx tsx scripts/device-specs.ts bench/device/h200-llama-3.2-3b.grid.json OUT_DIR
//
// Each grid entry = strategy + micro batch (+ knobs pinned, + repeat number). The tuner plans the
// workload for the grid's machine file with that machine's measurements (never this host's),
// then the strategy's spec is rebuilt with the pinned knobs. Pinned knobs get the model's
// prediction for exactly them (specForKnobs: uncalibrated, like the grid's plan), so the runner's
// pre-flight checks the plan's host figure (without one it fell back to its own estimate, which then
// counted the whole optimizer and refused Llama-3.1-8B at ratio 0.5 on the H200). scripts/device-run-specs.sh
// feeds the files, unchanged, to resources/engine/bench.py on the device.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { KnobsSchema } from '../electron/contract';
import { computePlan, parseMachine, specForKnobs } from '../electron/services/tuner';

const GridSchema = z.object({
  machine: z.string(),
  measurements: z.string().optional(),
  workload: z.record(z.string(), z.unknown()),
  steps: z.number().int().positive(),
  warmup: z.number().int().nonnegative(),
  runs: z.array(
    z.object({
      strategy: z.string(),
      microBatch: z.number().int().positive(),
      knobs: KnobsSchema.optional(),
      repeat: z.number().int().positive().default(1),
    }),
  ),
});

function same(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
}

async function main() {
  const [gridFile, outDir] = process.argv.slice(2);
  if (!gridFile || !outDir) throw new Error('usage: npx tsx scripts/device-specs.ts GRID.json OUT_DIR');
  const grid = GridSchema.parse(JSON.parse(fs.readFileSync(gridFile, 'utf8')));
  const machine = parseMachine(JSON.parse(fs.readFileSync(grid.machine, 'utf8')), grid.machine);
  const measurements = grid.measurements ? JSON.parse(fs.readFileSync(grid.measurements, 'utf8')) : undefined;
  fs.mkdirSync(outDir, { recursive: true });
  const index: unknown[] = [];
  for (const [i, run] of grid.runs.entries()) {
    const workload = { ...grid.workload, microBatch: run.microBatch, searchMicroBatch: false } as never;
    const plan = await computePlan({ workload, machine, measurements, detect: async () => machine });
    const planned = plan.strategies.find((s) => s.id === run.strategy);
    if (!planned) throw new Error(`${gridFile}: runs[${i}].strategy '${run.strategy}' is not a strategy`);
    // A configuration the model says does not fit is written too: a boundary probe is how a
    // wrong "does not fit" is found; the runner records an OOM as a result.
    if (!planned.fits)
      console.warn(
        `device-specs: runs[${i}] ${run.strategy} at micro ${run.microBatch}: the plan says it does not fit (${planned.reason ?? 'no reason'}) — written as a boundary probe`,
      );
    const knobs = { ...planned.spec.knobs, ...(run.knobs ?? {}) };
    const pinned = !planned.fits || !same(knobs, planned.spec.knobs) || planned.spec.microBatch !== run.microBatch;
    const pinnedSpec = pinned ? specForKnobs(plan, run.strategy, knobs) : null;
    if (pinnedSpec?.doesNotFit)
      console.warn(
        `device-specs: runs[${i}] ${run.strategy} micro ${run.microBatch} ${JSON.stringify(run.knobs ?? {})}: the model says it does not fit (${pinnedSpec.doesNotFit}) — written anyway, to measure where the limit is`,
      );
    const spec = pinnedSpec?.spec ?? planned.spec;
    const name = `${String(i + 1).padStart(2, '0')}-${run.strategy}-mb${run.microBatch}${run.knobs?.ratio !== undefined ? `-r${run.knobs.ratio}` : ''}${run.knobs?.cpuadamCoresPerc !== undefined ? `-c${run.knobs.cpuadamCoresPerc}` : ''}-rep${run.repeat}`;
    const file = path.join(outDir, `${name}.json`);
    // A probe past the model's limit runs with a warning-only pre-flight: the machine, not the model
    // being tested, says whether it fits (an OOM is recorded as a boundary point).
    const probe = !planned.fits || Boolean(pinnedSpec?.doesNotFit);
    fs.writeFileSync(
      file,
      JSON.stringify(
        { ...spec, runId: name, warmup: grid.warmup, steps: grid.steps + grid.warmup, ...(probe ? { preflight: 'warn' } : {}) },
        null,
        2,
      ) + '\n',
    );
    index.push({
      file: path.basename(file),
      strategy: run.strategy,
      microBatch: run.microBatch,
      knobs,
      repeat: run.repeat,
      configHash: spec.configHash,
      predicted: spec.prediction?.tflopsPerGpu ?? null,
    });
  }
  fs.writeFileSync(path.join(outDir, 'index.json'), JSON.stringify({ grid: gridFile, machine: grid.machine, runs: index }, null, 2) + '\n');
  console.log(`wrote ${index.length} specs to ${outDir}`);
}

main().catch((error) => {
  console.error(`device-specs: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
