// A plan for another machine must not run here, in Chromium against a real `serve` (fresh
// data folder): a plan for a loaded H200 `detect --json` says so ("Planned for: … (loaded file)") on
// the Plan page and in the wizard, Run and Tune are not offered for it (with the reason), the
// backend refuses its specs, and one click plans the workload for this machine, where Run is offered.
// Screenshots go to test-results/e2e/planned-for-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { PlanResult } from '../../electron/contract';
import { launchChromium } from '../helpers/browser';
import { invokeOverServe, repoRoot, startServe, type ServeHandle } from '../helpers/serve';

let serve: ServeHandle;
let browser: Browser;
const artifacts = path.join(repoRoot, 'test-results', 'e2e');
const H200 = path.join(repoRoot, 'tests', 'fixtures', 'hosts', 'h200-sxm-x86', 'machine.json');
/** The Machine choice's label (the Plan page's select) and the plan's own (profile.machineLabel). */
const H200_LABEL = 'h200-sxm-x86 · 1 × NVIDIA H200';
const PLANNED_LABEL = 'h200-sxm-x86 — 1× NVIDIA H200';
const REASON = `This plan is for ${PLANNED_LABEL}, a loaded file: plan for this machine to run here.`;

const invoke = <T>(channel: string, payload: unknown) => invokeOverServe<T>(serve, channel, payload);

