// `plan --ds-config FILE` and `run --ds-config FILE`: a user's own ds_config.json planned on this
// machine (verdict, prediction, the tuned alternative as a diff of keys) or run unchanged, and
// `plan --ds-config FILE --export DIR`: what the user's training takes (ds_config.json, an accelerate
// config, the launch lines) for their config and for the tuned one.
import fs from 'node:fs';
import path from 'node:path';
import type { RequestOf, UserConfigPlan, WorkloadOverrides } from '../../contract';
import { globalBatch } from '../../contract';
import { hasPrediction } from '../../contract/format';
import { strategyLabel } from '../../contract/charts/labels';
import { readRegularText } from '../../services/files';
import type { CommandContext } from '../command';
import { formatBytes, formatFigureCli } from '../format';
import { INPUT_LIMITS } from '../user-files';
import { modelFlag, PLANNED_FOR } from './plan';
import { readWorkloadFlags } from '../workload-flags';
import { UsageError } from '../../kernel';

/** The plan/user-config request of the flags: the file as it is, the workload around it. */
export async function userConfigRequest(context: CommandContext, command: 'plan' | 'run'): Promise<RequestOf<'plan/user-config'>> {
  const { flags } = context;
  const file = flags['ds-config'];
  if (typeof file !== 'string') throw Object.assign(new UsageError('--ds-config needs a path to a ds_config.json'), { field: 'ds-config' });
  const text = readRegularText(file, { label: '--ds-config', maxBytes: INPUT_LIMITS.dsConfig, field: 'ds-config' });
  // the workload flags of the command (plan or run: the same ones, contract workload-options.ts)
  const workload: WorkloadOverrides = { model: await modelFlag(context), ...readWorkloadFlags(flags, command) };
  if (workload.model === undefined) delete workload.model;
  if (workload.model === undefined || workload.seqLen === undefined)
    throw Object.assign(new UsageError('--ds-config needs --model and --seq too: the config says how to train, not what'), {
      field: workload.model === undefined ? 'model' : 'seq',
    });
  const request: RequestOf<'plan/user-config'> = { config: { fileName: path.basename(file), text }, workload };
  if (typeof flags.machine === 'string') {
    const machineText = readRegularText(flags.machine, { label: '--machine', maxBytes: INPUT_LIMITS.machine });
    try {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- any JSON: the plan/user-config channel validates the machine
      request.machine = JSON.parse(machineText);
    } catch (error) {
      throw Object.assign(new UsageError(`--machine ${flags.machine}: not JSON (${(error as Error).message})`), { field: 'machine' });
    }
  }
  return request;
}

const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));

