// The Electron shell: one window, locked down; the backend runs in a utility process so the
// main thread only relays messages. This is the ONLY folder that imports 'electron'.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, ipcMain, session, shell, utilityProcess, type UtilityProcess } from 'electron';
import { mainWindowWebPreferences } from './window-options';
import { channels, eventNames, isChannel, type WireResult } from '../contract';
import { PdfRequestMessageSchema, type PdfReplyMessage, type PdfRequestMessage } from './pdf-bridge';

let backend: UtilityProcess | null = null;
let mainWindow: BrowserWindow | null = null;
let nextId = 1;
const pending = new Map<number, (result: WireResult<unknown>) => void>();

function appRoot(): string {
  // dist/main/main.cjs → repo root (dev) or app.asar root (packaged).
  return path.resolve(__dirname, '..', '..');
}

function startBackend(): UtilityProcess {
  const child = utilityProcess.fork(path.join(__dirname, 'backend-host.cjs'), [], {
    serviceName: 'Offload Studio backend',
    env: {
      ...process.env,
      OFFLOAD_STUDIO_DATA_DIR: app.getPath('userData'),
      OFFLOAD_STUDIO_RESOURCES: app.isPackaged ? process.resourcesPath : path.join(appRoot(), 'resources'),
    },
  });
  child.on('message', (message: { id?: number; result?: WireResult<unknown>; event?: string; payload?: unknown }) => {
    const pdf = PdfRequestMessageSchema.safeParse(message);
    if (pdf.success) {
      void replyWithPdf(child, pdf.data.pdf);
      return;
    }
    if (message.event) {
      mainWindow?.webContents.send(`event:${message.event}`, message.payload);
      return;
    }
    if (message.id !== undefined && message.result) {
      pending.get(message.id)?.(message.result);
      pending.delete(message.id);
    }
  });
  child.on('exit', (code) => {
    for (const [, resolve] of pending)
      resolve({
        ok: false,
        error: { code: 'backend_exited', message: `The backend process exited (code ${code}). Restart Offload Studio.` },
      });
    pending.clear();
    backend = null;
  });
  return child;
}

function callBackend(channel: string, payload: unknown): Promise<WireResult<unknown>> {
  if (!backend) backend = startBackend();
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    backend!.postMessage({ id, channel, payload });
  });
}

// Report printing for the backend (see pdf-bridge.ts). The report is our own self-contained HTML
// (no script, a CSP of default-src 'none'); it is still shown only in a hidden, sandboxed window
// with JavaScript off, on an in-memory session that may load nothing but the report file itself.
const PDF_PARTITION = 'offload-report-pdf';
const printableUrls = new Set<string>();

function lockDownPdfSession(): void {
  const pdfSession = session.fromPartition(PDF_PARTITION);
  pdfSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  pdfSession.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !printableUrls.has(details.url) }));
}

async function printToPdf(html: string, pageSize: 'A4' | 'Letter'): Promise<Buffer> {
  // A temp file, not a data: URL: Chromium caps URLs at 2 MB and a large report is bigger.
  const dir = await fs.promises.mkdtemp(path.join(app.getPath('temp'), 'offload-report-'));
  const file = path.join(dir, 'report.html');
  const url = pathToFileURL(file).href;
  await fs.promises.writeFile(file, html);
  printableUrls.add(url);
  const win = new BrowserWindow({
    show: false,
    width: 1100,
    height: 1400,
    webPreferences: {
      partition: PDF_PARTITION,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      javascript: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  try {
    win.webContents.on('will-navigate', (event) => event.preventDefault());
    win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
    await win.loadURL(url);
    return await win.webContents.printToPDF({ pageSize, printBackground: true, preferCSSPageSize: true });
  } finally {
    printableUrls.delete(url);
    win.destroy();
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

async function replyWithPdf(child: UtilityProcess, request: PdfRequestMessage['pdf']): Promise<void> {
  let reply: PdfReplyMessage;
  try {
    reply = { pdfResult: { id: request.id, data: (await printToPdf(request.html, request.pageSize)).toString('base64') } };
  } catch (error) {
    reply = { pdfResult: { id: request.id, error: `printToPDF failed: ${(error as Error).message}` } };
  }
  if (child.pid !== undefined) child.postMessage(reply); // not to a backend that has exited meanwhile
}

function isOwnPage(url: string): boolean {
  return url.startsWith('file://') && url.includes('/dist/renderer/');
}

function registerIpc(): void {
  for (const channel of channels) {
    ipcMain.handle(channel, async (event, payload: unknown) => {
      // Only our own page may call the backend.
      if (!isOwnPage(event.senderFrame?.url ?? ''))
        return { ok: false, error: { code: 'forbidden', message: 'Request from an unknown page.' } };
      if (!isChannel(channel)) return { ok: false, error: { code: 'unknown_channel', message: channel } };
      return callBackend(channel, payload);
    });
  }
}

function createWindow(): void {
  mainWindow = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 1100,
    minHeight: 700,
    title: 'Offload Studio',
    show: false,
    webPreferences: mainWindowWebPreferences(path.join(__dirname, '..', 'preload', 'preload.cjs')),
  });
  mainWindow.once('ready-to-show', () => mainWindow?.show());
  // No navigation away from the app, no new windows; external links open in the browser.
  mainWindow.webContents.on('will-navigate', (event, url) => {
    if (!isOwnPage(url)) event.preventDefault();
  });
  mainWindow.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  void mainWindow.loadFile(path.join(appRoot(), 'dist', 'renderer', 'index.html'));
}

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-attach-webview', (event) => event.preventDefault());
});

void app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  lockDownPdfSession();
  registerIpc();
  backend = startBackend();
  createWindow();
  // Let the renderer subscribe to every contract event.
  void eventNames;
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app.on('before-quit', () => {
  backend?.kill();
});
