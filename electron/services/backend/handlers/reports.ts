import fs from 'node:fs';
import path from 'node:path';
import { createReports, type PdfRenderer } from '../../reports';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import { appVersion } from '../version';
import { runResources } from './resources';

/** `pdfRenderer`: the Electron shell passes one built on webContents.printToPDF; default: a kept-alive headless Chromium. */
export function reportsHandlers(
  ctx: BackendContext,
  options: { pdfRenderer?: PdfRenderer } = {},
): HandlerMap<'reports/export' | 'reports/download'> {
  const reports = createReports({
    getRun: (id) => ctx.history.getRun(id, 0),
    compare: (ids, baselineId) => ctx.history.compare(ids, baselineId),
    exportRuns: (ids) => ctx.history.exportRuns(ids),
    resources: (id) => runResources(ctx, id),
    pdfRenderer: options.pdfRenderer,
    appVersion: appVersion(),
  });
  // The default renderer keeps a Chromium alive between exports; stop it with the backend.
  ctx.onClose(() => reports.close());
  return {
    'reports/export': (request) => {
      ensureDefaultReportsFolder(ctx.dataDir, request.path);
      return reports.export(request);
    },
    'reports/download': (request) => reports.download(request),
  };
}

/**
 * The Reports page prefills `<data>/reports/report.*`: the app's own default folder, so the app
 * creates it on the first export (before, the first export always failed with "The folder …/reports
 * does not exist"). Any other folder must already exist: a mistyped path is still refused, never created.
 */
export function ensureDefaultReportsFolder(dataDir: string, target: unknown): void {
  if (typeof target !== 'string' || target.includes('\0') || !path.isAbsolute(target)) return;
  const folder = path.join(path.resolve(dataDir), 'reports');
  if (path.dirname(path.resolve(target)) !== folder) return;
  try {
    fs.mkdirSync(folder, { recursive: true });
  } catch {
    // Left to the export's own check, which names the folder.
  }
}
