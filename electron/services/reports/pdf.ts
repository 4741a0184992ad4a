// HTML → PDF. The reports service never imports electron: it takes a `PdfRenderer`. The default
// prints with headless Chromium (serve, CLI); the Electron app passes one built on
// webContents.printToPDF (electron/main/pdf-bridge.ts).
//
// Why one long-lived browser: starting Chromium costs ~4 s on a small VM, more than printing a
// 50-run report. The first export launches it (lazily, so a backend that never prints never
// starts a browser); later exports only open a fresh context + page. It is closed on backend
// close and after `idleMs` without exports, so a CLI or test process is never kept alive by it.
import fs from 'node:fs';
import type { Browser } from 'playwright-core';

export type PdfRenderer = (html: string, options: { pageSize: 'A4' | 'Letter' }) => Promise<Buffer>;

/** A renderer that holds a process: call close() when its owner shuts down. */
export type ClosablePdfRenderer = PdfRenderer & { close(): Promise<void> };

export class PdfError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdfError';
  }
}

/**
 * playwright-core is an optionalDependency (package.json): serve and the CLI print PDFs through
 * it, the desktop app does not. Missing (installed with --omit=optional, or a bundle copied
 * without it), PDF export says so and what to do; every other export works.
 */
export async function loadPlaywright(
  importer: () => Promise<typeof import('playwright-core')> = () => import('playwright-core'),
): Promise<typeof import('playwright-core')> {
  try {
    return await importer();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (
      code === 'ERR_MODULE_NOT_FOUND' ||
      code === 'MODULE_NOT_FOUND' ||
      /Cannot find (package|module) 'playwright-core'/.test(String((error as Error).message))
    )
      throw new PdfError(
        'PDF export needs playwright-core (an optional dependency of Offload Studio) and it is not installed: run `npm install playwright-core` where Offload Studio is installed, then export again. HTML, CSV, JSON and bundle exports do not need it; an HTML report can also be printed to PDF from any browser.',
      );
    throw error;
  }
}

export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

export interface ChromiumPdfOptions {
  /** Per export (launch + print); a hung Chromium fails the export instead of the request hanging. */
  timeoutMs?: number;
  /** Close the browser after this long without an export. */
  idleMs?: number;
}

/** Page size comes from the document's `@page { size }` rule (the HTML writer sets it); `format` is the fallback. */
export function createChromiumPdfRenderer(executable = chromiumPath(), options: ChromiumPdfOptions = {}): ClosablePdfRenderer {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const idleMs = options.idleMs ?? 60_000;
  let browser: Promise<Browser> | null = null;
  let active = 0;
  let idleTimer: NodeJS.Timeout | null = null;

  const launch = (): Promise<Browser> => {
    if (browser) return browser;
    const launching = (async () => {
      // Loaded on first use: the Electron app never prints this way and does not ship playwright-core.
      const { chromium } = await loadPlaywright();
      // handleSIG*: false: Playwright's own handlers would exit the process (130) on Ctrl-C/SIGTERM
      // before `serve` has cancelled its runs; the owner's close() ends the browser instead.
      const b = await chromium.launch({
        executablePath: executable,
        headless: true,
        args: CHROMIUM_ARGS,
        timeout: timeoutMs,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      // A crashed or killed browser is forgotten, so the next export launches a new one.
      b.on('disconnected', () => {
        if (browser === launching) browser = null;
      });
      return b;
    })();
    browser = launching;
    // A failed launch is not cached: the next export tries again (e.g. after installing Chromium).
    launching.catch(() => {
      if (browser === launching) browser = null;
    });
    return launching;
  };

  const close = async (): Promise<void> => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    const current = browser;
    browser = null;
    if (current) await current.then((b) => b.close()).catch(() => undefined);
  };

  const armIdle = () => {
    if (idleTimer) clearTimeout(idleTimer);
    // unref: the timer alone never keeps a process alive (the browser's pipes may, until closed).
    idleTimer = setTimeout(() => void close(), idleMs);
    idleTimer.unref();
  };

  const render = async (html: string, { pageSize }: { pageSize: 'A4' | 'Letter' }): Promise<Buffer> => {
    if (!fs.existsSync(executable))
      throw new PdfError(`Chromium not found at ${executable}: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH.`);
    active++;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    try {
      let b: Browser;
      try {
        b = await launch();
      } catch (error) {
        if (error instanceof PdfError) throw error;
        throw new PdfError(`Chromium could not be started: ${(error as Error).message.split('\n').slice(0, 6).join('\n')}`);
      }
      // A fresh context per export: nothing (cache, storage) carries from one report to the next.
      // The report has no script and no remote content (its CSP says so): JS off, every request refused.
      const context = await b.newContext({ javaScriptEnabled: false, offline: true });
      try {
        await context.route('**/*', (route) => route.abort());
        const page = await context.newPage();
        page.setDefaultTimeout(timeoutMs);
        await page.setContent(html, { waitUntil: 'load', timeout: timeoutMs });
        const pdf = await page.pdf({ format: pageSize, printBackground: true, preferCSSPageSize: true });
        if (pdf.subarray(0, 5).toString() !== '%PDF-') throw new PdfError('Chromium wrote something that is not a PDF.');
        return pdf;
      } finally {
        await context.close().catch(() => undefined);
      }
    } catch (error) {
      if (error instanceof PdfError) throw error;
      throw new PdfError(`Chromium could not print the report: ${(error as Error).message.split('\n')[0]}`);
    } finally {
      active--;
      if (active === 0 && browser) armIdle();
    }
  };

  return Object.assign(render, { close });
}
