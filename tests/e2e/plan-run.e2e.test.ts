// Plan → Run in Chromium against a real `serve` (fresh data folder) and the real engine on this
// CPU: two strategies × two repeats of tiny-llama. What is planned is what runs: runs/start carries
// exactly the plan's specs, every stored run's spec is the plan's spec of its strategy (micro batch,
// knobs such as cpuadam_cores_perc, config), and the Run page labels every run by the backend's
// reply (repeats outer, strategies inner). Needs the engine venv (scripts/setup-engine-venv.sh).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Browser } from 'playwright-core';
import type { PlanResult, RunDetail, RunSpec } from '../../electron/contract';
import { strategyLabel } from '../../electron/contract/charts/labels';
import { engineVenvs } from '../../electron/services/engine';
import { launchChromium } from '../helpers/browser';
import { invokeOverServe, repoRoot, startServe, type ServeHandle } from '../helpers/serve';

let serve: ServeHandle;
let browser: Browser;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');
const engineReady = engineVenvs().some((v) => fs.existsSync(path.join(v, '.offload-studio-complete')));

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  serve = await startServe();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

/** The spec without what runs/start sets for the run: its id, steps, seed, time limit, and the memory
 *  the pre-flight checks on the host it starts on (preflightMemory: sized there, not planned). */
function planned(spec: RunSpec) {
  const { runId: _id, steps: _steps, warmup: _warmup, seed: _seed, maxSeconds: _max, preflightMemory: _here, ...rest } = spec;
  return rest;
}

const invoke = <T>(channel: string, payload: unknown) => invokeOverServe<T>(serve, channel, payload);

