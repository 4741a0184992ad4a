// The reports service: selected runs → HTML, PDF, CSV, JSON or a reproduction bundle, written
// only at the path the caller chose (see output.ts). Plain Node: the PDF renderer is injected
// (default: one headless Chromium kept alive between exports; the Electron app passes one built
// on webContents.printToPDF). close() stops the default browser; the owner calls it on shutdown.
import fs from 'node:fs';
import path from 'node:path';
import {
  ApiError,
  type Comparison,
  type ReportDownloadRequest,
  type RunResources,
  type ReportDownloadResponse,
  type ReportExportRequest,
  type ReportExportResponse,
  type RunDetail,
} from '../../contract';
import { bundleEntries } from './bundle';
import { assertReplaceableBundle } from './bundle-guard';
import { runsCsv, samplesCsv } from './csv';
import { renderHtml } from './html';
import { normaliseRuns } from './load';
import { writeFileAtomic, writeFolderAtomic } from '../../kernel';
import { validateTarget } from './output';
import { createChromiumPdfRenderer, PdfError, type PdfRenderer } from './pdf';
import type { ReportRun } from './types';
import { buildZip } from './zip';

export type { ClosablePdfRenderer, PdfRenderer } from './pdf';
export type { ReportRun } from './types';
export { createChromiumPdfRenderer, PdfError } from './pdf';
export { renderHtml } from './html';
export { runsCsv, samplesCsv, RUN_COLUMNS, SAMPLE_COLUMNS } from './csv';
export { toReportRun } from './normalize';
// The rules every export to a path follows (absolute, extension, parent exists, no overwrite
// unless asked, like for like) and the atomic write (exclusive temp file of a random name beside
// the target, renamed over it: a link at the target is replaced, never written through).
export { validateTarget as validateExportTarget } from './output';

export interface ReportsDeps {
  /** history.getRun: the stored run, or null when there is no such id. */
  getRun(id: string): RunDetail | null;
  /** history's lossless runs export (the JSON format); when absent, the run details are written as they are. */
  exportRuns?(ids: string[]): unknown;
  /** history.compare: the one comparison (groups, headline, charts) a report renders, as the Compare page does. */
  compare(ids: string[], baselineId?: string): Comparison;
  /** runs/resources of one run (its lanes and attribution) for the report's resource section; absent: no section. */
  resources?(id: string): RunResources | null;
  pdfRenderer?: PdfRenderer;
  appVersion?: string;
  now?: () => Date;
}

export interface ReportsService {
  export(request: ReportExportRequest): Promise<ReportExportResponse>;
  /** The report's bytes for a browser download (serve): nothing is written on the server. */
  download(request: ReportDownloadRequest): Promise<ReportDownloadResponse>;
  /** The HTML of a report without writing it (the PDF path and the benchmarks use it). */
  html(runIds: string[], options?: { baselineId?: string; pageSize?: 'A4' | 'Letter' }): string;
  /** Stops the default Chromium if one was started (a renderer passed in belongs to the caller). */
  close(): Promise<void>;
}

