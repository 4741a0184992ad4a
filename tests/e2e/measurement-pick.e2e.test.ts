// The Hardware page's choice of measurement, in Chromium against `serve` (a real data folder): three
// measurements of this machine in 15 minutes, the newest taken while it was busy (CPU Adam 1.32 →
// 1.13 → 0.39 G params/s). The busy one is flagged and passed over, the page says which one plans use,
// and picking another (or Automatic again) is what the plan then says it used.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Measurement } from '../../electron/contract';
import { saveMeasurement } from '../../electron/services/hardware';
import { launchChromium } from '../helpers/browser';
import { invokeOverServe, repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { tempDir } from '../unit/reports/fixtures';

let serve: ServeHandle;
let browser: Browser;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');

const at = (minute: number, adam: number, triad: number, machineId: string): Measurement => ({
  cpuAdam: [
    { threads: 1, paramsPerSecond: adam * 0.6e9 },
    { threads: 2, paramsPerSecond: adam * 1e9 },
  ],
  recommendedCoresPerc: 0.5,
  recommendedThreads: 1,
  logicalCores: 2,
  simdPath: 'avx2',
  memoryBandwidthBytesPerSecond: triad * 1e9,
  hostDevice: null,
  hostDeviceReason: 'no GPU on this machine',
  measuredAt: `2026-12-07T20:${String(minute).padStart(2, '0')}:00.000Z`,
  durationMs: 53_000,
  machineId,
});

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const dataDir = tempDir('offload-measure-pick-');
  const detected = spawnSync(
    path.join(repoRoot, 'node_modules', '.bin', 'tsx'),
    ['electron/cli/main.ts', 'detect', '--json', '--no-env', '--data-dir', dataDir],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  const { machineId } = JSON.parse(detected.stdout) as { machineId: string };
  for (const [minute, adam, triad] of [
    [0, 1.32, 32.6],
    [5, 1.13, 25.3],
    [10, 0.39, 8.8],
  ])
    saveMeasurement(dataDir, at(minute, adam, triad, machineId));
  serve = await startServe([], dataDir);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('which measurement plans use, on the Hardware page', () => {
  it('flags the busy newest, uses the one before it, and lets the user pick', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(serve.url + '#/hardware');
    await page.waitForSelector('[data-testid="measurement-row"]', { timeout: 60_000 });
    const rows = () =>
      page.$$eval('[data-testid="measurement-row"]', (trs) =>
        trs.map((tr) => ({ used: tr.getAttribute('data-used'), flagged: tr.getAttribute('data-flagged'), text: tr.textContent ?? '' })),
      );
    const first = await rows();
    expect(first.map((r) => [r.used, r.flagged])).toEqual([
      ['false', 'true'],
      ['true', 'false'],
      ['false', 'false'],
    ]);
    expect(first[0].text).toMatch(/20:10 UTC.*no: CPU Adam \d+% below the median/);
    expect(await page.textContent('[data-testid="measurement-used-words"]')).toMatch(/Plans use the measurement of 7 Dec 2026, 20:05 UTC/);
    // the recommended share says its thread count: 0.5 of 2 cores is 1 thread
    expect(await page.textContent('[data-testid="measurements-card"]')).toContain('0.5 (1 thread of 2)');
    // the Measurements card above shows the newest's figures: it says they are not the ones plans use
    expect(await page.textContent('[data-testid="measurement-not-used"]')).toMatch(
      /newest measurement's figures \(flagged\); plans do not use it: they use the measurement of 7 Dec 2026, 20:05 UTC/,
    );
    await page.locator('[data-testid="measurements-card"]').screenshot({ path: path.join(artifacts, 'measurement-not-used-1280x800.png') });
    await page.locator('[data-testid="measurement-picker"]').screenshot({ path: path.join(artifacts, 'measurement-pick-1280x800.png') });

    // pick the busy one anyway: the page and the plan say so
    await page.getByLabel('Use the measurement of 7 Dec 2026, 20:10 UTC').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="measurement-row"]')?.getAttribute('data-used') === 'true');
    expect(await page.textContent('[data-testid="measurement-used-words"]')).toMatch(/20:10 UTC, picked although it is flagged/);
    // the newest is now the one used: no warning above its figures
    expect(await page.locator('[data-testid="measurement-not-used"]').count()).toBe(0);
    const plan = await invokeOverServe<{ notes: string[] }>(serve, 'plan/compute', {
      workload: { model: 'tiny-llama', seqLen: 64, microBatch: 1, gradAccum: 1, gpus: 1 },
    }).catch((e: Error) => ({ notes: [e.message] }));
    expect(plan.notes.join('\n')).toMatch(/measured 7 Dec 2026, 20:10 UTC: the one picked/);

    // the Plan page says it above its figures, not only in its folded notes
    const planPage = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await planPage.goto(serve.url + '#/plan');
    await planPage.waitForSelector('[data-testid="model-select"]');
    await planPage.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await planPage.click('[data-testid="compute-plan"]');
    await planPage.waitForSelector('[data-testid="host-figures"]', { timeout: 60_000 });
    expect(await planPage.textContent('[data-testid="host-figures"]')).toMatch(/measured 7 Dec 2026, 20:10 UTC: the one picked/);
    await planPage.close();

    // Automatic again
    await page.getByLabel('Automatic: the newest that agrees with the others').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="measurement-row"]')[1]?.getAttribute('data-used') === 'true');
    await page.waitForSelector('[data-testid="measurement-not-used"]');
    await page.close();
  });
});