describe.skipIf(!engineReady)('Plan → Run: what is planned is what runs', () => {
  it('starts exactly the plan’s specs, stores them unchanged, and labels every run right', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // What the page asks and hears over its WebSocket: the plan it showed and the runs/start it sent.
    const sent = new Map<number, { channel: string; payload: unknown }>();
    const replies = new Map<string, { payload: unknown; value: unknown }[]>();
    page.on('websocket', (ws) => {
      ws.on('framesent', (f) => {
        const m = JSON.parse(String(f.payload));
        if (typeof m.id === 'number') sent.set(m.id, { channel: m.channel, payload: m.payload });
      });
      ws.on('framereceived', (f) => {
        const m = JSON.parse(String(f.payload));
        const req = typeof m.id === 'number' ? sent.get(m.id) : undefined;
        if (req && m.result?.ok)
          replies.set(req.channel, [...(replies.get(req.channel) ?? []), { payload: req.payload, value: m.result.value }]);
      });
    });

    await page.goto(serve.url + '#/plan');
    await page.waitForSelector('[data-app-state="loaded"]');
    await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await page.fill('[data-testid="seq-len"]', '32');
    await page.click('[data-testid="compute-plan"]');
    await page.waitForSelector('[data-testid="recommendation"]', { timeout: 60_000 });
    await expect.poll(() => replies.get('plan/compute')?.length ?? 0).toBeGreaterThan(0);
    const plan = replies.get('plan/compute')!.at(-1)!.value as PlanResult;
    const chosen = [plan.recommended!.strategyId, plan.recommended!.runnerUp!.strategyId];
    expect(chosen).toEqual(['zero3-offload', 'zero2-offload']);
    // Exactly these two are ticked; the table shows the micro batch each spec runs with.
    for (const s of plan.strategies) {
      const box = page.locator(`[data-testid="strategy-${s.id}"] input[type="checkbox"]`);
      if (chosen.includes(s.id) !== (await box.isChecked())) await box.click();
      expect(await page.getAttribute(`[data-testid="strategy-${s.id}"] [data-testid="spec-knobs"]`, 'data-micro-batch')).toBe(
        String(s.spec.microBatch),
      );
    }
    await page.fill('[data-testid="run-steps"]', '2');
    await page.fill('[data-testid="run-warmup"]', '1');
    await page.fill('[data-testid="run-repeats"]', '2');
    await page.screenshot({ path: path.join(artifacts, 'plan-run-1-plan.png') });
    await page.click('[data-testid="start-sweep"]');
    await page.waitForSelector('[data-testid="run-page"]', { timeout: 30_000 });

    // runs/start carried the plan's specs, as planned, in the order shown.
    await expect.poll(() => replies.get('runs/start')?.length ?? 0).toBe(1);
    const start = replies.get('runs/start')![0];
    const request = start.payload as { specs: RunSpec[]; repeats: number; steps: number; warmup: number };
    const specOf = (id: string) => plan.strategies.find((s) => s.id === id)!.spec;
    expect(request.specs).toEqual(chosen.map(specOf));
    expect({ repeats: request.repeats, steps: request.steps, warmup: request.warmup }).toEqual({ repeats: 2, steps: 2, warmup: 1 });
    const reply = start.value as { runIds: string[]; runs: { runId: string; strategy: string; repeatIndex: number }[] };
    expect(reply.runs.map((r) => `${r.strategy}#${r.repeatIndex}`)).toEqual([
      'zero3-offload#0',
      'zero2-offload#0',
      'zero3-offload#1',
      'zero2-offload#1',
    ]);

    await page.waitForSelector('[data-testid="run-page"][data-sweep-state="done"]', { timeout: 540_000 });
    await page.screenshot({ path: path.join(artifacts, 'plan-run-2-done.png') });

    const rows = page.locator('[data-testid="sweep-run"]');
    expect(await rows.count()).toBe(4);
    for (let i = 0; i < 4; i++) {
      const row = rows.nth(i);
      const runId = (await row.getAttribute('data-run-id'))!;
      const detail = await invoke<RunDetail>('runs/get', { id: runId, logLines: 40 });
      const stored = detail.spec as RunSpec;
      // Stored: the plan's spec of its strategy, unchanged but for the run's own fields.
      expect(planned(stored)).toEqual(planned(specOf(detail.summary.strategy)));
      expect(stored.microBatch).toBe(specOf(detail.summary.strategy).microBatch);
      expect(stored.knobs.cpuadamCoresPerc).toBe(specOf(detail.summary.strategy).knobs.cpuadamCoresPerc);
      expect(stored.dsConfig).toEqual(specOf(detail.summary.strategy).dsConfig);
      expect(stored).toMatchObject({ runId, steps: 3, warmup: 1 });
      expect(detail.predicted ?? null).toEqual(stored.prediction ? { ...stored.prediction } : null);
      // The Run page's label is the stored run's strategy and repeat.
      expect(await row.getAttribute('data-strategy')).toBe(detail.summary.strategy);
      expect(Number(await row.getAttribute('data-repeat'))).toBe(detail.summary.repeatIndex);
      const cells = await row.locator('td').allTextContents();
      expect(cells.slice(0, 2)).toEqual([strategyLabel(detail.summary.strategy), String(detail.summary.repeatIndex + 1)]);
      expect(detail.summary.status, `${runId}: ${detail.summary.errorMessage}\n${detail.logTail.join('\n')}`).toBe('completed');
      // The runner measured the spec's batch shape.
      expect(detail.config).toMatchObject({ microBatch: stored.microBatch, seqLen: stored.seqLen });
    }
    expect(errors).toEqual([]);
  }, 600_000);
});

describe('Plan form: nothing clamped silently', () => {
  it('keeps what is typed and says, from the contract’s schema, what is wrong', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(serve.url + '#/plan');
    await page.waitForSelector('[data-app-state="loaded"]');
    await page.fill('[data-testid="seq-len"]', '0');
    expect(await page.inputValue('[data-testid="seq-len"]')).toBe('0');
    expect(await page.textContent('[data-testid="seq-len-error"]')).toMatch(/must be 1 or more/i);
    await page.fill('[data-testid="seq-len"]', '64');
    expect(await page.locator('[data-testid="seq-len-error"]').count()).toBe(0);
    await page.close();
  });
});
