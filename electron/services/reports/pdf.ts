// HTML → PDF. The reports service never imports electron: it takes a `PdfRenderer`. The default
// prints with headless Chromium (serve, CLI); the Electron app may pass one built on
// webContents.printToPDF. Chromium is spawned with an argument vector, never through a shell,
// with its own throw-away profile, and reads the report from a file in a private temp folder.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export type PdfRenderer = (html: string, options: { pageSize: 'A4' | 'Letter' }) => Promise<Buffer>;

export class PdfError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdfError';
  }
}

export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

/** Page size comes from the document's `@page { size }` rule, which the HTML writer sets. */
export function createChromiumPdfRenderer(executable = chromiumPath(), timeoutMs = 60_000): PdfRenderer {
  return async (html) => {
    if (!fs.existsSync(executable))
      throw new PdfError(`Chromium not found at ${executable}: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH.`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offload-report-pdf-'));
    try {
      const input = path.join(dir, 'report.html');
      const output = path.join(dir, 'report.pdf');
      fs.writeFileSync(input, html);
      const args = [
        '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
        '--no-first-run', '--no-default-browser-check', '--disable-extensions', '--mute-audio',
        `--user-data-dir=${path.join(dir, 'profile')}`,
        '--no-pdf-header-footer',
        `--print-to-pdf=${output}`,
        pathToFileURL(input).href,
      ];
      await new Promise<void>((resolve, reject) => {
        execFile(executable, args, { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (error, _stdout, stderr) => {
          if (error && !fs.existsSync(output)) reject(new PdfError(`Chromium could not print the report: ${error.message}${stderr ? `\n${String(stderr).split('\n').slice(-5).join('\n')}` : ''}`));
          else resolve();
        });
      });
      const pdf = fs.readFileSync(output);
      if (pdf.subarray(0, 5).toString() !== '%PDF-') throw new PdfError('Chromium wrote something that is not a PDF.');
      return pdf;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
}
