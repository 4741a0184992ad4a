// The kernel probe's figures against the catalogue's constants, for one workload (issue 46):
//
//   npx tsx bench/kernel-probe-compare.ts PROBE.json --config CONFIG.json [--runs RUNS.json]
//
// PROBE.json: kernel_probe.py's line (bench/device/kernel-probe.sh keeps one per model). CONFIG.json: the model's
// config.json (counted by transformers in the engine environment, as `plan --model` does); or --runs alone, whose
// runs carry the model in their specs. Prints, per probed micro batch, one micro batch's GPU compute and its
// activation / logit bytes by the catalogue's constants and by the probe. With --runs (an export-runs file of that
// model on that GPU), each completed run's measured step time and peak against the prediction with the
// catalogue's constants and with the probe's figures — uncalibrated both, the mechanism terms the same, the
// machine the runs' own snapshot with the catalogue's figures for its host (its measurements are not in the file).
import fs from 'node:fs';
import { KernelProbeSchema, MachineSchema, type Machine, type ModelArch } from '../electron/contract';
import { chooseInterpreter, importProbedConfig } from '../electron/services/environment';
import {
  buildProfile,
  countParams,
  estimateMemory,
  kernelsForPlan,
  knobsFromConfig,
  parseWorkload,
  predictFrom,
  strategyById,
  withKernels,
} from '../electron/services/tuner';
import { activationBytes } from '../electron/services/tuner/model/memory';
import { microBatchSeconds } from '../electron/services/tuner/model/throughput';
import { h200Machine } from '../tests/unit/tuner/h200-machine';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const probePath = args.find((a, i) => !a.startsWith('--') && (i === 0 || !args[i - 1].startsWith('--')));
if (!probePath) {
  console.error('usage: npx tsx bench/kernel-probe-compare.ts PROBE.json --config CONFIG.json [--runs RUNS.json]');
  process.exit(2);
}
const GiB = 2 ** 30;
const probe = KernelProbeSchema.parse(JSON.parse(fs.readFileSync(probePath, 'utf8').trim().split('\n').pop()!));

interface ExportedRun {
  run: { strategy: string; status: string; step_seconds: number | null; peak_gpu_bytes: number | null; micro_batch: number };
  details: {
    spec?: {
      model?: ModelArch;
      seqLen?: number;
      microBatch?: number;
      gradAccum?: number;
      knobs?: Record<string, unknown>;
      dsConfig?: unknown;
      fsdp?: unknown;
      precision?: string;
    };
    config?: { effectiveConfig?: unknown };
  };
  snapshot?: { body?: unknown };
}
const runs: ExportedRun[] = flag('--runs') ? (JSON.parse(fs.readFileSync(flag('--runs')!, 'utf8')) as { runs: ExportedRun[] }).runs : [];

async function modelOf(): Promise<ModelArch> {
  const fromRuns = runs.find((r) => r.details.spec?.model?.hfConfig)?.details.spec?.model;
  if (fromRuns) return fromRuns;
  const config = flag('--config');
  if (!config) throw new Error('give --config CONFIG.json (or --runs with specs that carry the model)');
  const text = fs.readFileSync(config, 'utf8');
  const raw = JSON.parse(text) as Record<string, unknown>;
  return importProbedConfig(raw, text, 'probed-model', {
    python: chooseInterpreter(null).python,
    dataDir: fs.mkdtempSync('/tmp/kp-compare-'),
  });
}

function machineOf(): Machine {
  const snap = runs.map((r) => MachineSchema.safeParse(r.snapshot?.body)).find((m) => m.success);
  if (snap?.success) return snap.data;
  // no runs: a machine of the probe's GPU (its catalogued figures), the fixture host otherwise
  const base = h200Machine();
  return { ...base, gpus: base.gpus.map((g) => ({ ...g, name: probe.gpuName ?? g.name })) };
}