export function createReports(deps: ReportsDeps): ReportsService {
  const now = deps.now ?? (() => new Date());
  const ownRenderer = deps.pdfRenderer ? null : createChromiumPdfRenderer();
  const pdfRenderer: PdfRenderer = deps.pdfRenderer ?? ownRenderer!;
  const load = (ids: string[]): ReportRun[] => normaliseRuns(ids, deps.getRun);
  // A report's baseline is the one asked for, else Compare's rule (history's chooseBaseline: the
  // ZeRO-3 Offload group, else ZeRO-Offload's, else the oldest run's group) — the same comparison, so the report's header,
  // summary, run table and CSV name the baseline Compare names for the same runs, whatever order
  // the runs were selected in. `baselineId` is then the run that chose it (that group's first run).
  const reportOf = (runs: ReportRun[], requested?: string) => {
    const comparison = deps.compare(
      runs.map((r) => r.summary.id),
      requested,
    );
    const baselineId = requested ?? comparison.groups.find((g) => g.isBaseline)?.runIds[0] ?? runs[0]?.summary.id;
    return { comparison, baselineId };
  };
  const htmlOf = (runs: ReportRun[], requested?: string, pageSize?: 'A4' | 'Letter') => {
    const { comparison, baselineId } = reportOf(runs, requested);
    return renderHtml(runs, {
      baselineId,
      pageSize,
      generatedAt: now(),
      appVersion: deps.appVersion,
      comparison,
      resources: deps.resources,
    });
  };
  const csvOf = (runs: ReportRun[], requested?: string) => {
    const { comparison, baselineId } = reportOf(runs, requested);
    return runsCsv(runs, comparison, baselineId);
  };

  const printPdf = async (runs: ReportRun[], baselineId: string | undefined, pageSize: 'A4' | 'Letter') => {
    try {
      return await pdfRenderer(htmlOf(runs, baselineId, pageSize), { pageSize });
    } catch (error) {
      throw new ApiError('pdf_failed', error instanceof PdfError ? error.message : `Printing the PDF failed: ${(error as Error).message}`);
    }
  };
  const jsonOf = (ids: string[]) =>
    JSON.stringify(
      deps.exportRuns
        ? deps.exportRuns(ids)
        : { format: 'offload-studio/run-details', version: 1, exportedAt: now().toISOString(), runs: ids.map((id) => deps.getRun(id)) },
      null,
      2,
    ) + '\n';

  return {
    html: (runIds, options = {}) => htmlOf(load(runIds), options.baselineId, options.pageSize),
    async download(request) {
      const started = performance.now();
      const runs = load(request.runIds);
      const stamp = now().toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
      const name = `offload-studio-report-${stamp}`;
      let data: Buffer;
      let fileName: string;
      let mimeType: string;
      switch (request.format) {
        case 'html':
          [data, fileName, mimeType] = [
            Buffer.from(htmlOf(runs, request.baselineId, request.pageSize)),
            `${name}.html`,
            'text/html;charset=utf-8',
          ];
          break;
        case 'pdf':
          [data, fileName, mimeType] = [
            await printPdf(runs, request.baselineId, request.pageSize ?? 'A4'),
            `${name}.pdf`,
            'application/pdf',
          ];
          break;
        case 'csv':
          [data, fileName, mimeType] = [Buffer.from(csvOf(runs, request.baselineId)), `${name}.csv`, 'text/csv;charset=utf-8'];
          break;
        case 'json':
          [data, fileName, mimeType] = [Buffer.from(jsonOf(request.runIds)), `${name}.json`, 'application/json'];
          break;
        case 'bundle': {
          const entries = bundleEntries(runs, { generatedAt: now(), appVersion: deps.appVersion });
          data = buildZip(
            entries.map((e) => ({ ...e, name: `${name}/${e.name}` })),
            now(),
          );
          [fileName, mimeType] = [`${name}.zip`, 'application/zip'];
          break;
        }
      }
      return { fileName, mimeType, bytes: data.length, base64: data.toString('base64'), ms: Math.round(performance.now() - started) };
    },
    close: async () => {
      await ownRenderer?.close();
    },
    async export(request) {
      const started = performance.now();
      // Validate the destination before any work, so a bad path fails fast.
      const target = validateTarget(request.path, request.format, request.overwrite === true);
      // Overwriting a bundle folder deletes the old one: only a bundle this app wrote goes.
      if (target.folder && fs.existsSync(target.path)) assertReplaceableBundle(target.path);
      const runs = load(request.runIds);
      let bytes = 0;
      const extraPaths: string[] = [];
      switch (request.format) {
        case 'html':
          bytes = writeFileAtomic(target.path, htmlOf(runs, request.baselineId, request.pageSize));
          break;
        case 'pdf':
          bytes = writeFileAtomic(target.path, await printPdf(runs, request.baselineId, request.pageSize ?? 'A4'));
          break;
        case 'csv': {
          bytes = writeFileAtomic(target.path, csvOf(runs, request.baselineId));
          if (request.includeSamples) {
            const samplesPath = target.path.replace(/\.csv$/i, '.samples.csv');
            validateTarget(samplesPath, 'csv', request.overwrite === true);
            writeFileAtomic(samplesPath, samplesCsv(runs));
            extraPaths.push(samplesPath);
          }
          break;
        }
        case 'json':
          bytes = writeFileAtomic(target.path, jsonOf(request.runIds));
          break;
        case 'bundle': {
          const entries = bundleEntries(runs, { includeSamples: request.includeSamples, generatedAt: now(), appVersion: deps.appVersion });
          if (target.folder) bytes = writeFolderAtomic(target.path, entries);
          else {
            // Inside the zip everything sits under one folder named like the archive.
            const root = path.basename(target.path, path.extname(target.path));
            bytes = writeFileAtomic(
              target.path,
              buildZip(
                entries.map((e) => ({ ...e, name: `${root}/${e.name}` })),
                now(),
              ),
            );
          }
          break;
        }
      }
      return {
        path: target.path,
        bytes,
        format: request.format,
        extraPaths: extraPaths.length ? extraPaths : undefined,
        ms: Math.round(performance.now() - started),
      };
    },
  };
}
