// The Hardware page, in Chromium against a real `serve` on this machine (no GPU here, like CI; the
// sample runs loaded): a Disks card, no CUDA runtime complaint where there is simply no GPU, and
// the topology's NUMA boxes saying memory in the app's one byte format.
import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../electron/contract/format';
import { useSamplesApp } from '../helpers/samples-app';

const app = useSamplesApp();

describe('the Hardware page: disks, no-GPU words, NUMA memory', () => {
  it('Hardware page: a Disks card, and no CUDA runtime complaint where there is simply no GPU', async (ctx) => {
    if (app.machineHasGpu) ctx.skip();
    const page = await app.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.serve.url + '#/hardware');
    await page.waitForSelector('[data-testid="disks-card"]', { timeout: 60_000 });
    const text = (await page.textContent('.content'))!;
    expect(text).not.toMatch(/libcudart|driver version is insufficient|hardware\/disk-free/);
    expect(text).toMatch(/no GPU/i);
    await page.close();
  });

  it("Hardware page: the topology's NUMA boxes say memory as every page does (23.5 GiB, not 24)", async () => {
    const page = await app.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.serve.url + '#/hardware');
    await page.waitForSelector('.topo-node', { timeout: 60_000 });
    const machine = await app.invoke<{ cpu: { numaNodes: { memoryBytes: number | null }[] } }>('hardware/detect', {});
    const subs = await page.locator('.topo-node .topo-sub').allTextContents();
    const numaBytes = machine.cpu.numaNodes.map((n) => n.memoryBytes).filter((b): b is number => b !== null);
    expect(numaBytes.length).toBeGreaterThan(0);
    for (const b of numaBytes) expect(subs).toContain(formatBytes(b));
    await page.close();
  });

  it("Hardware page at 1920: a disk's kind and size each on one line ('256.0' over 'GiB' in a third of the width)", async () => {
    const page = await app.browser.newPage({ viewport: { width: 1920, height: 1080 } });
    await page.goto(app.serve.url + '#/hardware');
    await page.waitForSelector('[data-testid="disks-card"] tbody tr', { timeout: 60_000 });
    const lines = await page.$$eval(
      '[data-testid="disks-card"] tbody td:nth-child(2), [data-testid="disks-card"] tbody td:nth-child(3)',
      (tds) =>
        tds.map((td) => {
          const range = document.createRange();
          range.selectNodeContents(td);
          return { text: td.textContent, lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size };
        }),
    );
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l.lines, JSON.stringify(l)).toBe(1);
    await page.close();
  });
});
