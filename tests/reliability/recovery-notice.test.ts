// The recovery notice ("N run(s) left running … were marked interrupted") is raised
// at start-up, before any browser can connect to `serve`. The backend keeps every notice until a
// client acknowledges it (app/notice-ack): a browser connecting later reads it with app/notices,
// and the page acks it once shown (renderer/src/components/NoticeBar.tsx), checked in Chromium
// when the built renderer has the notice bar.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser';
import { FAKE_PYTHON, alive, descendants, repoRoot, spawnServe, tinySweep, tmpDir, trackedServes, until } from './helpers';

const { started, connect } = trackedServes();

interface Notice {
  id: string;
  level: string;
  message: string;
}

/** A data folder whose last serve died mid-run (serve and runner SIGKILLed at once). */
async function crashedMidRun(): Promise<{ dataDir: string; runId: string }> {
  const dataDir = tmpDir('os-notice-');
  const first = await spawnServe(dataDir, { FAKE_RUNNER_DELAY: '0.3', FAKE_RUNNER_STEPS: '60' });
  started.push(first);
  const ws = await connect(first);
  const { sweepId, runIds } = await ws.value<{ sweepId: string; runIds: string[] }>('runs/start', tinySweep(FAKE_PYTHON));
  await ws.waitEvent((e) => e.event === 'runs/progress' && (e.payload as { sweepId: string }).sweepId === sweepId, 60_000);
  const all = [...descendants(first.child.pid!), first.child.pid!];
  for (const pid of all) process.kill(pid, 'SIGKILL');
  await first.exited;
  await until(() => all.every((p) => !alive(p)), 10_000, 'the crashed app gone');
  return { dataDir, runId: runIds[0] };
}

describe('recovery notice survives until a client acknowledges it', () => {
  it('a client connecting after start-up reads it with app/notices; an ack removes it for every client', { timeout: 120_000 }, async () => {
    const { dataDir } = await crashedMidRun();
    const serve = await spawnServe(dataDir);
    started.push(serve);
    // Connect well after the start-up tick that raised the notice: no client could have seen the event.
    await until(async () => (await fetch(`${serve.origin}/healthz?token=${serve.token}`)).ok, 10_000, 'serve answering');
    const late = await connect(serve);
    expect(
      late.events.filter((e) => e.event === 'app/notice'),
      'the event went out before anyone listened',
    ).toEqual([]);
    const { notices } = await late.value<{ notices: Notice[] }>('app/notices', {});
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ level: 'warning', message: expect.stringMatching(/1 run\(s\) left running .* marked interrupted/) });

    // Unacknowledged: a second client sees the same notice.
    const other = await connect(serve);
    expect((await other.value<{ notices: Notice[] }>('app/notices', {})).notices.map((n) => n.id)).toEqual([notices[0].id]);

    expect(await late.value('app/notice-ack', { id: notices[0].id })).toEqual({ acknowledged: true });
    expect(await other.value('app/notice-ack', { id: notices[0].id }), 'a second ack is a no-op').toEqual({ acknowledged: false });
    expect((await (await connect(serve)).value<{ notices: Notice[] }>('app/notices', {})).notices).toEqual([]);
    // Bad acks are refused by the schema, naming the field.
    const bad = await late.request('app/notice-ack', { id: '' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad_request', field: 'id' } });

    // A clean restart raises nothing new (the rows are already interrupted).
    await serve.stop();
    const again = await spawnServe(dataDir);
    started.push(again);
    expect((await (await connect(again)).value<{ notices: Notice[] }>('app/notices', {})).notices).toEqual([]);
  });

  it(
    'kept in the data folder: a second (and third) restart before any client connected still has it, same id, until acknowledged',
    { timeout: 180_000 },
    async () => {
      const { dataDir } = await crashedMidRun();
      // First restart raises it; nobody connects; the machine goes down again (SIGKILL) — then a clean stop.
      const first = await spawnServe(dataDir);
      started.push(first);
      await until(() => fs.existsSync(path.join(dataDir, 'notices.json')), 10_000, 'notices.json written');
      process.kill(first.child.pid!, 'SIGKILL');
      await first.exited;
      const second = await spawnServe(dataDir);
      started.push(second);
      await second.stop();
      const third = await spawnServe(dataDir);
      started.push(third);
      const ws = await connect(third);
      const { notices } = await ws.value<{ notices: Notice[] }>('app/notices', {});
      expect(notices, 'one notice, not lost and not duplicated by the restarts').toHaveLength(1);
      expect(notices[0]).toMatchObject({
        level: 'warning',
        message: expect.stringMatching(/1 run\(s\) left running .* marked interrupted/),
      });
      expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'notices.json'), 'utf8')).notices.map((n: Notice) => n.id)).toEqual([
        notices[0].id,
      ]);
      expect((fs.statSync(path.join(dataDir, 'notices.json')).mode & 0o777).toString(8)).toBe('600');
      expect(await ws.value('app/notice-ack', { id: notices[0].id })).toEqual({ acknowledged: true });
      expect(fs.existsSync(path.join(dataDir, 'notices.json')), 'nothing pending: the file is removed').toBe(false);
      await third.stop();
      const fourth = await spawnServe(dataDir);
      started.push(fourth);
      expect(
        (await (await connect(fourth)).value<{ notices: Notice[] }>('app/notices', {})).notices,
        'acknowledged stays acknowledged',
      ).toEqual([]);
      await fourth.stop();
      // A damaged file is ignored (entries checked against the contract), not a crash.
      fs.writeFileSync(
        path.join(dataDir, 'notices.json'),
        JSON.stringify({ notices: [{ id: 'ok-1', level: 'info', message: 'kept' }, { id: 2, level: 'loud', message: null }, '__proto__'] }),
      );
      const fifth = await spawnServe(dataDir);
      started.push(fifth);
      expect((await (await connect(fifth)).value<{ notices: Notice[] }>('app/notices', {})).notices).toEqual([
        { id: 'ok-1', level: 'info', message: 'kept' },
      ]);
      await fifth.stop();
      fs.writeFileSync(path.join(dataDir, 'notices.json'), '{not json');
      const sixth = await spawnServe(dataDir);
      started.push(sixth);
      expect((await (await connect(sixth)).value<{ notices: Notice[] }>('app/notices', {})).notices).toEqual([]);
    },
  );

  const built = path.join(repoRoot, 'dist', 'renderer');
  const hasNoticeBar =
    fs.existsSync(path.join(built, 'assets')) &&
    fs
      .readdirSync(path.join(built, 'assets'))
      .some((f) => f.endsWith('.js') && fs.readFileSync(path.join(built, 'assets', f), 'utf8').includes('Dismiss notice'));
  it.skipIf(!hasNoticeBar)(
    'the page opened after start-up shows the notice and acknowledges it (Chromium)',
    { timeout: 120_000 },
    async () => {
      const { dataDir } = await crashedMidRun();
      const serve = await spawnServe(dataDir);
      started.push(serve);
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(serve.url);
        const notice = page.getByTestId('notice');
        await notice.waitFor({ timeout: 30_000 });
        expect(await notice.textContent()).toMatch(/marked interrupted/);
        // The page acked it once shown: the backend no longer holds it.
        const ws = await connect(serve);
        await until(
          async () => (await ws.value<{ notices: Notice[] }>('app/notices', {})).notices.length === 0,
          10_000,
          'the page to ack the notice',
        );
        await page.getByRole('button', { name: 'Dismiss notice' }).click();
        await page.getByTestId('notice').waitFor({ state: 'detached', timeout: 5_000 });
      } finally {
        await browser.close();
      }
    },
  );
});
