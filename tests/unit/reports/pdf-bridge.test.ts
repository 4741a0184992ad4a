// The desktop app's PDF path, utility-process half: the backend asks the main process to print
// ({pdf}) and waits for the bytes ({pdfResult}). Electron cannot run here, so the main process is
// played by the test, printing with the real headless Chromium renderer; everything on the
// utility side is the shipped code — the bridge alone, the backend with the bridge as its
// renderer, and the real backend-host.ts in a forked process with a parentPort stand-in.
import { fork, spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPdfBridge, PdfRequestMessageSchema, type PdfParentPort } from '../../../electron/main/pdf-bridge';
import { createBackend } from '../../../electron/services/backend';
import { createChromiumPdfRenderer } from '../../../electron/services/reports';
import { openTempStore, seedComparison, tempDir } from './fixtures';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const hasTools = fs.existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') && spawnSync('pdftotext', ['-v']).error === undefined;
const chromium = createChromiumPdfRenderer();
const out = tempDir('offload-pdf-bridge-');
let dataDir: string;
let ids: string[];

beforeAll(() => {
  const { store, dir } = openTempStore();
  ids = seedComparison(store);
  store.close();
  dataDir = dir;
});
afterAll(() => chromium.close());

/** A parentPort as the utility process sees it; `main` decides how each {pdf} request is answered. */
function fakeParentPort(main: (request: { id: number; html: string; pageSize: 'A4' | 'Letter' }, reply: (m: unknown) => void) => void) {
  const emitter = new EventEmitter();
  const posted: unknown[] = [];
  const reply = (m: unknown) => setImmediate(() => emitter.emit('message', { data: m }));
  const port: PdfParentPort = {
    on: (event, listener) => void emitter.on(event, listener),
    postMessage(message) {
      posted.push(message);
      const parsed = PdfRequestMessageSchema.safeParse(message);
      expect(parsed.success).toBe(true); // the utility side sends exactly what main.ts validates
      if (parsed.success) main(parsed.data.pdf, reply);
    },
  };
  return { port, posted, send: reply };
}

const text = (file: string) => spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' }).stdout.replace(/\s+/g, ' ');

