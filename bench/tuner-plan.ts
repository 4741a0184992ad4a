// Planning every strategy for every model preset (with the recommendation's micro-batch search)
// on the H200 fixture machine: goal < 50 ms in total. Prints the median of several passes.
import { catalog, planWorkload } from '../electron/services/tuner';
import { h200Machine, h200Measurements } from '../tests/unit/tuner/h200-machine';
import { median, reportFigure } from './figure';

const machine = h200Machine();
const measurements = h200Measurements();
const models = catalog().models;

function pass(): number {
  const t0 = performance.now();
  for (const m of models) planWorkload({ model: m.id, seqLen: 4096, microBatch: 1, gpus: 1 }, { machine, measurements });
  return performance.now() - t0;
}

for (let i = 0; i < 3; i++) pass(); // warm-up (JIT, preset cache)
const times = Array.from({ length: 15 }, pass);
const value = median(times);
reportFigure({
  id: 'tuner-plan-all-ms',
  label: `plan ${catalog().strategies.length} strategies × ${models.length} presets (median of ${times.length})`,
  value,
  unit: 'ms',
  goal: '< 50 ms',
  ok: value < 50,
});
