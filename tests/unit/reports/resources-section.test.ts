// The report's static resource view: a run with a stored resource record — sampled here by
// the real monitor, on this GPU-less machine — gets its lanes as inline SVG (the run page's option
// builder, drawn server-side), the attribution sentence and the tuner's predicted terms beside their
// lanes; a run without samples says why in one line; the GPU lanes, which no run here measured, are
// left out (one line says why), never drawn as 0.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runResources } from '../../../electron/services/backend/handlers/resources';
import type { HistoryStore } from '../../../electron/services/history';
import { startMonitor } from '../../../electron/services/monitor';
import { createReports } from '../../../electron/services/reports';
import { buildRunSpec } from '../../../electron/services/tuner';
import { openTempStore, seedComparison } from './fixtures';

let store: HistoryStore;
let dir: string;
let ids: string[];
let html: string;

beforeAll(async () => {
  ({ store, dir } = openTempStore());
  ids = seedComparison(store);
  // A real record: this machine's /proc sampled for ~2 s, a warm-up step and two measured ones marked (the first two keeping a core busy).
  const monitor = startMonitor({ machine: { gpus: [] }, intervalMs: 200 });
  const t0 = Date.now();
  let x = 0;
  while (Date.now() - t0 < 500) x += Math.sqrt(x + 1); // one core busy, as a step would keep it
  monitor.markStep({ step: 1, warmup: true, stepSeconds: 0.5 });
  await new Promise((r) => setTimeout(r, 500));
  while (Date.now() - t0 < 1500) x += Math.sqrt(x + 1);
  monitor.markStep({ step: 2, warmup: false, stepSeconds: 1 });
  await new Promise((r) => setTimeout(r, 600));
  monitor.markStep({ step: 3, warmup: false, stepSeconds: 0.6 });
  const record = monitor.stop();
  store.storeResources('so-0', record);
  // The same spec run on a snapshot the tuner reads (the H200 host's detect output): its predicted terms.
  const h200 = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../fixtures/hosts/h200-sxm-x86/machine.json'), 'utf8'));
  const spec = {
    ...buildRunSpec({ model: 'llama-3.1-8b', seqLen: 2048, microBatch: 4, gpus: 1, activationCheckpointing: true }, 'zero3-offload'),
    runId: 'h200-0',
  };
  store.createRun({
    id: 'h200-0',
    sweepId: 'sweep-2',
    repeatIndex: 0,
    model: 'llama-3.1-8b',
    strategy: 'zero3-offload',
    engine: 'deepspeed',
    steps: 10,
    warmup: 3,
    spec,
  });
  store.startRun('h200-0', { snapshot: h200, machineId: 'm-h200', logPath: null });
  store.storeResources('h200-0', record);
  store.finishRun('h200-0', { status: 'completed', errorClass: null, errorMessage: null, result: null });
  ids.push('h200-0');
  const reports = createReports({
    getRun: (id) => store.getRun(id, 0),
    compare: (i, b) => store.compare(i, b),
    resources: (id) => runResources({ dataDir: dir, history: store }, id),
    now: () => new Date('2026-12-05T08:00:00Z'),
  });
  html = reports.html(ids);
  await reports.close();
}, 30_000);
afterAll(() => store?.close());

const block = (id: string) => {
  const start = html.indexOf(`data-resources-run="${id}"`);
  expect(start, id).toBeGreaterThan(0);
  const next = html.indexOf('data-resources-run="', start + 10);
  return html.slice(start, next > 0 ? next : html.indexOf('</section>', start));
};

describe('report: resources during the runs', () => {
  it('draws the stored lanes of a run as inline SVG, leaving out the GPU lanes no run measured and saying why', () => {
    expect(html).toContain('<h2>Resources during the runs</h2>');
    const so = block('so-0');
    expect(so).toMatch(/<figcaption>CPU cores over the run \(dashed: warm-up ends\)<\/figcaption>\s*<svg/);
    expect(so).not.toContain('GPU busy (%)');
    expect(html).toMatch(/Not measured in any of these runs: GPU busy, PCIe and NVLink \(no NVIDIA GPU on this machine\)/);
    expect(so).toContain('warm-up ends');
  });

  it('carries the attribution sentence beside the predicted terms and the lane that measures each', () => {
    const so = block('so-0');
    expect(so).toMatch(/<strong>Measured steps:<\/strong> [^<]*GPU not available: [^<]*core\(s\) at ≥90%/);
    // A snapshot the tuner cannot read: the terms say why they are missing.
    expect(so).toContain('Predicted terms: predicted terms not available: ');
    // The tuner's terms for an 8B ZeRO-3-offload spec on the H200 host's snapshot, each beside its lane.
    const h200 = block('h200-0');
    expect(h200).toMatch(/<th>Predicted term<\/th>/);
    expect(h200).toMatch(
      /<td>compute<\/td><td class="num">[\d.]+<\/td><td>gpu<\/td><td>not available: no NVIDIA GPU on this machine<\/td>/,
    );
    expect(h200).toMatch(/<td>cpuAdamExposed<\/td><td class="num">[\d.]+<\/td><td>cpu<\/td><td>\d+ core\(s\) ≥90%[^<]*<\/td>/);
  });

  it('a run without stored samples says why in one line, no chart', () => {
    const zo = block('zo-0');
    expect(zo).toContain('resources not available: no resource samples were stored with this run');
    expect(zo).not.toContain('<svg');
  });

  it('a report asked without resources, or of runs none of which has samples, has no such section (as before)', () => {
    const plain = createReports({ getRun: (id) => store.getRun(id, 0), compare: (i, b) => store.compare(i, b) });
    expect(plain.html(ids)).not.toContain('Resources during the runs');
    void plain.close();
    const none = createReports({
      getRun: (id) => store.getRun(id, 0),
      compare: (i, b) => store.compare(i, b),
      resources: (id) => runResources({ dataDir: dir, history: store }, id),
    });
    expect(none.html(['zo-0', 'zo-1'])).not.toContain('Resources during the runs');
    void none.close();
  });
});
