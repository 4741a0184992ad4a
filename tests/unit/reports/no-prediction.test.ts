// No prediction in the reports: a CPU smoke run's plan stores zeros where a GPU plan predicts; the
// report shows "—, no prediction (CPU run)", draws no predicted-vs-measured point, and the CSV
// leaves the predicted cells empty — never a prediction of 0 (or "0 B" of GPU memory).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReports, RUN_COLUMNS } from '../../../electron/services/reports';
import type { HistoryStore } from '../../../electron/services/history';
import { parseCsv } from './csv-parse';
import { gh200Machine, openTempStore, seedRun, tempDir } from './fixtures';

let store: HistoryStore;
const out = tempDir();
const CPU = 'cpu-smoke';

/** One completed CPU smoke run as the engine stores it: its plan predicted zeros. */
function seedCpuRun(s: HistoryStore): void {
  const spec = {
    runId: CPU,
    engine: 'deepspeed',
    seqLen: 32,
    microBatch: 1,
    gradAccum: 1,
    steps: 4,
    warmup: 1,
    dsConfig: { zero_optimization: { stage: 2, offload_optimizer: { device: 'cpu' } } },
  };
  s.createRun({
    id: CPU,
    sweepId: 'sw-cpu',
    repeatIndex: 0,
    model: 'tiny-llama',
    strategy: 'zero2-offload',
    engine: 'deepspeed',
    steps: 4,
    warmup: 1,
    spec,
    // the GPU figure the tuner computed for the workload (issue 49.3: once shown as "(2.3 GiB)" and in the CSV)
    predicted: { tflopsPerGpu: 0, stepSeconds: 0, tokensPerSecond: 0, gpuPeakBytes: 2500836224, hostPeakBytes: 2e9 },
  });
  s.startRun(CPU, { snapshot: gh200Machine('cpu-vm', 0), machineId: 'm-cpu-vm', logPath: null });
  s.appendSamples(
    CPU,
    Array.from({ length: 5 }, (_, i) => ({
      step: i + 1,
      warmup: i === 0,
      stepSeconds: 0.0123,
      tflopsPerGpu: 0.0084,
      tokensPerSecond: 2601.6,
      loss: 5.5,
      gpuAllocatedBytes: null,
      gpuReservedBytes: null,
      gpuPeakBytes: null,
      hostRssBytes: 1.5e9,
    })) as never,
  );
  const stat = (v: number) => ({ median: v, min: v, max: v, mean: v });
  s.finishRun(CPU, {
    status: 'completed',
    errorClass: null,
    errorMessage: null,
    result: {
      measuredSteps: 4,
      stepSeconds: stat(0.0123),
      tflopsPerGpu: stat(0.0084),
      tokensPerSecond: stat(2601.6),
      peakGpuBytes: null,
      peakHostBytes: 1.5e9,
    },
  } as never);
}

beforeAll(() => {
  store = openTempStore().store;
  seedCpuRun(store);
  seedRun(store, { id: 'gpu-run', strategy: 'superoffload', stepSeconds: 20 });
});
afterAll(() => store?.close());

const reports = () =>
  createReports({
    getRun: (id) => store.getRun(id, 0),
    compare: (i, b) => store.compare(i, b),
    appVersion: '9.9.9',
    now: () => new Date('2026-12-01T12:00:00Z'),
  });

describe("no prediction in the reports: a CPU run's stored zeros are not a prediction of zero", () => {
  it("HTML: the CPU run's predicted cells say no prediction; the GPU run's cell holds its figure", async () => {
    const res = await reports().export({ runIds: [CPU, 'gpu-run'], format: 'html', path: path.join(out, 'mixed.html') });
    const html = fs.readFileSync(res.path, 'utf8');
    const row = (id: string) => html.slice(html.indexOf(`data-run-id="${id}"`), html.indexOf('</tr>', html.indexOf(`data-run-id="${id}"`)));
    expect(row(CPU)).toContain('<td class="num" title="no prediction (CPU run)">—</td>');
    expect(row(CPU)).not.toContain('(0 B)');
    // GPU memory: no prediction either, as on the run page (not "— (2.3 GiB)")
    expect(row(CPU)).toContain('<td class="num" data-col="gpu" title="no prediction (CPU run)">—</td>');
    expect(row(CPU)).not.toContain('(2.3 GiB)');
    expect(row('gpu-run')).toContain('<td class="num">400.0</td>');
    expect(html).not.toContain('&gt;400.0'); // the cell was once built as escaped text inside the tag
  });

  it('HTML of CPU runs only: no predicted-vs-measured chart (nothing to plot)', async () => {
    const res = await reports().export({ runIds: [CPU], format: 'html', path: path.join(out, 'cpu.html') });
    expect(fs.readFileSync(res.path, 'utf8')).not.toContain('Predicted vs measured');
  });

  it('CSV: the predicted speed and GPU memory cells are empty, not 0', async () => {
    const res = await reports().export({ runIds: [CPU], format: 'csv', path: path.join(out, 'cpu.csv') });
    const [head, row] = parseCsv(fs.readFileSync(res.path, 'utf8'));
    expect(head).toEqual(RUN_COLUMNS);
    const cell = (name: string) => row[RUN_COLUMNS.indexOf(name)];
    expect([cell('predicted_tflops_per_gpu'), cell('predicted_step_seconds'), cell('predicted_gpu_peak_bytes')]).toEqual(['', '', '']);
    expect(Number(cell('predicted_host_peak_bytes'))).toBe(2e9);
  });
});
