// The Runs list and the run page, in Chromium against a real `serve` holding the sample runs, one
// failed run and one whose GPU allocator retried: the Runs list has duration, machine and sweep
// columns and its sort arrow is not the better-direction mark; a failed run's page names the
// failure in words; allocator retries are said beside the figures; one display name per strategy
// on Runs, Compare and Reports, the id beside it.
import { describe, expect, it } from 'vitest';
import { strategyLabel } from '../../electron/contract';
import { FAILED, RETRIED } from '../helpers/samples-with-failed-run';
import { useSamplesApp } from '../helpers/samples-app';

const app = useSamplesApp();

describe('the Runs list, the run page and strategy names across pages', () => {
  it('Runs list: duration, machine and sweep columns; the sort arrow is not the better-direction mark', async () => {
    const page = await app.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.serve.url + '#/runs');
    await page.waitForSelector('[data-testid="run-row"]');
    const headers = await page.$$eval('.runs-head [role="columnheader"]', (hs) => hs.map((h) => h.textContent ?? ''));
    for (const h of ['Duration', 'Machine', 'Sweep'])
      expect(
        headers.some((t) => t.startsWith(h)),
        `${h} in ${headers.join(' | ')}`,
      ).toBe(true);
    const col = (name: string) => headers.findIndex((t) => t.startsWith(name));
    const { runs } = await app.invoke<{
      runs: { id: string; sweepId: string | null; startedAt: string | null; finishedAt: string | null }[];
    }>('runs/list', { tag: 'sample', status: 'completed' });
    const run = runs.find((r) => r.sweepId && r.startedAt && r.finishedAt)!;
    await page.fill('[data-testid="runs-search"]', run.id);
    const cells = await page.locator(`[data-run-id="${run.id}"] [role="gridcell"]`).allTextContents();
    expect(cells[col('Duration')]).toMatch(/^(\d+h )?(\d+m )?\d+s$/);
    // the machine the run ran on, by its host name and GPUs (the samples hold H200 and H100 runs)
    const { snapshot } = await app.invoke<{ snapshot: { hostname: string; gpus: { name: string }[] } | null }>('runs/get', { id: run.id });
    expect(cells[col('Machine')]).toContain(snapshot!.hostname);
    expect(cells[col('Machine')]).toContain(snapshot!.gpus[0].name);
    // the sweep id's end, which tells sweeps apart (a cut from the start left every one 'sw-2…'); whole in the title
    expect(run.sweepId!.endsWith(cells[col('Sweep')].replace(/^…/, ''))).toBe(true);
    expect(await page.locator(`[data-run-id="${run.id}"] [data-testid="run-sweep"]`).getAttribute('title')).toBe(run.sweepId);
    // Better direction in words on the metric columns; the sort arrow its own mark, only on the sorted column.
    const tflops = page.locator('.runs-head [role="columnheader"]', { hasText: 'TFLOPS/GPU' });
    expect(await tflops.locator('.better-mark').textContent()).toBe('high best');
    expect(await page.locator('.runs-head .better-mark').allTextContents()).toEqual(
      expect.not.arrayContaining([expect.stringMatching(/[▲▼↑↓]/)]),
    );
    await tflops.locator('button.sort').click();
    const mark = async () => (await tflops.locator('.sort-mark').textContent())?.trim();
    expect(['▲', '▼']).toContain(await mark());
    const first = await mark();
    await tflops.locator('button.sort').click();
    expect(await mark()).not.toBe(first);
    expect(await tflops.getAttribute('aria-sort')).toMatch(/ascending|descending/);
    expect(await page.locator('.runs-head .sort-mark').count()).toBe(1);
    await page.close();
  });

  it("a failed run's page, opened by URL, names the failure in words with its class, message and fix, and shows the log card", async () => {
    const page = await app.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.serve.url + `#/runs/${encodeURIComponent(FAILED)}`);
    await page.reload();
    await page.waitForSelector(`[data-testid="run-detail"][data-run-id="${FAILED}"]`);
    const failure = (await page.textContent('[data-testid="run-failure"]'))!;
    expect(failure).toContain('Out of GPU memory');
    expect(failure).toContain('(cuda_oom)');
    expect(failure).toContain('CUDA out of memory. Tried to allocate 2.00 GiB');
    expect(failure).toContain('Fix: Lower the micro batch, or offload more to the CPU.');
    expect(await page.textContent('[data-testid="run-detail"] h1')).toContain(strategyLabel('superoffload'));
    expect(await page.locator('[data-testid="run-log-tail"]').count()).toBe(1);
    await page.close();
  });

  it('a run whose GPU allocator had to retry says so beside its figures; a run without retries says nothing', async () => {
    const page = await app.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.serve.url + `#/runs/${encodeURIComponent(RETRIED)}`);
    await page.waitForSelector(`[data-testid="run-detail"][data-run-id="${RETRIED}"]`);
    expect(await page.textContent('[data-testid="alloc-retries"]')).toMatch(/ran out of free blocks 4 time\(s\) during the measured steps/);
    await page.goto(app.serve.url + `#/runs/${encodeURIComponent(FAILED)}`);
    await page.waitForSelector(`[data-testid="run-detail"][data-run-id="${FAILED}"]`);
    expect(await page.locator('[data-testid="alloc-retries"]').count()).toBe(0);
    await page.close();
  });

  it('one display name per strategy on Runs, Compare and Reports, the id beside it (Runs: in the cell title; Reports: in the Run column)', async () => {
    const page = await app.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const { runs } = await app.invoke<{ runs: { id: string; strategy: string; sweepId: string | null }[] }>('runs/list', {
      tag: 'sample',
      status: 'completed',
    });
    const picks = ['superoffload', 'gpu-zero2'].map((st) =>
      runs.find((r) => r.strategy === st && r.sweepId === 'sw-sample-h200-llama-3.2-3b-sweep')!,
    );
    await page.goto(app.serve.url + '#/runs');
    await page.waitForSelector('[data-testid="run-row"]');
    for (const r of picks) {
      await page.fill('[data-testid="runs-search"]', r.id);
      const cell = page.locator(`[data-run-id="${r.id}"] [role="gridcell"]`).nth(4);
      expect((await cell.textContent())?.trim()).toMatch(new RegExp(`^${strategyLabel(r.strategy).replace(/[()+]/g, '\\$&')}`));
      expect(await cell.getAttribute('title')).toBe(r.strategy);
      await page.check(`[data-run-id="${r.id}"] input[type="checkbox"]`);
    }
    await page.fill('[data-testid="runs-search"]', '');
    await page.click('[data-testid="compare-selected"]');
    await page.waitForSelector('[data-testid="compare-page"][data-render-ms]', { timeout: 30_000 });
    for (const r of picks) {
      const row = page.locator('[data-testid="delta-table"] tbody tr', { hasText: strategyLabel(r.strategy) });
      expect(await row.count()).toBe(1);
      expect((await row.locator('.strategy-id').textContent())?.trim()).toBe(r.strategy);
    }
    await page.click('[data-testid="compare-report"]');
    await page.waitForSelector('[data-testid="reports-page"]');
    for (const r of picks) {
      const row = page.locator('tr', { has: page.locator(`input[aria-label="select run ${r.id}"]`) });
      await expect
        .poll(async () => (await row.locator('.strategy-cell').textContent())?.trim().replace(/ #\d+$/, ''))
        .toBe(strategyLabel(r.strategy));
      // the Run column shows the id's end, the whole id in its title
      expect(await row.locator('[data-testid="reports-run-id"]').getAttribute('title')).toBe(r.id);
    }
    await page.close();
  });
});
