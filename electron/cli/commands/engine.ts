// `run`: a sweep of strategies × repeats through the same backend channel the app uses
// (runs/start), progress streamed as it comes, every run stored in history.
// Ctrl-C cancels gracefully (the run is recorded cancelled); a second Ctrl-C forces.
import fs from 'node:fs';
import path from 'node:path';
import { workloadDefaultsFor, type EventOf, type RequestOf, type ResponseOf } from '../../contract';
import { readRegularText } from '../../services/files';
import type { Command, CommandContext } from '../command';
import { formatBytes, formatDuration, formatFigureCli, terminalSafe } from '../format';
import { INPUT_LIMITS, modelFlagPath } from '../user-files';
import { userConfigStartRequest } from './user-config';
import { liveLine } from '../resources-format';
import { countFlag, wholeFlag } from '../flag-values';
import { readWorkloadFlags, workloadHelp, workloadSynopsis } from '../workload-flags';
import { onInterrupt, UsageError } from '../../kernel';

type WorkloadDefaults = ReturnType<typeof workloadDefaultsFor>;

const USAGE = `usage: npm run cli -- run --specs DIR|spec.json [--steps N] [--warmup N] [--repeats N] …
   or: npm run cli -- run --model ID|config.json --strategy ID[,ID…]
  ${workloadSynopsis('run')}
  [--steps N] [--warmup N] [--repeats N]
  [--max-seconds S] [--python PATH] [--force] [--watch] [--slurm TARGET] [--data-dir D] [--json]
--slurm TARGET runs each spec as a job of that Slurm target (cluster save with "kind": "slurm"):
one sbatch script per run on the target's work folder, followed to its end; Ctrl-C is scancel.
--watch prints the machine's lanes once a second while a run runs (GPU %, memory, PCIe, CPU cores busy).
--steps counts measured steps; warm-up steps come on top.
--force runs a strategy that needs a GPU on this machine's CPU all the same (ZeRO without offload on
DeepSpeed's CPU accelerator: CPU figures, no prediction); without it such a strategy is refused.
--specs runs RunSpecs unchanged (plan --write-specs DIR writes them); --model/--strategy runs the
plan's spec of each strategy for that workload on this machine (an explicit --micro-batch is kept).
   or: npm run cli -- run --ds-config ds_config.json --model ID|config.json --seq N [--gpus N] [--steps N] …
--ds-config runs your own DeepSpeed config unchanged ("auto" values filled as HF Trainer does; the
stored run keeps the file byte for byte).
${workloadHelp('run')}`;

/** The specs of `--specs`: every *.json of a folder (sorted), or one file. */
function readSpecs(where: string): unknown[] {
  const files = fs.statSync(where).isDirectory()
    ? fs
        .readdirSync(where)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => path.join(where, f))
    : [where];
  if (files.length === 0) throw new UsageError(`--specs ${where}: no *.json spec files there (plan --write-specs DIR writes them)`);
  return files.map((file) => {
    // A *.json there may be anything (a FIFO, a link to a device): read as a bounded regular file.
    const text = readRegularText(file, { label: '--specs', maxBytes: INPUT_LIMITS.spec, field: 'specs' });
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new Error(`--specs ${file}: not JSON (${(error as Error).message})`);
    }
  });
}