beforeAll(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  serve = await startServe();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

async function loadH200(page: Page) {
  await page.waitForSelector('[data-testid="machine-file"]');
  await page.setInputFiles('[data-testid="machine-file"]', H200);
  await expect.poll(async () => await page.textContent('[data-testid="machine-summary"]')).toMatch(/1 × NVIDIA H200/);
}

/** Run and Tune are not offered for the loaded machine's plan, and say why. */
async function expectBlocked(page: Page) {
  await expect.poll(() => page.isDisabled('[data-testid="start-sweep"]')).toBe(true);
  expect((await page.textContent('[data-testid="run-blocked"]'))?.trim()).toBe(REASON);
  expect(await page.getAttribute('[data-testid="start-sweep"]', 'title')).toBe(REASON);
  expect(await page.isDisabled('[data-testid="tune-start"]')).toBe(true);
  expect((await page.textContent('[data-testid="tune-blocked"]'))?.trim()).toBe(REASON);
}

/** Planned again for this machine: said so, and Run and Tune are offered. */
async function switchToThisMachine(page: Page) {
  await page.click('[data-testid="plan-this-machine"]');
  await page.waitForSelector('[data-testid="planned-for"][data-here="true"]', { timeout: 60_000 });
  expect(await page.textContent('[data-testid="planned-for"]')).toMatch(/^Planned for: .+ \(this machine\)$/);
  expect(await page.textContent('[data-testid="planned-for"]')).not.toContain('h200-sxm-x86');
  await expect.poll(() => page.isEnabled('[data-testid="start-sweep"]')).toBe(true);
  expect(await page.$('[data-testid="run-blocked"]')).toBeNull();
  expect(await page.isEnabled('[data-testid="tune-start"]')).toBe(true);
  expect(await page.$('[data-testid="tune-blocked"]')).toBeNull();
}

describe('a plan for another machine does not run here', () => {
  it('Plan page: "Planned for" the loaded file, Run and Tune disabled with the reason, back to this machine in one click', async () => {
    await invoke('wizard/save', { dismissed: true });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(serve.url + '#/plan');
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await loadH200(page);
    await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await page.fill('[data-testid="seq-len"]', '64');
    await page.click('[data-testid="compute-plan"]');
    await page.waitForSelector('[data-testid="planned-for"]', { timeout: 60_000 });
    expect(await page.getAttribute('[data-testid="planned-for"]', 'data-here')).toBe('false');
    expect(await page.textContent('[data-testid="planned-for"]')).toContain(`Planned for: ${PLANNED_LABEL} (loaded file)`);
    await expectBlocked(page);
    await page.screenshot({ path: path.join(artifacts, 'planned-for-1-plan-page-loaded.png'), fullPage: true });

    await switchToThisMachine(page);
    expect(await page.inputValue('[data-testid="machine-select"]')).toBe('this');
    await page.screenshot({ path: path.join(artifacts, 'planned-for-2-plan-page-this.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('serve --machine FILE: the plan says the loaded file, Run and Tune are not offered, and the backend refuses a run', async () => {
    const other = await startServe(['--machine', H200]);
    try {
      await invokeOverServe(other, 'wizard/save', { dismissed: true });
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(other.url + '#/plan');
      await page.evaluate(() => localStorage.clear());
      await page.reload();
      await page.waitForSelector('[data-testid="model-select"]', { timeout: 60_000 });
      await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
      await page.fill('[data-testid="seq-len"]', '64');
      await page.click('[data-testid="compute-plan"]');
      await page.waitForSelector('[data-testid="planned-for"]', { timeout: 60_000 });
      expect(await page.getAttribute('[data-testid="planned-for"]', 'data-here')).toBe('false');
      expect(await page.textContent('[data-testid="planned-for"]')).toContain(`Planned for: ${PLANNED_LABEL} (loaded file)`);
      await expect.poll(() => page.isDisabled('[data-testid="start-sweep"]')).toBe(true);
      expect(await page.isDisabled('[data-testid="tune-start"]')).toBe(true);
      // No "this machine" to plan for in such a session: the choice is named the loaded one, and no
      // "Plan for this machine" button that would plan for the file again.
      expect(await page.$eval('[data-testid="machine-select"]', (el) => (el as HTMLSelectElement).selectedOptions[0].textContent)).toBe(
        `${H200_LABEL} (loaded with --machine, not this machine)`,
      );
      expect(await page.$('[data-testid="plan-this-machine"]')).toBeNull();
      expect(await page.textContent('[data-testid="file-backed-session"]')).toContain(
        'start it without --machine to plan and run for this machine',
      );
      await page.screenshot({ path: path.join(artifacts, 'planned-for-7-serve-machine-file.png'), fullPage: true });
      const plan = await invokeOverServe<PlanResult>(other, 'plan/compute', {
        workload: { model: 'tiny-llama', seqLen: 64, microBatch: 1, gpus: 1 },
      });
      const spec = plan.strategies.find((s) => s.fits && s.spec.prediction)!.spec;
      await expect(invokeOverServe(other, 'runs/start', { specs: [spec], steps: 1, warmup: 0 })).rejects.toThrow(
        /loaded from a file with --machine, not the machine it runs on/,
      );
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await other.stop();
    }
  });

  it('the backend refuses runs/start of specs planned for a loaded machine', async () => {
    const machine = JSON.parse(fs.readFileSync(H200, 'utf8')) as unknown;
    const plan = await invoke<PlanResult>('plan/compute', {
      workload: { model: 'llama-3.2-3b', seqLen: 2048, microBatch: 1, gpus: 1 },
      machine,
    });
    const spec = plan.strategies.find((s) => s.fits && s.spec.prediction)!.spec;
    expect(spec.prediction).toMatchObject({ machineSource: 'file', machineLabel: PLANNED_LABEL });
    await expect(invoke('runs/start', { specs: [spec], steps: 1, warmup: 0 })).rejects.toThrow(
      /This plan is for h200-sxm-x86 — 1× NVIDIA H200, a loaded file, not this machine: plan for this machine to run here/,
    );
    expect((await invoke<{ runs: unknown[] }>('runs/list', {})).runs).toHaveLength(0);
  });

  it('wizard: the workload step has the "Plan for" control — this machine by default, said so — and a file loaded there is said and not run', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(serve.url + '#/plan');
    await page.evaluate(() => localStorage.clear());
    await invoke('wizard/save', { step: 'workload', completed: ['welcome', 'hardware', 'environment', 'measure'], dismissed: false });
    await page.evaluate(() => (window.location.hash = '#/setup'));
    await page.reload();
    await page.waitForSelector('[data-testid="setup-wizard"][data-wizard-step="workload"]', { timeout: 60_000 });
    const wizard = '[data-testid="setup-wizard"]';
    // Explicit even for this machine: the control shows which machine the plan will be for.
    await page.waitForSelector(`${wizard} [data-testid="machine-select"]`);
    expect(await page.inputValue(`${wizard} [data-testid="machine-select"]`)).toBe('this');
    expect(
      await page.$eval(`${wizard} [data-testid="machine-select"]`, (el) => (el as HTMLSelectElement).selectedOptions[0].textContent),
    ).toMatch(/^This machine — /);
    expect(await page.$('[data-testid="wizard-plan-for"]')).toBeNull();
    await page.screenshot({ path: path.join(artifacts, 'planned-for-6-wizard-workload-this.png'), fullPage: true });

    await page.setInputFiles(`${wizard} [data-testid="machine-file"]`, H200);
    expect(await page.textContent('[data-testid="wizard-plan-for"]')).toContain(
      `Will plan for: ${H200_LABEL} (from machine.json), a loaded file — not this machine: its plan cannot be run or tuned here.`,
    );
    await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await page.fill('[data-testid="seq-len"]', '64');
    await page.click('[data-testid="wizard-next"]');
    await page.waitForSelector('[data-testid="wizard-plan"] [data-testid="planned-for"][data-here="false"]', { timeout: 60_000 });
    await page.click('[data-testid="wizard-next"]');
    await page.waitForSelector('[data-testid="setup-wizard"][data-wizard-step="run"]', { timeout: 60_000 });
    await expectBlocked(page);
    expect(errors).toEqual([]);
    await invoke('wizard/save', { dismissed: true });
    await page.close();
  });

  it('wizard: the machine loaded on the Plan page is said at the workload and plan steps, and its plan is not run', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(serve.url + '#/plan');
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await loadH200(page);
    // Then Setup, resumed at the workload step (the path: Plan → load → Setup → Workload → Plan it).
    await invoke('wizard/save', { step: 'workload', completed: ['welcome', 'hardware', 'environment', 'measure'], dismissed: false });
    await page.evaluate(() => (window.location.hash = '#/setup'));
    await page.waitForSelector('[data-testid="setup-wizard"][data-wizard-step="workload"]', { timeout: 60_000 });
    expect(await page.textContent('[data-testid="wizard-plan-for"]')).toContain(
      `Will plan for: ${H200_LABEL} (from machine.json), a loaded file — not this machine: its plan cannot be run or tuned here.`,
    );
    await page.selectOption('[data-testid="model-select"]', 'tiny-llama');
    await page.fill('[data-testid="seq-len"]', '64');
    await page.click('[data-testid="wizard-next"]');

    await page.waitForSelector('[data-testid="setup-wizard"][data-wizard-step="plan"]', { timeout: 60_000 });
    await page.waitForSelector('[data-testid="wizard-plan"] [data-testid="planned-for"]', { timeout: 60_000 });
    expect(await page.textContent('[data-testid="planned-for"]')).toContain(`Planned for: ${PLANNED_LABEL} (loaded file)`);
    await page.screenshot({ path: path.join(artifacts, 'planned-for-3-wizard-plan.png'), fullPage: true });
    await page.click('[data-testid="wizard-next"]');

    await page.waitForSelector('[data-testid="setup-wizard"][data-wizard-step="run"]', { timeout: 60_000 });
    expect(await page.textContent('[data-testid="wizard-run"] [data-testid="planned-for"]')).toContain(
      `Planned for: ${PLANNED_LABEL} (loaded file)`,
    );
    await expectBlocked(page);
    await page.screenshot({ path: path.join(artifacts, 'planned-for-4-wizard-run-loaded.png'), fullPage: true });
    await switchToThisMachine(page);
    await page.screenshot({ path: path.join(artifacts, 'planned-for-5-wizard-run-this.png'), fullPage: true });
    expect(errors).toEqual([]);
    await invoke('wizard/save', { dismissed: true });
    await page.close();
  });
});
