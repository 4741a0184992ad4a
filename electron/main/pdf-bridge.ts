// Printing in the desktop app: the backend (utility process, plain Node) has no browser, so the
// reports service's PdfRenderer asks the main process, which prints with webContents.printToPDF.
// This file is both halves' shared vocabulary and the utility half; it imports no 'electron', so
// it runs (and is tested) under plain Node. Messages: utility → main {pdf: {id, html, pageSize}},
// main → utility {pdfResult: {id, data (base64 PDF) | error}}; each side validates what it gets.
import { z } from 'zod';
import type { PdfRenderer } from '../services/reports';

export const PdfRequestMessageSchema = z.object({
  pdf: z.object({ id: z.number().int().nonnegative(), html: z.string(), pageSize: z.enum(['A4', 'Letter']) }).strict(),
});
export const PdfReplyMessageSchema = z.object({
  pdfResult: z.object({ id: z.number().int().nonnegative(), data: z.string().optional(), error: z.string().optional() }).strict(),
});
export type PdfRequestMessage = z.infer<typeof PdfRequestMessageSchema>;
export type PdfReplyMessage = z.infer<typeof PdfReplyMessageSchema>;

/** What the bridge needs of Electron's `process.parentPort` (a MessagePortMain-like emitter). */
export interface PdfParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

export interface PdfBridge {
  render: PdfRenderer;
  /** Fails the exports still waiting (backend shutting down). */
  close(): void;
}

/** Listens on `port` for replies (it ignores every other message) and posts requests to it. */
export function createPdfBridge(port: PdfParentPort, timeoutMs = 120_000): PdfBridge {
  let nextId = 1;
  const pending = new Map<number, { resolve(pdf: Buffer): void; reject(error: Error): void; timer: NodeJS.Timeout }>();
  const settle = (id: number) => {
    const entry = pending.get(id);
    if (entry) {
      clearTimeout(entry.timer);
      pending.delete(id);
    }
    return entry;
  };

  port.on('message', ({ data }) => {
    if (!data || typeof data !== 'object' || !('pdfResult' in data)) return; // a backend request: not ours
    const parsed = PdfReplyMessageSchema.safeParse(data);
    if (!parsed.success) return; // malformed: the export times out rather than trusting it
    const { id, data: base64, error } = parsed.data.pdfResult;
    const entry = settle(id);
    if (!entry) return; // late reply for an export that already timed out
    if (error !== undefined || base64 === undefined) return entry.reject(new Error(error ?? 'the main process sent no PDF'));
    const pdf = Buffer.from(base64, 'base64');
    if (pdf.subarray(0, 5).toString() !== '%PDF-') return entry.reject(new Error('the main process sent something that is not a PDF'));
    entry.resolve(pdf);
  });

  const render: PdfRenderer = (html, { pageSize }) =>
    new Promise<Buffer>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        settle(id);
        reject(new Error(`the app did not print the report within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      timer.unref();
      pending.set(id, { resolve, reject, timer });
      const message: PdfRequestMessage = { pdf: { id, html, pageSize } };
      port.postMessage(message);
    });

  return {
    render,
    close() {
      for (const id of [...pending.keys()]) settle(id)?.reject(new Error('the backend is shutting down'));
    },
  };
}
