// Runs the backend inside Electron's utility process (plain Node, no 'electron' import), so
// detection, SQLite and child-process work never block the main thread.
import { eventNames, toWireError, type Channel, type WireResult } from '../contract';
import { createBackend } from '../services/backend';
import { followDataDirPointer } from '../services/settings';
import { createPdfBridge } from './pdf-bridge';

interface ParentPort {
  // Requests from main ({id, channel, payload}) and replies to our PDF requests ({pdfResult}).
  on(event: 'message', listener: (message: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

const parentPort = (process as unknown as { parentPort: ParentPort }).parentPort;
const baseDir = process.env.OFFLOAD_STUDIO_DATA_DIR;
if (!baseDir) throw new Error('OFFLOAD_STUDIO_DATA_DIR is not set');
// A data folder moved in Settings is recorded as a pointer in the default folder; follow it at start.
const dataDir = followDataDirPointer(baseDir);

// PDFs are printed by the main process (webContents.printToPDF): no system Chromium needed.
const pdfBridge = createPdfBridge(parentPort);
const backend = createBackend({ dataDir, transport: 'electron', reportsPdfRenderer: pdfBridge.render });
for (const name of eventNames) backend.on(name, (payload) => parentPort.postMessage({ event: name, payload }));

// eslint-disable-next-line @typescript-eslint/no-misused-promises -- the body catches the invoke's error; the port ignores the return
parentPort.on('message', async (message) => {
  const data = message.data as { id?: number; channel?: Channel; payload?: unknown } | null;
  if (!data || typeof data.id !== 'number' || typeof data.channel !== 'string') return; // e.g. a {pdfResult}: the bridge's
  let result: WireResult<unknown>;
  try {
    result = { ok: true, value: await backend.invoke(data.channel, data.payload) };
  } catch (error) {
    result = { ok: false, error: toWireError(error) };
  }
  parentPort.postMessage({ id: data.id, result });
});
