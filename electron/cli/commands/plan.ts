// `plan`: every strategy for a workload on this machine (or a saved/catalogued one): fits,
// memory, predicted step time and TFLOPS, the recommendation; --write-configs writes each config,
// --write-specs each strategy's RunSpec (what runs/start and `bench.py --spec` run unchanged).
import fs from 'node:fs';
import path from 'node:path';
import { workloadDefaultsFor, worldSize, type ModelArch, type PlanResult, type WorkloadOverrides } from '../../contract';
import { UsageError } from '../../kernel';
import { readRegularText } from '../../services/files';
import { parseMachine } from '../../services/tuner';
import type { Command, CommandContext } from '../command';
import { hasPrediction, NO_PREDICTION } from '../../contract/format';
import { formatBytes, formatFigureCli } from '../format';
import { INPUT_LIMITS } from '../user-files';
import { strategyLabel, verdictWords } from '../../contract/charts/labels';
import { rowPrediction } from '../../contract/charts/plan-charts';
import { exportUserConfig, printUserConfigPlan, userConfigRequest } from './user-config';
import { countFlag, wholeFlag } from '../flag-values';
import { readWorkloadFlags, workloadHelp, workloadSynopsis } from '../workload-flags';

const USAGE = `plan --model <preset|path/to/config.json> ${workloadSynopsis('plan')} [--scenario id] [--machine detect.json | --slurm TARGET] [--write-configs DIR] [--write-specs DIR] [--steps N] [--warmup N] [--all-strategies] [--json]
   or: plan --ds-config ds_config.json --model <preset|config.json> --seq N [workload flags] [--machine detect.json] [--export DIR] [--json]  (your own DeepSpeed config: "auto" values filled as HF Trainer does, verdict, prediction, the tuned keys to change; --export writes ds_config.json, accelerate_config.yaml and launch lines for yours and the tuned one)
${workloadHelp('plan')}`;

export async function modelFlag({ backend, flags }: CommandContext): Promise<string | ModelArch | undefined> {
  const v = flags.model;
  if (v === undefined) return undefined;
  if (typeof v !== 'string')
    throw Object.assign(new UsageError('--model needs a preset id or a path to a config.json'), { field: 'model' });
  if (!v.endsWith('.json') && !fs.existsSync(v)) return v; // a preset id; the tuner names unknown ones
  // The CLI made the path absolute in the user's folder and checked it exists (cli/paths.ts).
  const file = fs.statSync(v).isDirectory() ? path.join(v, 'config.json') : v;
  if (!fs.existsSync(file))
    throw Object.assign(
      new UsageError(`--model ${v}: a folder without a config.json (give the config.json, or a Hugging Face model folder holding one)`),
      { field: 'model' },
    );
  const dir = path.basename(path.dirname(path.resolve(file)));
  const id = path.basename(file) === 'config.json' ? dir : path.basename(file, '.json');
  return backend.invoke('plan/import-hf-config', {
    text: readRegularText(file, { label: '--model', maxBytes: INPUT_LIMITS.modelConfig }),
    id,
  });
}

/** Whose plan this is, in the Plan page's words: only a plan for this machine runs here. */
export const PLANNED_FOR: Record<PlanResult['profile']['machineSource'], string> = {
  detected: 'this machine',
  file: 'a loaded file, not this machine: its plan does not run here',
  catalogued: 'a catalogued machine, not this machine: its plan does not run here',
};

