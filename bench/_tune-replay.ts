// Helper (not a bench: `_` prefix): replays the tune loop's decisions against the H200 tuned sweep as the
// oracle (measured tokens/s by config hash): which trial it would run, what it would measure, when it stops.
// npx tsx bench/_tune-replay.ts [--offload]  (--offload: offload strategies only)
import fs from 'node:fs';
import { buildProfile, calibrationTable, fitCalibration, normalizeMeasurements, planWorkload, sampleFromRun, tuneCandidates, nextTrial, type TuneTrial } from '../electron/services/tuner';
const machine = JSON.parse(fs.readFileSync('tests/fixtures/hosts/h200-sxm-x86/machine.json', 'utf8'));
const measurements = JSON.parse(fs.readFileSync('tests/fixtures/hosts/h200-sxm-x86/native-measure.json', 'utf8'));
const profile = buildProfile(machine, 'file', normalizeMeasurements(measurements));
const old = JSON.parse(fs.readFileSync('resources/samples/h200-llama-3.2-3b.runs.json', 'utf8')).runs;
const tuned = JSON.parse(fs.readFileSync('resources/samples/h200-llama-3.2-3b-tuned.runs.json', 'utf8')).runs;
const cores = fs.existsSync('resources/samples/h200-llama-3.2-3b-cores.runs.json') ? JSON.parse(fs.readFileSync('resources/samples/h200-llama-3.2-3b-cores.runs.json', 'utf8')).runs : [];
const oracle = new Map<string, number[]>();
for (const r of tuned) { const h = r.details.spec?.configHash; if (h && r.run.tokens_per_second) oracle.set(h, [...(oracle.get(h) ?? []), r.run.tokens_per_second]); }
const offloadOnly = process.argv.includes('--offload');
const best = Math.max(...tuned.filter((r: any) => r.run.tokens_per_second && (!offloadOnly || r.run.strategy !== 'gpu-zero2')).map((r: any) => r.run.tokens_per_second));
console.log('oracle configs', oracle.size, 'best tokens/s', best.toFixed(0));
for (const historyName of ['none', 'first sample', 'every sample']) {
  const pool = historyName === 'every sample' ? [...old, ...tuned, ...cores] : old;
  const samples = historyName === 'none' ? [] : pool.map((r: any) => sampleFromRun({ runId: r.run.id, strategy: r.run.strategy, stepSeconds: r.run.step_seconds, spec: r.details.spec, config: r.details.config }, profile)).filter(Boolean);
  const trials: TuneTrial[] = [];
  for (let i = 0; i < 6; i++) {
    const all = [...samples];
    const cal = all.length >= 2 ? calibrationTable(fitCalibration(all)) : undefined;
    const plan = planWorkload({ model: 'llama-3.2-3b', seqLen: 2048, microBatch: 4, gpus: 1 }, { machine, machineSource: 'file', measurements, calibration: cal });
    const cands = tuneCandidates(plan, process.argv.includes('--offload') ? ['zero2-offload', 'zero3-offload', 'superoffload', 'fsdp2-cpu-offload'] : ['zero2-offload', 'zero3-offload', 'superoffload', 'fsdp2-cpu-offload', 'gpu-zero2']);
    const d = nextTrial(cands, trials);
    if (!d.next) { console.log(historyName, 'stop:', d.reason); break; }
    const m = oracle.get(d.next.key);
    console.log(historyName, 'trial', i + 1, d.next.strategyId, 'micro', d.next.spec.microBatch, JSON.stringify(d.next.spec.knobs), 'predicted', d.next.predictedTokensPerSecond.toFixed(0), 'measured', m ? (m.reduce((a, b) => a + b) / m.length).toFixed(0) : 'NOT IN SWEEP');
    if (!m) break;
    const tps = m.reduce((a, b) => a + b) / m.length;
    trials.push({ key: d.next.key, strategyId: d.next.strategyId, runId: `t${i}`, status: 'completed', tokensPerSecond: tps, tflopsPerGpu: null, stepSeconds: (d.next.spec.seqLen * d.next.spec.microBatch) / tps, seconds: 60 });
    const run = tuned.find((r: any) => r.details.spec?.configHash === d.next!.key);
    const sm = sampleFromRun({ runId: run.run.id, strategy: run.run.strategy, stepSeconds: run.run.step_seconds, spec: run.details.spec, config: run.details.config }, profile);
    if (sm) samples.push(sm);
  }
}
