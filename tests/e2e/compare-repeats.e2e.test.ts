// Compare's delta table lists each group's repeats in run order, says what they are ("repeats:"),
// and prints them with one precision: tiny CPU-sized figures 0.000318 and 0.00016 read
// "0.000318, 0.000160", not "[0.000318, 0.00016]", which looked like a reversed range. In
// Chromium against a real `serve`, runs imported through the real CLI.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { formatRepeats, type Comparison } from '../../electron/contract';
import { writeRunsFile } from '../../electron/services/history';
import { launchChromium } from '../helpers/browser';
import { cli } from '../helpers/cli';
import { invokeOverServe, startServe, type ServeHandle } from '../helpers/serve';
import { openTempStore, seedRun, tempDir } from '../unit/reports/fixtures';

// Step times that put the 70B seed's TFLOPS per GPU near 0.00032 and 0.00016: the second repeat
// about half as fast as the first, so run order is not sorted order the other way round.
const RUNS = [
  { id: 'zo-0', strategy: 'zero2-offload', stepSeconds: 7.8e6, repeatIndex: 0 },
  { id: 'zo-1', strategy: 'zero2-offload', stepSeconds: 1.55e7, repeatIndex: 1 },
  { id: 'so-0', strategy: 'superoffload', stepSeconds: 6e6, repeatIndex: 0 },
  { id: 'so-1', strategy: 'superoffload', stepSeconds: 6.2e6, repeatIndex: 1 },
];
let serve: ServeHandle;
let browser: Browser;

beforeAll(async () => {
  const { store } = openTempStore();
  for (const r of RUNS) seedRun(store, r);
  const fixture = path.join(tempDir(), 'repeats.runs.json');
  writeRunsFile(fixture, store.exportRuns());
  store.close();
  const dataDir = tempDir('offload-compare-repeats-');
  expect(cli(['import-runs', fixture, '--data-dir', dataDir])).toContain('imported 4 run(s)');
  serve = await startServe([], dataDir);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('Compare: the repeats of a group', () => {
  it('prints them in run order, named, with one precision', async () => {
    const c = await invokeOverServe<Comparison>(serve, 'compare/runs', { ids: RUNS.map((r) => r.id) });
    const zo = c.groups.find((g) => g.strategy === 'zero2-offload')!;
    const values = zo.stats.tflopsPerGpu!.values;
    expect(values).toHaveLength(2);
    expect(values[0]).toBeGreaterThan(values[1]); // run order: zo-0 (faster) first

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(serve.url + '#/runs');
    await page.waitForSelector('[data-testid="run-row"]');
    for (const r of RUNS) await page.check(`[data-run-id="${r.id}"] input[type="checkbox"]`);
    await page.click('[data-testid="compare-selected"]');
    await page.waitForSelector('[data-testid="delta-table"]');
    const cell = (await page
      .locator('[data-testid="delta-table"] tbody tr', { hasText: 'ZeRO-Offload' })
      .locator('td')
      .last()
      .textContent())!;
    const repeats = cell.replace(/\s+/g, ' ').split(' · ').at(-1)!;
    expect(repeats).toBe(`repeats: ${formatRepeats(values, 'TFLOPS')}`);
    // Both to the same six decimals (three significant digits of the smaller), the first repeat first.
    expect(repeats).toMatch(/^repeats: 0\.000(3\d\d), 0\.000(1\d\d)$/);
    expect(cell).not.toContain('[');
    await page.close();
  });

  it('formatRepeats keeps run order and pads to the shared precision', () => {
    expect(formatRepeats([0.000318, 0.00016], 'TFLOPS')).toBe('0.000318, 0.000160');
    expect(formatRepeats([412.34, 410], 'TFLOPS')).toBe('412.3, 410.0');
    expect(formatRepeats([1.5, 1.25, 1], 's')).toBe('1.500, 1.250, 1.000');
    expect(formatRepeats([12345, 9876], 'tokens/s')).toBe('12,345, 9,876');
    expect(formatRepeats([2 * 1024 ** 3], 'bytes')).toBe('2.0 GiB');
    expect(formatRepeats([], 'TFLOPS')).toBe('—');
  });
});
