// Compare's header buttons stay on one line at 1280×800, in Chromium against a real `serve` holding
// the H200 sample runs. Screenshot: test-results/e2e/compare-header-1280.png.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { cli } from '../helpers/cli';
import { repoRoot, startServe, type ServeHandle } from '../helpers/serve';
import { tmpDir } from '../unit/history-queries/helpers';

let serve: ServeHandle;
let browser: Browser;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');
interface RunRow {
  id: string;
  strategy: string;
  createdAt: string;
  startedAt: string | null;
  sweepId: string | null;
  status: string;
}
let runs: RunRow[] = [];

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const dataDir = tmpDir();
  cli(['load-samples', '--data-dir', dataDir]);
  runs = JSON.parse(cli(['runs', '--json', '--data-dir', dataDir])) as RunRow[];
  serve = await startServe([], dataDir);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

describe('the Compare page header at 1280×800', () => {
  it("keeps Compare's header buttons on one line at 1280", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(serve.url + '#/runs');
    await page.waitForSelector('[data-testid="run-row"]');
    const ids = runs
      .filter((r) => r.status === 'completed')
      .slice(0, 4)
      .map((r) => r.id);
    for (const id of ids) {
      await page.fill('[data-testid="runs-search"]', id);
      await page.check(`[data-run-id="${id}"] input[type="checkbox"]`);
    }
    await page.fill('[data-testid="runs-search"]', '');
    await page.click('[data-testid="compare-selected"]');
    await page.waitForSelector('[data-testid="compare-download"]');
    const boxes = await page.$$eval('.compare-page .page-header .actions button', (bs) =>
      bs.map((b) => {
        const r = b.getBoundingClientRect();
        return { top: r.top, height: r.height, right: r.right };
      }),
    );
    await page.screenshot({ path: path.join(artifacts, 'compare-header-1280.png'), clip: { x: 0, y: 0, width: 1280, height: 200 } });
    expect(boxes.length, JSON.stringify(boxes)).toBe(3);
    expect(new Set(boxes.map((b) => Math.round(b.top))).size, JSON.stringify(boxes)).toBe(1); // one row
    expect(Math.max(...boxes.map((b) => b.height))).toBeLessThan(40); // no label wraps inside its button
    expect(Math.max(...boxes.map((b) => b.right))).toBeLessThanOrEqual(1280);
    await page.close();
  });
});