function printPlan(plan: PlanResult, out: (s: string) => void): void {
  const w = plan.workload;
  const modelName = typeof w.model === 'string' ? w.model : w.model.id;
  out(
    `${plan.model.label} — ${plan.params.toLocaleString('en-US')} parameters (largest layer ${plan.largestLayerParams.toLocaleString('en-US')})`,
  );
  out(
    `workload: seq ${w.seqLen}, micro ${w.microBatch} × accumulation ${w.gradAccum} × ${w.gpus} GPU(s) × ${w.nodes} node(s), ${w.precision}, checkpointing ${w.activationCheckpointing ? 'on' : 'off'} [${modelName}]`,
  );
  // Without a GPU the profile's matmul rate is 0: no figure, not "matmul 0 TFLOPS".
  const matmul = plan.profile.matmulTflops > 0 ? `${formatFigureCli(plan.profile.matmulTflops, 0)} TFLOPS` : '— (no GPU)';
  out(
    `machine: ${plan.profile.machineLabel} (${PLANNED_FOR[plan.profile.machineSource]}); matmul ${matmul}, host link ${formatFigureCli(plan.profile.hostLinkBytesPerSecond / 1e9, 0)} GB/s`,
  );
  out('');
  // The Plan page's table, row for row: one display name per strategy (the id beside it), the verdict in
  // its words (fits / at the edge / does not fit), memory as the fit check saw it (the form's micro
  // batch), then the micro batch each runs with and its predicted speed there (rowPrediction) — once
  // this printed the form's micro 1 figures beside a recommendation at micro 9. A strategy that does
  // not fit has no speed: "—"; nor a CPU smoke run (no prediction).
  const verdictWidth = Math.max(7, ...plan.strategies.map((s) => verdictWords(s, plan.profile.gpuCount).length));
  // the Plan page's cells: no GPU here has no GPU memory to predict, and no NVMe used is "—", not 0 B
  const gpuCell = (bytes: number) => (plan.profile.gpuCount === 0 ? NO_PREDICTION : formatBytes(bytes));
  out(
    `${'strategy'.padEnd(43)} ${'verdict'.padEnd(verdictWidth)} ${'GPU/GPU'.padStart(10)} ${'host/node'.padStart(10)} ${'NVMe'.padStart(10)} ${'micro'.padStart(5)} ${'step s'.padStart(8)} ${'TFLOPS/GPU'.padStart(10)}  why`,
  );
  for (const s of plan.strategies) {
    const p = rowPrediction(s);
    const speed = s.fits && hasPrediction(p);
    out(
      `${`${strategyLabel(s.id)} (${s.id})`.padEnd(43)} ${verdictWords(s, plan.profile.gpuCount).padEnd(verdictWidth)} ${gpuCell(s.memory.gpuBytes).padStart(10)} ${formatBytes(s.memory.hostBytes).padStart(10)} ${(s.memory.nvmeBytes ? formatBytes(s.memory.nvmeBytes) : '—').padStart(10)} ${String(s.spec.microBatch).padStart(5)} ${(speed ? formatFigureCli(p.stepSeconds, 2) : '—').padStart(8)} ${(speed ? formatFigureCli(p.tflopsPerGpu) : '—').padStart(10)}  ${s.reason}`,
    );
  }
  out(
    `  memory at the form's micro batch ${w.microBatch} (what the verdict checks); step s and TFLOPS/GPU at the micro batch each runs with (micro), as the Plan page shows`,
  );
  out('');
  const r = plan.recommended;
  if (!r) out('recommended: none — no strategy fits this machine.');
  else {
    out(
      `recommended: ${strategyLabel(r.strategyId)} (${r.strategyId}, micro batch ${r.microBatch}${r.cpuadamCoresPerc !== null ? `, cpuadam_cores_perc ${r.cpuadamCoresPerc}` : ''}) — ${r.reason}`,
    );
    // A CPU smoke run has no prediction: say so, not "0 TFLOPS, 0 tokens/s".
    if (hasPrediction(r.predicted))
      out(
        `  aggregate ${formatFigureCli(r.predicted.tflopsAggregate, 0)} TFLOPS over ${worldSize(w)} GPU(s), ${formatFigureCli(r.predicted.tokensPerSecond, 0)} tokens/s`,
      );
    else out('  no prediction (CPU run): it checks the engine end to end; its figures say nothing about a GPU');
    for (const why of r.knobReasons ?? []) out(`  · ${why}`);
    if (r.runnerUp) out(`runner-up: ${r.runnerUp.strategyId} — ${r.runnerUp.reason}`);
    if (r.edgeTrial)
      out(
        `fastest: one trial to confirm — ${strategyLabel(r.edgeTrial.strategyId)} (${r.edgeTrial.strategyId}) micro ${r.edgeTrial.microBatch}: ${r.edgeTrial.reason}`,
      );
  }
  const warned = plan.strategies.filter((s) => s.warnings.length && (s.fits || s.id === r?.strategyId));
  for (const s of warned) for (const warning of s.warnings) out(`note (${s.id}): ${warning}`);
  // every note --json carries, the assumptions above all (catalogued figures, default rates, a catalogued machine)
  for (const n of plan.notes) out(`note: ${n}`);
  out(`TFLOPS: ${plan.strategies[0]?.predicted.formula ?? ''}`);
}

function writeConfigs(plan: PlanResult, dir: string): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  const manifest = {
    workload: plan.workload,
    params: plan.params,
    largestLayerParams: plan.largestLayerParams,
    strategies: plan.strategies.map((s) => {
      // The config of the strategy's spec: the searched micro batch and knobs, what would run.
      const file = `${s.id}.${s.engine === 'deepspeed' ? 'ds_config' : 'fsdp'}.json`;
      fs.writeFileSync(path.join(dir, file), JSON.stringify(s.spec.dsConfig ?? s.spec.fsdp, null, 2) + '\n');
      written.push(file);
      return {
        id: s.id,
        engine: s.engine,
        file,
        microBatch: s.spec.microBatch,
        configHash: s.spec.configHash,
        valid: s.validation.ok,
        modelStates: s.memory.modelStates,
      };
    }),
  };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return written;
}

/** One `<strategy>.json` RunSpec per strategy (fitting ones only unless `all`), runnable as
 *  `python resources/engine/bench.py --spec DIR/<strategy>.json`; steps/warm-up from the flags. */
export function writeSpecs(plan: PlanResult, dir: string, options: { steps?: number; warmup?: number; all?: boolean } = {}): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const s of plan.strategies) {
    if (!s.fits && !options.all) continue;
    const warmup = options.warmup ?? s.spec.warmup;
    const spec = { ...s.spec, runId: s.id, warmup, steps: options.steps !== undefined ? options.steps + warmup : s.spec.steps };
    const file = `${s.id}.json`;
    fs.writeFileSync(path.join(dir, file), JSON.stringify(spec, null, 2) + '\n');
    written.push(file);
  }
  return written;
}

