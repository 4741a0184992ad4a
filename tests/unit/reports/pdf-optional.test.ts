// playwright-core is optional (serve/CLI PDF export only): when it is absent, PDF export says what
// to install instead of a Chromium launch error; present, it loads.
import { describe, expect, it } from 'vitest';
import { loadPlaywright, PdfError } from '../../../electron/services/reports/pdf';

describe('loadPlaywright', () => {
  it('names the missing optional dependency and the command that adds it', async () => {
    const missing = () =>
      Promise.reject(
        Object.assign(new Error("Cannot find package 'playwright-core' imported from /x/cli.mjs"), { code: 'ERR_MODULE_NOT_FOUND' }),
      );
    const error = await loadPlaywright(missing).catch((e) => e);
    expect(error).toBeInstanceOf(PdfError);
    expect(error.message).toMatch(/needs playwright-core .*optional dependency.*npm install playwright-core/);
    expect(error.message).toMatch(/HTML, CSV, JSON and bundle exports do not need it/);
  });
  it('passes other failures through unchanged', async () => {
    const broken = () => Promise.reject(new Error('boom'));
    await expect(loadPlaywright(broken)).rejects.toThrow(/^boom$/);
  });
  it('loads the installed one', async () => {
    const pw = await loadPlaywright();
    expect(typeof pw.chromium.launch).toBe('function');
  });
});
