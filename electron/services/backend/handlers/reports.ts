import { createReports, type PdfRenderer } from '../../reports';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import { appVersion } from '../version';

/** `pdfRenderer`: the Electron shell passes one built on webContents.printToPDF; default: a kept-alive headless Chromium. */
export function reportsHandlers(ctx: BackendContext, options: { pdfRenderer?: PdfRenderer } = {}): HandlerMap<'reports/export' | 'reports/download'> {
  const reports = createReports({
    getRun: (id) => ctx.history.getRun(id, 0),
    compare: (ids, baselineId) => ctx.history.compare(ids, baselineId),
    exportRuns: (ids) => ctx.history.exportRuns(ids),
    pdfRenderer: options.pdfRenderer,
    appVersion: appVersion(),
  });
  // The default renderer keeps a Chromium alive between exports; stop it with the backend.
  ctx.onClose(() => reports.close());
  return {
    'reports/export': (request) => reports.export(request),
    'reports/download': (request) => reports.download(request),
  };
}
