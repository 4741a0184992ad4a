// The Electron shell: one window, locked down; the backend runs in a utility process so the
// main thread only relays messages. This is the ONLY folder that imports 'electron'.
import path from 'node:path';
import { app, BrowserWindow, ipcMain, session, shell, utilityProcess, type UtilityProcess } from 'electron';
import { channels, eventNames, isChannel, type WireResult } from '../contract';

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
    for (const [, resolve] of pending) resolve({ ok: false, error: { code: 'backend_exited', message: `The backend process exited (code ${code}). Restart Offload Studio.` } });
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

function isOwnPage(url: string): boolean {
  return url.startsWith('file://') && url.includes('/dist/renderer/');
}

function registerIpc(): void {
  for (const channel of channels) {
    ipcMain.handle(channel, async (event, payload: unknown) => {
      // Only our own page may call the backend.
      if (!isOwnPage(event.senderFrame?.url ?? '')) return { ok: false, error: { code: 'forbidden', message: 'Request from an unknown page.' } };
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
    webPreferences: {
      preload: path.join(__dirname, '..', 'preload', 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
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

app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
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
