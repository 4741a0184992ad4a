// Reports: export selected runs as HTML, PDF, CSV, JSON or a reproduction bundle.
// The path is where the BACKEND writes: on this machine in the desktop app and the CLI, on the
// server machine under `serve` (the UI says so).
import { z } from 'zod';

export const ReportFormatSchema = z.enum(['html', 'pdf', 'csv', 'json', 'bundle']);
export const PageSizeSchema = z.enum(['A4', 'Letter']);

export const ReportExportRequestSchema = z
  .object({
    runIds: z.array(z.string().min(1).max(200)).min(1).max(1000),
    format: ReportFormatSchema,
    // Absolute (after resolving), parent must exist; the extension must match the format
    // (.html, .pdf, .csv, .json; a bundle is a folder, or a .zip).
    path: z.string().min(1).max(4096),
    overwrite: z.boolean().optional(),
    pageSize: PageSizeSchema.optional(),
    // CSV: also write the per-step samples (a second file `<name>.samples.csv`); bundle: samples.csv per run.
    includeSamples: z.boolean().optional(),
    // The run the deltas are taken against (default: the first of runIds), as on the Compare page.
    baselineId: z.string().min(1).max(200).optional(),
  })
  .strict();

export const ReportExportResponseSchema = z.object({
  path: z.string(),
  bytes: z.number().int().nonnegative(),
  format: ReportFormatSchema,
  // Other files written beside the main one (CSV samples).
  extraPaths: z.array(z.string()).optional(),
  ms: z.number().optional(),
});

// A report made for the browser to download (serve: the file goes to the computer with the
// browser, not to a path on the server). The bytes come back over the token-guarded connection;
// a bundle comes as a .zip, CSV as the runs table.
export const ReportDownloadRequestSchema = z
  .object({
    runIds: z.array(z.string().min(1).max(200)).min(1).max(1000),
    format: ReportFormatSchema,
    pageSize: PageSizeSchema.optional(),
    baselineId: z.string().min(1).max(200).optional(),
  })
  .strict();

export const ReportDownloadResponseSchema = z.object({
  fileName: z.string(),
  mimeType: z.string(),
  bytes: z.number().int().nonnegative(),
  base64: z.string(),
  ms: z.number().optional(),
});

export type ReportFormat = z.infer<typeof ReportFormatSchema>;
export type ReportDownloadRequest = z.infer<typeof ReportDownloadRequestSchema>;
export type ReportDownloadResponse = z.infer<typeof ReportDownloadResponseSchema>;
export type PageSize = z.infer<typeof PageSizeSchema>;
export type ReportExportRequest = z.infer<typeof ReportExportRequestSchema>;
export type ReportExportResponse = z.infer<typeof ReportExportResponseSchema>;

/** The file extension each format's path must end with ('' = a folder for the bundle). */
export const reportExtensions: Record<ReportFormat, string[]> = {
  html: ['.html', '.htm'],
  pdf: ['.pdf'],
  csv: ['.csv'],
  json: ['.json'],
  bundle: ['', '.zip'],
};

// Error codes `reports/export` raises (ApiError.code): exists (the path is taken and overwrite
// was not given), bad_path, not_found (a run id), pdf_failed.
export const reportsRequests = {
  'reports/export': { request: ReportExportRequestSchema, response: ReportExportResponseSchema },
  'reports/download': { request: ReportDownloadRequestSchema, response: ReportDownloadResponseSchema },
} as const;

export const reportsEvents = {} as const;
