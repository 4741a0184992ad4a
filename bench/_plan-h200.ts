// Helper (not a bench: `_` prefix): the H200 machine file's plan with its measurements and the sample's calibration.
import fs from 'node:fs';
import { buildProfile, calibrationTable, fitCalibration, normalizeMeasurements, planWorkload, sampleFromRun } from '../electron/services/tuner';
const machine = JSON.parse(fs.readFileSync('tests/fixtures/hosts/h200-sxm-x86/machine.json', 'utf8'));
const measurements = JSON.parse(fs.readFileSync('tests/fixtures/hosts/h200-sxm-x86/native-measure.json', 'utf8'));
const runs = JSON.parse(fs.readFileSync('resources/samples/h200-llama-3.2-3b.runs.json', 'utf8')).runs;
const profile = buildProfile(machine, 'file', normalizeMeasurements(measurements));
const samples = runs.map((r: any) => sampleFromRun({ runId: r.run.id, strategy: r.run.strategy, stepSeconds: r.run.step_seconds, spec: r.details.spec, config: r.details.config }, profile)).filter(Boolean);
const calibrate = !process.argv.includes('--uncalibrated');
const fit = fitCalibration(samples);
const [model, seq, micro] = [process.argv[2] ?? 'llama-3.2-3b', Number(process.argv[3] ?? 2048), Number(process.argv[4] ?? 4)];
const t0 = performance.now();
const p = planWorkload({ model, seqLen: seq, microBatch: micro, gpus: 1 }, { machine, machineSource: 'file', measurements, calibration: calibrate ? calibrationTable(fit) : undefined });
console.log(`planned in ${(performance.now() - t0).toFixed(0)} ms; ${calibrate ? 'calibrated' : 'uncalibrated'}`);
for (const s of p.strategies) {
  const sp = s.spec;
  console.log(`${s.id.padEnd(20)} ${s.fits ? 'fits' : 'no  '} row micro ${micro}: ${s.predicted.stepSeconds.toFixed(2)} s ${s.predicted.tflopsPerGpu.toFixed(0)} TFLOPS, GPU ${(s.memory.gpuBytes / 2 ** 30).toFixed(1)} host ${(s.memory.hostBytes / 2 ** 30).toFixed(1)} GiB | best: micro ${sp.microBatch} ${sp.prediction ? sp.prediction.tflopsPerGpu.toFixed(0) : '-'} TFLOPS ${JSON.stringify(sp.knobs)}`);
}
const r = p.recommended;
if (r) {
  console.log(`recommended: ${r.strategyId} micro ${r.microBatch} — ${r.reason}`);
  for (const k of r.knobReasons) console.log(`  · ${k}`);
  console.log(`runner-up: ${r.runnerUp?.strategyId} — ${r.runnerUp?.reason}`);
} else console.log('recommended: none');
