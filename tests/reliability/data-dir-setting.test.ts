// settings/update {dataDir}, against a real `serve`: it once accepted /etc, /proc and a missing tree
// and created them at once. Now only a folder of the user's, whose parent exists, is taken. Every
// test failed on the code before its fix.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WsClient, spawnServe, tmpDir, type ServeProcess } from './helpers';

describe("settings/update {dataDir} takes only a folder of the user's", () => {
  let serve: ServeProcess;
  let ws: WsClient;
  let base: string;
  beforeAll(async () => {
    base = tmpDir('os-small-base-');
    serve = await spawnServe(tmpDir('os-small-'), { OFFLOAD_STUDIO_DATA_DIR: base });
    ws = await WsClient.connect(serve.origin, serve.token);
  });
  afterAll(async () => {
    ws?.close();
    await serve?.stop();
  });

  it.each([
    ['/etc', /\/etc is a system folder/],
    ['/proc/self/cwd', /inside the system folder \/proc/],
    ['/usr/local/offload', /inside the system folder \/usr/],
    ['/tmp/../etc/offload', /\/etc\/offload is inside the system folder \/etc/],
    ['/', /root of the file system/],
    ['relative/folder', /absolute/],
  ])('%s is refused naming dataDir; nothing is created, no pointer written', async (dir, why) => {
    const r = await ws.request('settings/update', { dataDir: dir });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.field).toBe('dataDir');
      expect(r.error.message).toMatch(why);
    }
    expect(fs.existsSync('/etc/offload')).toBe(false);
    expect(fs.existsSync('/usr/local/offload')).toBe(false);
    expect(fs.existsSync(path.join(base, 'data-folder.json'))).toBe(false);
  });

  it('a folder whose parent is missing is refused (no tree of folders made); one whose parent exists is made and recorded', async () => {
    const root = tmpDir('os-small-target-');
    const deep = path.join(root, 'typo', 'a', 'b');
    const r = await ws.request('settings/update', { dataDir: deep });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/the folder .*typo\/a does not exist; create it first/);
    expect(fs.existsSync(path.join(root, 'typo'))).toBe(false);
    const good = path.join(root, 'studio-data');
    await ws.value('settings/update', { dataDir: good });
    expect(fs.statSync(good).isDirectory()).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(base, 'data-folder.json'), 'utf8')).dataDir).toBe(good);
    await ws.value('settings/update', { dataDir: null });
  });
});
