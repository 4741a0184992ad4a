// A model the tuner has never seen, on a GPU host: what `plan` said before any run of it against what `tune`'s
// trials measured (scripts/device-unseen-lease.sh writes the files, one folder per lease):
//
//   npx tsx bench/unseen-compare.ts WORK_DIR [NAME ...]      (NAME: e.g. gemma-2-2b-s4096; default: every *.DONE)
//
// The plan before is the test prediction: the model had no run anywhere when it was made (its runs are not in
// resources/samples, and the plan ran before the trials). A trial at the plan's own micro batch is compared with the
// plan's figures; a trial at another micro batch (tune's second and later trials, planned after refits on the
// earlier ones) is compared with the prediction tune stored in its spec, and labelled so: that one is not a test
// figure, its model saw the earlier trials.
import fs from 'node:fs';
import path from 'node:path';
import { PlanResultSchema } from '../electron/contract';

interface ExportedRun {
  run: {
    id: string;
    strategy: string;
    status: string;
    error_class: string | null;
    step_seconds: number | null;
    peak_gpu_bytes: number | null;
    micro_batch: number;
  };
  details: { spec?: { microBatch?: number; prediction?: { stepSeconds?: number; gpuAllocatedBytes?: number; gpuBytes?: number } } };
}

const GiB = 2 ** 30;
const [dir, ...names] = process.argv.slice(2);
if (!dir) {
  console.error('usage: npx tsx bench/unseen-compare.ts WORK_DIR [NAME ...]');
  process.exit(2);
}
const all = names.length
  ? names
  : fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.DONE'))
      .map((f) => f.slice(0, -'.DONE'.length));
const pct = (predicted: number, measured: number) => `${predicted >= measured ? '+' : ''}${((predicted / measured - 1) * 100).toFixed(1)}%`;
const testErrors: number[] = [];
let verdictsTested = 0;
let verdictsWrong = 0;

for (const name of all) {
  const planFile = path.join(dir, `${name}-plan-before.json`);
  const runsFile = path.join(dir, `${name}.runs.json`);
  if (!fs.existsSync(planFile)) {
    console.log(`${name}: no plan (${planFile})`);
    continue;
  }
  const plan = PlanResultSchema.parse(JSON.parse(fs.readFileSync(planFile, 'utf8')));
  const runs: ExportedRun[] = fs.existsSync(runsFile)
    ? (JSON.parse(fs.readFileSync(runsFile, 'utf8')) as { runs: ExportedRun[] }).runs
    : [];
  const kernels =
    plan.kernels?.source === 'probe' ? 'the workload kernel probe' : `catalogue constants (${plan.kernels?.source ?? 'none'})`;
  console.log(`\n${name} on ${plan.profile.machineLabel}: ${plan.params.toLocaleString('en')} params; step times from ${kernels}`);
  console.log(`  recommended: ${plan.recommended ? `${plan.recommended.strategyId}` : 'none'}`);
  console.log('  strategy                micro  verdict      predicted s  measured s  error     peak GiB pred/meas   outcome   source');
  for (const r of runs) {
    const micro = r.details.spec?.microBatch ?? r.run.micro_batch;
    const s = plan.strategies.find((x) => x.id === r.run.strategy);
    const atPlan = s && s.spec.microBatch === micro;
    const predictedStep = atPlan ? s.predicted.stepSeconds : r.details.spec?.prediction?.stepSeconds;
    const predictedPeak = atPlan ? s.memory.gpuAllocatedBytes : r.details.spec?.prediction?.gpuAllocatedBytes;
    const verdict = atPlan ? (s.fit?.verdict ?? (s.fits ? 'fits' : 'does-not-fit')) : '(tune)';
    const measured = r.run.status === 'completed' ? r.run.step_seconds : null;
    const outcome = r.run.status === 'completed' ? 'ran' : (r.run.error_class ?? r.run.status);
    const error = predictedStep && measured ? pct(predictedStep, measured) : '-';
    if (atPlan && predictedStep && measured) testErrors.push(predictedStep / measured - 1);
    if (atPlan && verdict !== 'edge') {
      verdictsTested++;
      const oom = outcome === 'cuda_oom' || outcome === 'host_oom';
      if ((verdict === 'fits') === oom) verdictsWrong++;
    }
    const peaks = `${predictedPeak ? (predictedPeak / GiB).toFixed(1) : '-'}/${r.run.peak_gpu_bytes ? (r.run.peak_gpu_bytes / GiB).toFixed(1) : '-'}`;
    console.log(
      `  ${r.run.strategy.padEnd(22)} ${String(micro).padStart(5)}  ${verdict.padEnd(12)} ${(predictedStep?.toFixed(3) ?? '-').padStart(11)} ` +
        `${(measured?.toFixed(3) ?? '-').padStart(11)}  ${error.padEnd(8)}  ${peaks.padStart(18)}   ${outcome.padEnd(8)}  ${atPlan ? 'plan before (test)' : "tune's own (after refits)"}`,
    );
  }
  if (!runs.length) console.log('  (no trial runs)');
}
if (testErrors.length) {
  const rms = Math.sqrt(testErrors.reduce((a, e) => a + e * e, 0) / testErrors.length);
  const worst = Math.max(...testErrors.map(Math.abs));
  console.log(
    `\ntest figures (plan before any run of the model, trials at the plan's micro batch): ${testErrors.length} runs, step time RMS ${(rms * 100).toFixed(1)}%, worst ${(worst * 100).toFixed(1)}%; verdicts fits/does-not-fit tested ${verdictsTested}, wrong ${verdictsWrong}`,
  );
}