/** `defaults`: the workload fields a flag left out (the Plan form's for this machine: workloadDefaultsFor). */
export function buildStartRequest(
  flags: CommandContext['flags'],
  defaults: WorkloadDefaults = workloadDefaultsFor(null),
): RequestOf<'runs/start'> {
  if (typeof flags.specs === 'string') {
    const request: Record<string, unknown> = {
      specs: readSpecs(flags.specs),
      repeats: countFlag(flags, 'repeats', 1),
      steps: countFlag(flags, 'steps', 10),
      warmup: wholeFlag(flags, 'warmup', 3),
    };
    if (typeof flags.python === 'string') request.python = path.resolve(flags.python);
    if (flags['max-seconds'] !== undefined) request.maxSeconds = Number(flags['max-seconds']);
    if (typeof flags.slurm === 'string') request.slurm = flags.slurm;
    return request as RequestOf<'runs/start'>;
  }
  if (typeof flags.model !== 'string' || typeof flags.strategy !== 'string')
    throw new UsageError(`--model and --strategy are required.\n${USAGE}`);
  // A config.json path is resolved here, where the working directory means something.
  const model = modelFlagPath(flags.model);
  // the workload flags (contract workload-options.ts); seq, micro batch and GPUs left out: this machine's defaults
  const workload: Record<string, unknown> = { model, ...readWorkloadFlags(flags, 'run') };
  workload.seqLen ??= defaults.seqLen;
  workload.microBatch ??= defaults.microBatch;
  workload.gpus ??= defaults.gpus;
  // An explicit micro batch runs as given; without one the plan's searched micro batch runs.
  if (flags['micro-batch'] !== undefined) workload.searchMicroBatch = false;
  const request: Record<string, unknown> = {
    workload,
    strategies: flags.strategy
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    repeats: countFlag(flags, 'repeats', 1),
    steps: countFlag(flags, 'steps', 10),
    warmup: wholeFlag(flags, 'warmup', 3),
  };
  if (typeof flags.python === 'string') request.python = path.resolve(flags.python);
  if (flags['max-seconds'] !== undefined) request.maxSeconds = Number(flags['max-seconds']);
  if (flags.force === true) request.force = true;
  if (typeof flags.slurm === 'string') request.slurm = flags.slurm;
  return request as RequestOf<'runs/start'>;
}

/**
 * The workload defaults `run` and `tune` take for a flag left out: the Plan form's and `plan`'s for this
 * machine (contract workloadDefaultsFor: its GPU count; without a GPU seq 512), from the one place they
 * are kept — `run` once ran seq 2048 on a GPU-less machine where Plan said 512. This machine is detected
 * only when a default is needed.
 */
export async function thisMachineDefaults({ backend, flags }: CommandContext): Promise<WorkloadDefaults> {
  if (flags.specs !== undefined || (flags.seq !== undefined && flags.gpus !== undefined)) return workloadDefaultsFor(null);
  return workloadDefaultsFor(await backend.invoke('hardware/detect', {}));
}

// Tiny CPU smoke runs give figures like 1.5e-5 TFLOPS: the shared formatter keeps three significant digits there.
const figure = (x: number | null | undefined, digits = 2) => formatFigureCli(x, digits);

/** A step's line. Its memory is this run's: the GPU peak, else the runner's resident set ("run RSS") —
 *  not the machine's memory in use, which the [resources] lines say ("machine RAM used"): two words for two figures. */
export function progressLine(e: EventOf<'runs/progress'>): string {
  const where = `[${e.runIndex + 1}/${e.runCount} ${e.strategy}${e.repeatIndex ? ` #${e.repeatIndex + 1}` : ''}]`;
  const memory = e.gpuPeakBytes !== null ? `gpu peak ${formatBytes(e.gpuPeakBytes)}` : `run RSS ${formatBytes(e.hostRssBytes)}`;
  return `${where} step ${e.step}/${e.total}${e.warmup ? ' (warm-up)' : ''}  ${figure(e.stepSeconds, 3)} s  ${figure(e.tflopsPerGpu)} TFLOPS/GPU  ${figure(e.tokensPerSecond, 0)} tok/s  loss ${figure(e.loss, 4)}  ${memory}  ETA ${formatDuration(e.etaSeconds)}`;
}

function statusLine(e: EventOf<'runs/status'>): string {
  const where = `[${e.runIndex + 1}/${e.runCount} ${e.strategy}${e.repeatIndex ? ` #${e.repeatIndex + 1}` : ''}]`;
  if (e.phase === 'started') return `${where} ${e.runId} started`;
  if (e.status === 'completed')
    return `${where} ${e.runId} completed: ${figure(e.tflopsPerGpu)} TFLOPS/GPU, ${figure(e.stepSeconds, 3)} s/step (median)`;
  return `${where} ${e.runId} ${e.status}${e.errorClass ? ` (${e.errorClass})` : ''}: ${e.message ?? ''}${e.fix ? `\n  fix: ${e.fix}` : ''}`;
}

