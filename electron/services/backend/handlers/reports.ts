import { createReports, type PdfRenderer } from '../../reports';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import { appVersion } from '../version';

/** `pdfRenderer`: the Electron shell may pass one built on webContents.printToPDF; default Chromium. */
export function reportsHandlers(ctx: BackendContext, options: { pdfRenderer?: PdfRenderer } = {}): HandlerMap<'reports/export'> {
  const reports = createReports({
    getRun: (id) => ctx.history.getRun(id, 0),
    compare: (ids, baselineId) => ctx.history.compare(ids, baselineId),
    exportRuns: (ids) => ctx.history.exportRuns(ids),
    pdfRenderer: options.pdfRenderer,
    appVersion: appVersion(),
  });
  return {
    'reports/export': (request) => reports.export(request),
  };
}