const model = await modelOf();
const machine = machineOf();
const hw = buildProfile(machine, 'detected', undefined);
const base = {
  model,
  seqLen: probe.seqLen,
  gpus: 1,
  precision: probe.dtype === 'fp32' ? 'bf16' : probe.dtype,
  activationCheckpointing: probe.checkpointing,
};
const first = parseWorkload({ ...base, microBatch: 1 } as never);
const { use, plan } = kernelsForPlan({ probe }, model, first, hw);
if (!use) {
  console.log(`the probe does not describe this workload here: ${plan.source === 'catalogue' ? plan.reason : ''}`);
  process.exit(1);
}
const params = countParams(model);
const probed = withKernels(params, use);
console.log(
  `${probe.arch.architecture} on ${probe.gpuName}, seq ${probe.seqLen}, ${probe.dtype}, checkpointing ${probe.checkpointing}; the plan's machine: ${hw.machineLabel} (matmul ${hw.matmulTflops.toFixed(0)} TFLOPS, ${hw.sources.matmulTflops})`,
);
console.log(
  'micro | compute s: catalogue  probe  probe/catalogue | kept GiB: cat  probe | backward peak GiB: cat  probe | logits GiB: cat  probe',
);
for (const m of probe.micros) {
  const w = parseWorkload({ ...base, microBatch: m.microBatch } as never);
  const cat = microBatchSeconds(params, model, w, hw.matmulTflops);
  const got = microBatchSeconds(probed, model, w, hw.matmulTflops);
  const a = activationBytes(model, w);
  const b = activationBytes(model, w, use);
  console.log(
    `${String(m.microBatch).padStart(5)} | ${cat.toFixed(3).padStart(19)} ${got.toFixed(3).padStart(6)} ${(got / cat).toFixed(2).padStart(16)} | ` +
      `${(a.kept / GiB).toFixed(2).padStart(12)} ${(b.kept / GiB).toFixed(2).padStart(6)} | ${(a.recompute / GiB).toFixed(2).padStart(22)} ${(b.recompute / GiB).toFixed(2).padStart(6)} | ` +
      `${(a.logits / GiB).toFixed(2).padStart(15)} ${(b.logits / GiB).toFixed(2).padStart(6)}`,
  );
}
if (probe.oom) console.log(`probe ran out of memory at micro ${probe.oom.microBatch} (${probe.oom.part})`);

if (runs.length) {
  console.log('\nrun | measured s/step | catalogue (error) | probe (error) | measured peak GiB | catalogue | probe (allocated)');
  for (const r of runs) {
    const spec = r.details.spec;
    if (!spec?.model || !spec.seqLen || !spec.microBatch) continue;
    const s = strategyById(r.run.strategy);
    const w = parseWorkload({ ...base, microBatch: spec.microBatch, gradAccum: spec.gradAccum ?? 1, seqLen: spec.seqLen } as never);
    const knobs = { ...knobsFromConfig(r.details.config?.effectiveConfig ?? spec.dsConfig, spec.fsdp), ...spec.knobs };
    const x = {
      strategy: s,
      model,
      workload: w,
      profile: hw,
      cpuadamCoresPerc: (knobs.cpuadamCoresPerc as number | undefined) ?? 0.9,
      knobs,
    };
    const cat = predictFrom({ ...x, params }).stepSeconds;
    const got = predictFrom({ ...x, params: probed }).stepSeconds;
    const memCat = estimateMemory(s, model, params, w, false, knobs).gpuAllocatedBytes ?? 0;
    const memGot = estimateMemory(s, model, probed, w, false, knobs).gpuAllocatedBytes ?? 0;
    const measured = r.run.step_seconds;
    const err = (p: number) => (measured ? ` (${(((p - measured) / measured) * 100).toFixed(0)}%)` : '');
    console.log(
      `${s.id} micro ${spec.microBatch} ${r.run.status} | ${measured?.toFixed(3) ?? '-'} | ${cat.toFixed(3)}${err(cat)} | ${got.toFixed(3)}${err(got)} | ` +
        `${r.run.peak_gpu_bytes ? (r.run.peak_gpu_bytes / GiB).toFixed(1) : '-'} | ${(memCat / GiB).toFixed(1)} | ${(memGot / GiB).toFixed(1)}`,
    );
  }
}