export function printUserConfigPlan(r: UserConfigPlan, out: (s: string) => void): void {
  const m = r.mapping;
  out(`${r.fileName} (sha256 ${r.sha256.slice(0, 12)}…) on ${r.plan.profile.machineLabel} (${PLANNED_FOR[r.plan.profile.machineSource]})`); // plan's words, not the source's id
  out(
    `model ${r.plan.model.label}, seq ${r.spec.seqLen}; batch as DeepSpeed derives it: micro ${m.microBatch} × accumulation ${m.gradAccum} × ${m.worldSize} GPU(s) = ${globalBatch(m)}; ${m.precision}`,
  );
  for (const a of r.resolved) out(`  auto  ${a.key} = ${JSON.stringify(a.value)}  (${a.from})`);
  for (const n of m.notes) out(`  ${n.kind.padEnd(20)} ${n.key}: ${n.message}`);
  out('');
  if (!m.strategyId || !r.yours)
    out(`prediction unavailable: ${m.unmodelled ?? 'the config maps to no strategy'}. It still runs unchanged (run --ds-config).`);
  else {
    const y = r.yours;
    out(`your config: ${strategyLabel(m.strategyId)} (${m.strategyId}), knobs ${JSON.stringify(m.knobs)}`);
    out(`  verdict: ${y.fit?.verdict ?? (y.fits ? 'fits' : 'does-not-fit')} — ${y.reason}`);
    out(
      `  memory: GPU ${formatBytes(y.memory.gpuBytes)} per GPU, host ${formatBytes(y.memory.hostBytes)} per node${y.memory.nvmeBytes ? `, NVMe ${formatBytes(y.memory.nvmeBytes)}` : ''}`,
    );
    if (y.fits && hasPrediction(y.predicted))
      out(
        `  predicted: ${formatFigureCli(y.predicted.stepSeconds, 3)} s/step, ${formatFigureCli(y.predicted.tflopsPerGpu)} TFLOPS/GPU, ${formatFigureCli(y.predicted.tokensPerSecond, 0)} tokens/s`,
      );
    else out('  predicted: — (no prediction: it does not fit, or this machine has no GPU)');
  }
  out('');
  const t = r.tuned;
  if (!t) out('tuned alternative: none — no DeepSpeed configuration is predicted to fit here.');
  else {
    out(
      `tuned alternative: ${strategyLabel(t.strategyId)} (${t.strategyId}), micro ${t.microBatch} × accumulation ${t.gradAccum} — ${formatFigureCli(t.predicted.tokensPerSecond, 0)} tokens/s predicted${t.predictedGain ? `, ${formatFigureCli(t.predictedGain, 2)}× yours` : ''}`,
    );
    out('  keys to change (yours → tuned):');
    for (const d of t.diff) out(`    ${d.key}: ${show(d.yours)} → ${show(d.tuned)}`);
  }
  if (r.measured)
    out(
      `measured here: yours ${r.measured.yoursTokensPerSecond ? formatFigureCli(r.measured.yoursTokensPerSecond, 0) : '—'} tokens/s, best other configuration ${r.measured.tunedTokensPerSecond ? formatFigureCli(r.measured.tunedTokensPerSecond, 0) : '—'} tokens/s${r.measured.gain ? ` (${formatFigureCli(r.measured.gain, 2)}×)` : ''} over ${r.measured.runs} run(s)`,
    );
  else out('measured here: nothing yet — `run --ds-config` runs yours, `tune` measures the alternatives.');
}

/** --export DIR: yours/ and tuned/, each with ds_config.json, accelerate_config.yaml, launch.txt and the spec. */
export async function exportUserConfig(context: CommandContext, r: UserConfigPlan, dir: string): Promise<string[]> {
  const written: string[] = [];
  for (const [name, spec] of [
    ['yours', r.spec],
    ['tuned', r.tuned?.spec],
  ] as const) {
    if (!spec) continue;
    const to = path.join(dir, name);
    fs.mkdirSync(to, { recursive: true });
    const e = await context.backend.invoke('plan/launch-export', { spec });
    fs.writeFileSync(path.join(to, 'ds_config.json'), e.dsConfigJson);
    fs.writeFileSync(path.join(to, 'accelerate_config.yaml'), e.accelerateYaml);
    fs.writeFileSync(
      path.join(to, 'launch.txt'),
      [...e.launch.map((l) => `# ${l.launcher}\n${l.line}`), '', ...e.notes.map((n) => `# ${n}`)].join('\n') + '\n',
    );
    fs.writeFileSync(path.join(to, 'spec.json'), JSON.stringify(spec, null, 2) + '\n');
    written.push(`${name}/ds_config.json`, `${name}/accelerate_config.yaml`, `${name}/launch.txt`, `${name}/spec.json`);
  }
  return written;
}

/** `run --ds-config`: the user's config, planned here, run unchanged (runs/start with its spec). */
export async function userConfigStartRequest(
  context: CommandContext,
  execution: { repeats?: number; steps?: number; warmup?: number; python?: string; maxSeconds?: number },
): Promise<RequestOf<'runs/start'>> {
  const r = await context.backend.invoke('plan/user-config', await userConfigRequest(context, 'run'));
  const say = context.json ? (line: string) => process.stderr.write(line + '\n') : context.out;
  say(
    `${r.fileName}: runs as ${r.mapping.strategyId ?? 'custom (not modelled)'} — micro ${r.mapping.microBatch} × accumulation ${r.mapping.gradAccum}${r.yours && hasPrediction(r.yours.predicted) && r.yours.fits ? `, predicted ${formatFigureCli(r.yours.predicted.stepSeconds, 3)} s/step` : ', no prediction'}`,
  );
  const request: Record<string, unknown> = {
    specs: [r.spec],
    ...Object.fromEntries(Object.entries(execution).filter(([, v]) => v !== undefined)),
  };
  return request as RequestOf<'runs/start'>;
}