/** The micro batch of each written spec, in words: one figure when they agree ("micro batch 12 each"). */
function specsMicroBatches(plan: PlanResult, files: string[]): string {
  const micro = plan.strategies.filter((s) => files.includes(`${s.id}.json`)).map((s) => [s.id, s.spec.microBatch] as const);
  const distinct = new Set(micro.map(([, m]) => m));
  if (distinct.size === 1) return `micro batch ${[...distinct][0]} each`;
  return `micro batch: ${micro.map(([id, m]) => `${id} ${m}`).join(', ')} (the search's; give --micro-batch to write them at one)`;
}

export const planCommands: Record<string, Command> = {
  plan: {
    summary: 'plan every strategy for a workload: fits, memory, predicted step time/TFLOPS, recommendation',
    async run(context) {
      const { backend, flags, json, out } = context;
      if (flags.help) {
        out(`usage: npm run cli -- ${USAGE}`);
        return 0;
      }
      if (flags['ds-config'] !== undefined) {
        // the user's own ds_config.json: its verdict and prediction here, and the tuned keys to change
        const result = await backend.invoke('plan/user-config', await userConfigRequest(context, 'plan'));
        if (typeof flags.export === 'string') {
          const files = await exportUserConfig(context, result, flags.export);
          (json ? (line: string) => process.stderr.write(line + '\n') : out)(`wrote ${files.join(', ')} to ${flags.export}`);
        }
        if (json) out(JSON.stringify(result, null, 2));
        else printUserConfigPlan(result, out);
        return 0;
      }
      const scenario = typeof flags.scenario === 'string' ? flags.scenario : undefined;
      const workload: WorkloadOverrides = { model: await modelFlag(context), ...readWorkloadFlags(flags, 'plan') };
      if (workload.model === undefined) delete workload.model;
      if (!scenario && workload.model === undefined)
        throw Object.assign(new UsageError(`--model is required (or --scenario id)\nusage: npm run cli -- ${USAGE}`), { field: 'model' });

      // `machine` is sent only for --machine FILE: this machine is left to the backend to detect, so the
      // plan says it is for this machine ('detected', not 'file') and uses this machine's measurements
      // and calibration (the machine a plan is for is explicit, here too).
      let machine: unknown;
      let defaultsFrom: unknown;
      if (typeof flags.machine === 'string') {
        const text = readRegularText(flags.machine, { label: '--machine', maxBytes: INPUT_LIMITS.machine });
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (error) {
          throw Object.assign(new UsageError(`--machine ${flags.machine}: not JSON (${(error as Error).message})`), { field: 'machine' });
        }
        machine = defaultsFrom = parseMachine(parsed, `--machine ${flags.machine}`);
      } else if (typeof flags.slurm === 'string') {
        // One node of the target's partition as Slurm describes it (cluster detect NAME stored it).
        machine = defaultsFrom = await backend.invoke('slurm/machine', { name: flags.slurm });
      } else if (!scenario) defaultsFrom = await backend.invoke('hardware/detect', {});
      if (!scenario) {
        // the Plan form's defaults for the machine planned for (contract workloadDefaultsFor: its GPU
        // count; without a GPU seq 512), for what is not given
        const defaults = workloadDefaultsFor(defaultsFrom as { gpus: unknown[] });
        workload.seqLen ??= defaults.seqLen;
        workload.microBatch ??= defaults.microBatch;
        workload.gpus ??= defaults.gpus;
      }
      // An explicit micro batch is what the written specs run, as `run --micro-batch` runs it: a device
      // probe written with --micro-batch 12 once ran the search's micro 8, every probe the same run.
      if (flags['micro-batch'] !== undefined && typeof flags['write-specs'] === 'string') workload.searchMicroBatch = false;
      const plan = await backend.invoke('plan/compute', {
        workload,
        scenario,
        ...(machine !== undefined ? { machine: machine as never } : {}),
      });

      if (typeof flags['write-configs'] === 'string') {
        const files = writeConfigs(plan, flags['write-configs']);
        if (!json) out(`wrote ${files.length} configs and manifest.json to ${flags['write-configs']}`);
      }
      if (typeof flags['write-specs'] === 'string') {
        const files = writeSpecs(plan, flags['write-specs'], {
          steps: countFlag(flags, 'steps'),
          warmup: wholeFlag(flags, 'warmup'),
          all: flags['all-strategies'] === true,
        });
        (json ? (line: string) => process.stderr.write(line + '\n') : out)(
          `wrote ${files.length} run spec(s) to ${flags['write-specs']}: ${files.join(', ')} (${specsMicroBatches(plan, files)})`,
        );
      }
      if (json) {
        out(JSON.stringify(plan, null, 2));
        return 0;
      }
      printPlan(plan, out);
      return 0;
    },
  },
};