describe.skipIf(!hasTools)('PDF bridge (utility process → main)', () => {
  it('exports a PDF through the backend with the bridge as its renderer', async () => {
    const { port, posted } = fakeParentPort(async (req, reply) => {
      const pdf = await chromium(req.html, { pageSize: req.pageSize });
      reply({ pdfResult: { id: req.id, data: pdf.toString('base64') } });
    });
    const bridge = createPdfBridge(port);
    const backend = createBackend({ dataDir, transport: 'electron', reportsPdfRenderer: bridge.render });
    try {
      const file = path.join(out, 'bridge.pdf');
      const res = await backend.invoke('reports/export', { runIds: ids, format: 'pdf', path: file, pageSize: 'Letter' });
      expect(res.bytes).toBe(fs.statSync(file).size);
      expect(posted).toHaveLength(1);
      expect((posted[0] as { pdf: { pageSize: string; html: string } }).pdf.pageSize).toBe('Letter');
      expect((posted[0] as { pdf: { html: string } }).pdf.html).toContain('@page { size: Letter');
      expect(text(file)).toMatch(/SuperOffload was \d\.\d+× faster than ZeRO-Offload \([^)]*\) — for llama-3\.3-70b on 4× GH200/);
    } finally {
      await backend.close();
    }
  });

  it('matches replies to requests by id, whatever their order, and ignores other messages', async () => {
    const waiting: { id: number; html: string }[] = [];
    const { port, send } = fakeParentPort((req) => void waiting.push(req));
    const bridge = createPdfBridge(port);
    const a = bridge.render('<p>first</p>', { pageSize: 'A4' });
    const b = bridge.render('<p>second</p>', { pageSize: 'A4' });
    expect(waiting.map((w) => w.html)).toEqual(['<p>first</p>', '<p>second</p>']);
    const pdfOf = async (html: string) => (await chromium(html, { pageSize: 'A4' })).toString('base64');
    // Noise first: a backend request, an unknown id, a malformed reply. None settles anything.
    send({ id: 7, channel: 'app/info', payload: {} });
    send({ pdfResult: { id: 999, data: await pdfOf('<p>stray</p>') } });
    send({ pdfResult: { id: waiting[0].id, data: 42 } });
    send({ pdfResult: { id: waiting[1].id, data: await pdfOf('<p>second</p>') } }); // answered out of order
    send({ pdfResult: { id: waiting[0].id, data: await pdfOf('<p>first</p>') } });
    const [pa, pb] = await Promise.all([a, b]);
    const fa = path.join(out, 'a.pdf');
    const fb = path.join(out, 'b.pdf');
    fs.writeFileSync(fa, pa);
    fs.writeFileSync(fb, pb);
    expect(text(fa)).toContain('first');
    expect(text(fb)).toContain('second');
  });

  it("turns main's error, a non-PDF answer and a silence into pdf_failed exports", async () => {
    const answers: ((req: { id: number }, reply: (m: unknown) => void) => void)[] = [
      (req, reply) => reply({ pdfResult: { id: req.id, error: 'printToPDF failed: render process gone' } }),
      (req, reply) => reply({ pdfResult: { id: req.id, data: Buffer.from('<html>not a pdf').toString('base64') } }),
      () => undefined, // main never answers
    ];
    let turn = 0;
    const { port } = fakeParentPort((req, reply) => answers[turn++](req, reply));
    const bridge = createPdfBridge(port, 1500);
    const backend = createBackend({ dataDir, transport: 'electron', reportsPdfRenderer: bridge.render });
    try {
      const attempt = (name: string) =>
        backend.invoke('reports/export', { runIds: ids.slice(0, 1), format: 'pdf', path: path.join(out, name) });
      await expect(attempt('e1.pdf')).rejects.toMatchObject({
        code: 'pdf_failed',
        message: expect.stringContaining('render process gone'),
      });
      await expect(attempt('e2.pdf')).rejects.toMatchObject({ code: 'pdf_failed', message: expect.stringContaining('not a PDF') });
      await expect(attempt('e3.pdf')).rejects.toMatchObject({ code: 'pdf_failed', message: expect.stringContaining('within 2 s') });
      for (const f of ['e1.pdf', 'e2.pdf', 'e3.pdf']) expect(fs.existsSync(path.join(out, f))).toBe(false);
    } finally {
      await backend.close();
    }
  });

  it('runs in the real backend-host.ts: a reports/export request comes back with a PDF printed by "main"', async () => {
    const child = fork(path.join(repoRoot, 'electron', 'main', 'backend-host.ts'), [], {
      cwd: repoRoot,
      execArgv: ['--import', 'tsx', '--import', pathToFileURL(path.join(import.meta.dirname, 'parent-port-shim.mjs')).href],
      env: { ...process.env, OFFLOAD_STUDIO_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    try {
      const file = path.join(out, 'host.pdf');
      let printed = 0;
      const result = await new Promise<{ ok: boolean; value?: { bytes: number }; error?: unknown }>((resolve, reject) => {
        child.on('exit', (code) => reject(new Error(`backend-host exited (${code}): ${stderr}`)));
        child.on('message', async (message: { id?: number; result?: never; pdf?: unknown }) => {
          // Playing main.ts: a {pdf} request is validated and answered with Chromium's PDF.
          const pdf = PdfRequestMessageSchema.safeParse(message);
          if (pdf.success) {
            printed++;
            const bytes = await chromium(pdf.data.pdf.html, { pageSize: pdf.data.pdf.pageSize });
            child.send({ pdfResult: { id: pdf.data.pdf.id, data: bytes.toString('base64') } });
          } else if (message.id === 1) resolve(message.result!);
        });
        child.send({ id: 1, channel: 'reports/export', payload: { runIds: ids, format: 'pdf', path: file, pageSize: 'A4' } });
      });
      expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
      expect(printed).toBe(1);
      expect(result.value!.bytes).toBe(fs.statSync(file).size);
      expect(text(file)).toContain('Offload Studio benchmark report');
    } finally {
      child.removeAllListeners('exit');
      child.kill();
    }
  });
});
