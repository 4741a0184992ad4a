// Settings service on real files in a temp folder: defaults, read-merge-write that keeps keys of
// other services, refusal naming the field, atomic writes, the data folder pointer.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSettingsService, DEFAULT_SETTINGS, followDataDirPointer, POINTER_FILE } from '../../../electron/services/settings';
import { defaultDataDir } from '../../../electron/services/backend/data-dir';

let home: string;
let dataDir: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'offload-settings-home-'));
  dataDir = home;
});

describe('settings', () => {
  it('returns defaults when there is no file', () => {
    const view = createSettingsService({ dataDir, defaultDataDir: home }).get();
    expect(view.settings).toEqual(DEFAULT_SETTINGS);
    expect(view.dataDir.restartRequired).toBe(false);
  });

  it('merges into settings.json without clobbering keys it does not know', () => {
    fs.writeFileSync(
      path.join(dataDir, 'settings.json'),
      JSON.stringify({ pythonPath: '/usr/bin/python3', environment: { lastProbe: 42 } }),
    );
    const service = createSettingsService({ dataDir, defaultDataDir: home });
    const view = service.update({ theme: 'dark', defaultSteps: 20 });
    expect(view.settings).toMatchObject({ theme: 'dark', defaultSteps: 20, pythonPath: '/usr/bin/python3' });
    const raw = JSON.parse(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8'));
    expect(raw.environment).toEqual({ lastProbe: 42 });
    expect(fs.readdirSync(dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([]); // temp file renamed away
  });

  it('refuses a bad value and names the field, leaving the file as it was', () => {
    const service = createSettingsService({ dataDir, defaultDataDir: home });
    service.update({ defaultRepeats: 4 });
    expect(() => service.update({ defaultRepeats: 0 })).toThrow(/defaultRepeats/);
    expect(() => service.update({ theme: 'neon' })).toThrow(/theme/);
    expect(() => service.update({ colour: 'red' })).toThrow(/colour|unrecognized/i);
    expect(() => service.update({ dataDir: 'relative/path' })).toThrow(/dataDir/);
    expect(service.get().settings.defaultRepeats).toBe(4);
  });

  it('a hand-broken value in the file falls back to its default only', () => {
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ defaultSteps: -3, theme: 'light' }));
    const view = createSettingsService({ dataDir, defaultDataDir: home }).get();
    expect(view.settings.defaultSteps).toBe(DEFAULT_SETTINGS.defaultSteps);
    expect(view.settings.theme).toBe('light');
  });

  it('moving the data folder writes a pointer in the default folder and asks for a restart', () => {
    const target = path.join(home, 'moved', 'data');
    fs.mkdirSync(path.dirname(target)); // only the last level is made (no tree of folders from a typo)
    const view = createSettingsService({ dataDir, defaultDataDir: home }).update({ dataDir: target });
    expect(view.dataDir).toMatchObject({ current: home, next: target, restartRequired: true });
    expect(view.dataDir.note).toMatch(/Restart/);
    expect(fs.existsSync(target)).toBe(true);
    expect(followDataDirPointer(home)).toBe(target);
    // What the CLI / serve resolve at the next start without --data-dir:
    expect(defaultDataDir({ OFFLOAD_STUDIO_DATA_DIR: home })).toBe(target);
    // In the new session nothing is pending; moving back removes the pointer.
    const next = createSettingsService({ dataDir: target, defaultDataDir: home });
    expect(next.get().dataDir.restartRequired).toBe(false);
    next.update({ dataDir: null });
    expect(fs.existsSync(path.join(home, POINTER_FILE))).toBe(false);
    expect(defaultDataDir({ OFFLOAD_STUDIO_DATA_DIR: home })).toBe(home);
  });

  it('a session started with --data-dir and no pointer asks for no restart', () => {
    // The README's `npm run serve -- --data-dir ~/offload-data`: the Settings page said 'Restart
    // Offload Studio to use ~/.config/Offload Studio' in a warning box on the first visit.
    const started = path.join(home, 'offload-data');
    fs.mkdirSync(started);
    const view = createSettingsService({ dataDir: started, defaultDataDir: home }).get();
    expect(view.dataDir).toMatchObject({ current: started, next: home, restartRequired: false });
    expect(view.dataDir.note).not.toMatch(/Restart/);
    expect(view.dataDir.note).toContain(`uses ${started}; a start without either uses ${home}`);
    // Moving the folder from such a session writes a pointer: then a restart is what it takes.
    const target = path.join(home, 'moved');
    fs.mkdirSync(target);
    const moved = createSettingsService({ dataDir: started, defaultDataDir: home }).update({ dataDir: target });
    expect(moved.dataDir).toMatchObject({ next: target, restartRequired: true });
    expect(moved.dataDir.note).toMatch(/^Restart Offload Studio to use /);
  });

  it('a corrupt pointer never stops the app: the default folder is used', () => {
    fs.writeFileSync(path.join(home, POINTER_FILE), '{not json');
    expect(followDataDirPointer(home)).toBe(home);
  });
});