/** What `run --json` prints per run. */
function runJson(d: ResponseOf<'runs/get'>) {
  const s = d.summary;
  const result = (d.result ?? null) as Record<string, unknown> | null;
  return {
    id: s.id,
    sweepId: s.sweepId,
    status: s.status,
    model: s.model,
    strategy: s.strategy,
    repeatIndex: s.repeatIndex,
    errorClass: s.errorClass,
    message: s.errorMessage,
    fix: d.errorFix,
    ...(d.job ? { job: d.job } : {}),
    result:
      s.status === 'completed'
        ? {
            engine: s.engine,
            steps: d.steps,
            warmup: d.warmup,
            measuredSteps: result?.measuredSteps ?? null,
            tflopsPerGpu: s.tflopsPerGpu,
            tokensPerSecond: s.tokensPerSecond,
            stepSeconds: s.stepSeconds,
            memory: { peakGpuBytes: s.peakGpuBytes, peakHostBytes: s.peakHostBytes },
            lossFirst: result?.lossFirst ?? null,
            lossLast: result?.lossLast ?? null,
          }
        : null,
    samples: d.samples.length,
    logPath: d.logPath,
  };
}

export const engineCommands: Record<string, Command> = {
  run: {
    summary: 'benchmark strategies on this machine (--model, --strategy a,b, --steps, --repeats); stored in history',
    async run(context) {
      const { backend, flags, json, out } = context;
      if (flags.help === true) {
        out(USAGE);
        return 0;
      }
      // `run` takes flags only: a stray word is a mistake, not something to run past (`--activation-
      // checkpointing 2` left '2' behind and a real run started with checkpointing on).
      if (context.positionals.length)
        throw new UsageError(
          `run takes no arguments besides flags: '${context.positionals[0]}' (--activation-checkpointing takes true or false)\n${USAGE}`,
        );
      const request =
        flags['ds-config'] !== undefined
          ? await userConfigStartRequest(context, {
              repeats: countFlag(flags, 'repeats'),
              steps: countFlag(flags, 'steps'),
              warmup: wholeFlag(flags, 'warmup'),
              python: typeof flags.python === 'string' ? path.resolve(flags.python) : undefined,
              maxSeconds: flags['max-seconds'] !== undefined ? Number(flags['max-seconds']) : undefined,
            })
          : buildStartRequest(flags, await thisMachineDefaults(context));
      // With --json, stdout carries only the final JSON: progress goes to stderr.
      const say = json ? (line: string) => process.stderr.write(terminalSafe(line) + '\n') : out;
      const unsubscribe = [
        backend.on('app/notice', (e) => say(`${e.level}: ${e.message}`)),
        backend.on('runs/progress', (e) => say(progressLine(e))),
      ];
      // --watch: the machine's lanes once a second (GPU %, memory, PCIe, CPU cores busy).
      if (flags.watch === true) unsubscribe.push(backend.on('runs/resources-live', (e) => say(liveLine(e))));
      // The CLI's backend is its own: every sweep event is this command's.
      const finished = new Promise<void>((resolve) => {
        unsubscribe.push(
          backend.on('runs/status', (e) => {
            say(statusLine(e));
            if (e.sweepDone) resolve();
          }),
        );
      });

      let sweepId: string | null = null;
      let interrupts = 0;
      const offInterrupt = onInterrupt((press) => {
        interrupts = press;
        if (!sweepId) return;
        say(press === 1 ? 'cancelling… (Ctrl-C again to stop at once)' : 'stopping now');
        void backend.invoke('runs/cancel', { sweepId, force: press > 1 });
      });
      try {
        const started = await backend.invoke('runs/start', request);
        sweepId = started.sweepId;
        say(`sweep ${sweepId}: ${started.runIds.length} run(s)`);
        if (interrupts) void backend.invoke('runs/cancel', { sweepId });
        await finished;
        const runs = await Promise.all(started.runIds.map((id) => backend.invoke('runs/get', { id, logLines: 0 })));
        if (json) out(JSON.stringify(runs.map(runJson), null, 2));
        else for (const r of runs) if (r.summary.status !== 'completed' && r.logPath) out(`log of ${r.summary.id}: ${r.logPath}`);
        if (runs.some((r) => r.summary.status === 'failed' || r.summary.status === 'interrupted')) return 1;
        if (runs.some((r) => r.summary.status === 'cancelled')) return 130;
        return 0;
      } finally {
        offInterrupt();
        for (const u of unsubscribe) u();
      }
    },
  },
};
