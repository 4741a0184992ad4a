// The ds_config corpus (tests/fixtures/ds-configs, sources.json beside it) through the app in one
// process: each config read, planned and exported for the spec's workload (tiny-llama, seq 64, the
// flags sources.json gives), planned for the 1×H200 fixture host (so a tuned alternative exists) and
// checked against the rule for this kind of machine without a GPU (what would be refused up front).
// The unit test reads the result; tests/engine/test_ds_config_corpus.py runs this file with tsx
// (`tsx tests/helpers/ds-config-corpus.ts OUT`), then trains each exported config that runs on a
// CPU for two steps in one Python process.
import fs from 'node:fs';
import path from 'node:path';
import { ApiError, MachineSchema, type Machine, type RunSpec, type UserConfigPlan } from '../../electron/contract';
import { createTunerPlanner } from '../../electron/services/backend/tuner-planner';
import { launchExport } from '../../electron/contract';
import { planUserConfig } from '../../electron/services/tuner';
import { h200Machine, h200Measurements } from '../unit/tuner/h200-machine';

export const CORPUS = path.resolve(import.meta.dirname, '..', 'fixtures', 'ds-configs');

export interface CorpusSource {
  source: string;
  url: string;
  workload?: Record<string, unknown>;
  refusedKey?: string;
}

export function corpusSources(): Record<string, CorpusSource> {
  return (JSON.parse(fs.readFileSync(path.join(CORPUS, 'sources.json'), 'utf8')) as { configs: Record<string, CorpusSource> }).configs;
}

/** The H200 fixture host without its GPU, as detect reports a VM without a driver (this CI machine's kind). */
export function noGpuMachine(): Machine {
  return MachineSchema.parse({ ...h200Machine(), gpus: [], gpuStatus: { driver: 'none', message: 'no NVIDIA driver found' } });
}

export type CorpusResult =
  | { name: string; refused: ApiError }
  | { name: string; plan: UserConfigPlan; yours: RunSpec; tuned: RunSpec | null; cpuRefusal: string | null };

export function planCorpusConfig(name: string, src: CorpusSource): CorpusResult {
  const text = fs.readFileSync(path.join(CORPUS, name), 'utf8');
  const input = { config: { fileName: name, text }, workload: { model: 'tiny-llama', seqLen: 64, ...src.workload } };
  let plan: UserConfigPlan;
  try {
    plan = planUserConfig(input, { machine: h200Machine(), machineSource: 'file', measurements: h200Measurements(), steps: 2 });
  } catch (error) {
    if (error instanceof ApiError) return { name, refused: error };
    throw error;
  }
  // the same config planned for a machine without a GPU, and the up-front rule run --ds-config meets there
  const here = planUserConfig(input, { machine: noGpuMachine(), machineSource: 'detected', steps: 2 });
  let cpuRefusal: string | null = null;
  try {
    createTunerPlanner().refuseSpecs!([here.spec], noGpuMachine());
  } catch (error) {
    cpuRefusal = (error as Error).message;
  }
  return { name, plan, yours: here.spec, tuned: plan.tuned?.spec ?? null, cpuRefusal };
}

/** Writes OUT/<name>/{yours,tuned}/{ds_config.json,spec.json} and prints one JSON summary line per config. */
function main(out: string): void {
  const summary = [];
  for (const [name, src] of Object.entries(corpusSources())) {
    const r = planCorpusConfig(name, src);
    if ('refused' in r) {
      summary.push({ name, refused: { field: r.refused.field, message: r.refused.message } });
      continue;
    }
    const written: Record<string, string> = {};
    for (const [kind, spec] of [
      ['yours', r.yours],
      ['tuned', r.tuned],
    ] as const) {
      if (!spec) continue;
      const dir = path.join(out, name.replace(/\.json$/, ''), kind);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'ds_config.json'), launchExport(spec).dsConfigJson);
      fs.writeFileSync(path.join(dir, 'spec.json'), JSON.stringify(spec, null, 2) + '\n');
      written[kind] = dir;
    }
    summary.push({ name, strategy: r.plan.mapping.strategyId, cpuRefusal: r.cpuRefusal, ...written });
  }
  process.stdout.write(JSON.stringify(summary) + '\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) main(process.argv[2]);
