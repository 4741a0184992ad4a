// CSV export parsed back and compared with the store; formula injection neutralised.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReports, RUN_COLUMNS, SAMPLE_COLUMNS } from '../../../electron/services/reports';
import { csvCell } from '../../../electron/services/reports/csv';
import type { HistoryStore } from '../../../electron/services/history';
import { parseCsv } from './csv-parse';
import { openTempStore, seedComparison, seedRun, tempDir } from './fixtures';

let store: HistoryStore;
let ids: string[];
const out = tempDir();

beforeAll(() => {
  store = openTempStore().store;
  ids = seedComparison(store);
  seedRun(store, {
    id: 'evil',
    strategy: 'superoffload',
    stepSeconds: 22,
    tags: ['=cmd|"/c calc"!A1', '@SUM(1)'],
    notes: '+1+1, "quoted"\nsecond line',
    hostname: '-host',
  });
  ids.push('evil');
});
afterAll(() => store?.close());

describe('CSV export', () => {
  it('writes one row per run whose figures equal the store', async () => {
    const reports = createReports({ getRun: (id) => store.getRun(id, 0), compare: (i, b) => store.compare(i, b) });
    const res = await reports.export({
      runIds: ids,
      format: 'csv',
      path: path.join(out, 'runs.csv'),
      includeSamples: true,
      baselineId: 'zo-0',
    });
    const rows = parseCsv(fs.readFileSync(res.path, 'utf8'));
    expect(rows[0]).toEqual(RUN_COLUMNS);
    expect(rows.length).toBe(ids.length + 1);
    const col = (name: string) => RUN_COLUMNS.indexOf(name);
    for (const row of rows.slice(1)) {
      const stored = store.getRun(row[col('id')], 0)!;
      const s = stored.summary;
      expect(row[col('strategy')]).toBe(s.strategy);
      expect(row[col('status')]).toBe(s.status);
      expect(Number(row[col('tflops_per_gpu_median')])).toBeCloseTo(s.tflopsPerGpu!, 9);
      expect(Number(row[col('step_seconds_median')])).toBeCloseTo(s.stepSeconds!, 9);
      expect(Number(row[col('tokens_per_second_median')])).toBeCloseTo(s.tokensPerSecond!, 6);
      const measured = stored.samples.filter((x) => !x.warmup).map((x) => x.stepSeconds);
      expect(Number(row[col('step_seconds_min')])).toBe(Math.min(...measured));
      expect(Number(row[col('step_seconds_max')])).toBe(Math.max(...measured));
      expect(Number(row[col('measured_steps')])).toBe(measured.length);
      expect(Number(row[col('gpus')])).toBe(4);
      expect(row[col('baseline_id')]).toBe('zo-0');
    }
    const so = rows.find((r) => r[col('id')] === 'so-0')!;
    expect(Number(so[col('delta_tflops_per_gpu_pct')])).toBeGreaterThan(30);
    // One baseline definition: the baseline repeat group's median of repeats (Compare's, the CLI's, the HTML's).
    const base = store.compare(ids, 'zo-0').groups.find((g) => g.isBaseline)!;
    expect(so[col('baseline_group')]).toBe(base.label);
    expect(Number(so[col('baseline_repeats')])).toBe(base.runIds.length);
    expect(Number(so[col('baseline_tflops_per_gpu')])).toBeCloseTo(base.stats.tflopsPerGpu!.median, 9);
    for (const row of rows.slice(1).filter((r) => r[col('tflops_per_gpu_median')] !== '')) {
      const expected =
        ((Number(row[col('tflops_per_gpu_median')]) - base.stats.tflopsPerGpu!.median) / base.stats.tflopsPerGpu!.median) * 100;
      expect(Number(row[col('delta_tflops_per_gpu_pct')])).toBeCloseTo(expected, 9);
    }
    // A run of the baseline group reads against its group's median too, not against itself.
    expect(Number(rows.find((r) => r[col('id')] === 'zo-0')![col('delta_tflops_per_gpu_pct')])).not.toBe(0);
    expect(Number(so[col('speedup_vs_baseline')])).toBeGreaterThan(1.3);

    // Per-step samples: a second file, every stored sample once.
    expect(res.extraPaths).toEqual([path.join(out, 'runs.samples.csv')]);
    const samples = parseCsv(fs.readFileSync(res.extraPaths![0], 'utf8'));
    expect(samples[0]).toEqual(SAMPLE_COLUMNS);
    const expected = ids.reduce((n, id) => n + store.getRun(id, 0)!.samples.length, 0);
    expect(samples.length - 1).toBe(expected);
    const first = store.getRun(ids[0], 0)!.samples[0];
    expect(Number(samples[1][SAMPLE_COLUMNS.indexOf('step_seconds')])).toBe(first.stepSeconds);
  });

  it('neutralises spreadsheet formulas in text and keeps quotes, commas and newlines', async () => {
    const reports = createReports({ getRun: (id) => store.getRun(id, 0), compare: (i, b) => store.compare(i, b) });
    const res = await reports.export({ runIds: ['evil'], format: 'csv', path: path.join(out, 'evil.csv') });
    const [header, row] = parseCsv(fs.readFileSync(res.path, 'utf8'));
    const get = (name: string) => row[header.indexOf(name)];
    expect(get('tags')).toBe(`'=cmd|"/c calc"!A1;@SUM(1)`);
    expect(get('notes')).toBe(`'+1+1, "quoted"\nsecond line`);
    expect(get('hostname')).toBe(`'-host`);
    for (const cell of row) expect(cell).not.toMatch(/^[=+@]/);
    expect(csvCell(-5.5)).toBe('-5.5'); // a number is never a formula
    expect(csvCell('a"b')).toBe('"a""b"');
  });
});
