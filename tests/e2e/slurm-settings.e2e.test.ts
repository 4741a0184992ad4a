// Settings → Slurm clusters in a real Chromium against a real `serve` and a real Slurm (the
// controller and node the test starts: tests/cluster/slurm-lab.ts): a target typed into the form
// lands in slurm-targets.json, Detect nodes shows the partition's shape from scontrol, Pre-flight
// runs its tiny job and shows every check; a partition Slurm does not know is shown in Slurm's words.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { engineVenvs, venvPython } from '../../electron/services/environment';
import { startSlurmLab, slurmUnavailable, type SlurmLab } from '../cluster/slurm-lab';
import { launchChromium } from '../helpers/browser';
import { startServe, type ServeHandle } from '../helpers/serve';

const [engineVenv] = engineVenvs();
const VENV_PYTHON = engineVenv ? venvPython(engineVenv) : 'no engine venv';
const skipReason = slurmUnavailable() ?? (fs.existsSync(VENV_PYTHON) ? null : `no engine interpreter (run scripts/setup-engine-venv.sh)`);
if (skipReason) console.log(`[slurm settings e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('Settings → Slurm clusters', () => {
  let lab: SlurmLab;
  let serve: ServeHandle;
  let browser: Browser;

  beforeAll(async () => {
    lab = await startSlurmLab({ nodes: [{ name: 'node1', addr: '127.0.0.1' }], controllerAddr: '127.0.0.1' });
    serve = await startServe([], fs.mkdtempSync(path.join(os.tmpdir(), 'offload-slurm-e2e-')), { env: lab.env });
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    lab?.stop();
  });

  it('saves a target from the form, detects its partition and pre-flights it with a tiny job', { timeout: 120_000 }, async () => {
    const page = await browser.newPage();
    await page.goto(serve.url + '#/settings');
    await page.waitForSelector('[data-testid="slurm-card"]');
    const fill = async (field: string, value: string) => page.fill(`[data-testid="slurm-${field}"]`, value);
    await fill('name', 'lab');
    await fill('partition', lab.partition);
    await fill('timeLimitMinutes', '5');
    await fill('gpusPerNode', '0');
    await fill('pythonPath', VENV_PYTHON);
    await fill('workDir', path.join(lab.dir, 'shared'));
    await page.selectOption('[data-testid="slurm-sweepMode"]', 'chain');
    await page.click('[data-testid="slurm-save"]');
    await page.waitForSelector('[data-testid="slurm-lab"]');
    const stored = JSON.parse(fs.readFileSync(path.join(serve.dataDir, 'slurm-targets.json'), 'utf8')) as {
      targets: { target: Record<string, unknown> }[];
    };
    expect(stored.targets[0].target).toMatchObject({
      kind: 'slurm',
      name: 'lab',
      partition: 'lab',
      nodes: 1,
      gpusPerNode: 0,
      timeLimitMinutes: 5,
      sweepMode: 'chain',
    });

    await page.click('[data-testid="slurm-lab"] >> text=Detect nodes');
    await page.waitForSelector('[data-testid="slurm-detected-lab"]');
    expect(await page.textContent('[data-testid="slurm-detected-lab"]')).toMatch(
      /^1 node\(s\) in lab: 2 CPUs, .* memory, 0 GPU\(s\) per node/,
    );

    await page.click('[data-testid="slurm-lab"] >> text=Pre-flight');
    await page.waitForSelector('[data-testid="slurm-preflight-lab"]', { timeout: 90_000 });
    const table = (await page.textContent('[data-testid="slurm-preflight-lab"]')) ?? '';
    expect(table).toContain('Ready for jobs.');
    expect(table).toMatch(/shared✓node1 reads/);
    expect(table).toMatch(/engine✓node1: python 3/);
  });

  it("shows Slurm's own message for a partition it does not know", { timeout: 60_000 }, async () => {
    const page = await browser.newPage();
    await page.goto(serve.url + '#/settings');
    await page.waitForSelector('[data-testid="slurm-card"]');
    await page.fill('[data-testid="slurm-name"]', 'wrong');
    await page.fill('[data-testid="slurm-partition"]', 'nosuch');
    await page.fill('[data-testid="slurm-pythonPath"]', VENV_PYTHON);
    await page.fill('[data-testid="slurm-workDir"]', path.join(lab.dir, 'shared'));
    await page.click('[data-testid="slurm-save"]');
    await page.waitForSelector('[data-testid="slurm-wrong"]');
    await page.click('[data-testid="slurm-wrong"] >> text=Detect nodes');
    await page.waitForSelector('[data-testid="slurm-card"] [role="alert"]');
    expect(await page.textContent('[data-testid="slurm-card"] [role="alert"]')).toMatch(
      /Slurm does not know partition 'nosuch': Partition nosuch not found\./,
    );
  });
});
