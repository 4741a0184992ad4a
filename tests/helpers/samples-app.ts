// One real `serve` holding the sample runs (plus a failed run and an allocator-retry run) and one
// Chromium, started before a test file's tests and stopped after them: the set-up every page test
// against the samples shares. Call useSamplesApp() at the top of a test file; its fields are filled
// once beforeAll has run.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from './browser';
import { invokeOverServe, repoRoot, startServe, type ServeHandle } from './serve';
import { samplesWithFailedRun } from './samples-with-failed-run';

export interface SamplesApp {
  serve: ServeHandle;
  browser: Browser;
  /** Whether this machine has a GPU: the no-GPU words and defaults are checked only where it has none. */
  machineHasGpu: boolean;
  /** Where screenshots go (test-results/e2e, kept by CI). */
  artifacts: string;
  invoke<T>(channel: string, payload: unknown): Promise<T>;
}

export function useSamplesApp(): SamplesApp {
  const app: SamplesApp = {
    serve: undefined as unknown as ServeHandle,
    browser: undefined as unknown as Browser,
    machineHasGpu: false,
    artifacts: path.join(repoRoot, 'test-results', 'e2e'),
    invoke: <T>(channel: string, payload: unknown) => invokeOverServe<T>(app.serve, channel, payload),
  };
  beforeAll(async () => {
    fs.mkdirSync(app.artifacts, { recursive: true });
    app.serve = await startServe([], samplesWithFailedRun());
    app.browser = await launchChromium();
    app.machineHasGpu = (await app.invoke<{ gpus: unknown[] }>('hardware/detect', {})).gpus.length > 0;
  });
  afterAll(async () => {
    await app.browser?.close();
    await app.serve?.stop();
  });
  return app;
}
