// Reports domain state: which runs, which format, where to write it, and the last export's outcome.
import { create } from 'zustand';
import type { PageSize, ReportDownloadRequest, ReportExportResponse, ReportFormat } from '../../../electron/contract';
import { api } from '../api/client';

const EXT: Record<ReportFormat, string> = { html: '.html', pdf: '.pdf', csv: '.csv', json: '.json', bundle: '' };

/** Swap the path's extension when the format changes, so the two stay in step. */
export function pathForFormat(path: string, format: ReportFormat): string {
  const base = path.replace(/\.(html?|pdf|csv|json|zip)$/i, '');
  return base + EXT[format];
}

/**
 * A report downloaded by the browser (serve): the backend makes it (nothing is written on the
 * server), its bytes come back over the token-guarded connection, and the page hands them to the
 * browser as a file download. Returns the file name.
 */
export async function downloadReport(request: ReportDownloadRequest): Promise<string> {
  const file = await api.invoke('reports/download', request);
  const binary = atob(file.base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const url = URL.createObjectURL(new Blob([bytes], { type: file.mimeType }));
  const a = document.createElement('a');
  a.href = url;
  a.download = file.fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return file.fileName;
}

/**
 * The run whose repeat group every delta reads against, when one was chosen on the page (any run
 * of the group) and is still selected; undefined: Compare's rule, applied by the backend (history's
 * comparison: contract BASELINE_RULE_WORDS: ZeRO-3 Offload's group, else ZeRO-Offload's, else the oldest run's), whatever order the runs were ticked in.
 */
export function effectiveBaseline(selected: string[], chosen: string | null): string | undefined {
  return chosen && selected.includes(chosen) ? chosen : undefined;
}

interface ReportsState {
  selected: string[];
  /** A run of the baseline group the user chose; null: Compare's rule (contract BASELINE_RULE_WORDS: ZeRO-3 Offload's group, else ZeRO-Offload's, else the oldest run's). */
  baselineId: string | null;
  format: ReportFormat;
  path: string;
  overwrite: boolean;
  pageSize: PageSize;
  includeSamples: boolean;
  busy: boolean;
  result: ReportExportResponse | null;
  error: { code: string; message: string } | null;
  /** The last browser download's file name. */
  downloaded: string | null;
  toggle(id: string): void;
  setSelected(ids: string[], baselineId?: string | null): void;
  setBaseline(id: string | null): void;
  set(patch: Partial<Pick<ReportsState, 'format' | 'path' | 'overwrite' | 'pageSize' | 'includeSamples'>>): void;
  exportNow(): Promise<void>;
  downloadNow(): Promise<void>;
}

export const useReports = create<ReportsState>((set, get) => ({
  selected: [],
  baselineId: null,
  format: 'html',
  path: '',
  overwrite: false,
  pageSize: 'A4',
  includeSamples: false,
  busy: false,
  result: null,
  error: null,
  downloaded: null,
  toggle(id) {
    const { selected } = get();
    set({ selected: selected.includes(id) ? selected.filter((s) => s !== id) : [...selected, id] });
  },
  // A new selection from another page starts from the rule unless it names its baseline (Compare's).
  setSelected(ids, baselineId = null) {
    set({ selected: ids, baselineId, result: null, downloaded: null });
  },
  setBaseline(id) {
    set({ baselineId: id, result: null, error: null, downloaded: null });
  },
  set(patch) {
    const next = { ...patch };
    if (patch.format && !patch.path) next.path = pathForFormat(get().path, patch.format);
    set({ ...next, result: null, error: null, downloaded: null });
  },
  async exportNow() {
    const { selected, format, path, overwrite, pageSize, includeSamples, baselineId } = get();
    set({ busy: true, error: null, result: null });
    try {
      const result = await api.invoke('reports/export', {
        runIds: selected,
        format,
        path,
        overwrite,
        pageSize,
        includeSamples,
        baselineId: effectiveBaseline(selected, baselineId),
      });
      set({ result, busy: false });
    } catch (error) {
      const e = error as { code?: string; message?: string };
      set({ error: { code: e.code ?? 'error', message: e.message ?? String(error) }, busy: false });
    }
  },
  async downloadNow() {
    const { selected, format, pageSize, baselineId } = get();
    set({ busy: true, error: null, result: null, downloaded: null });
    try {
      const fileName = await downloadReport({ runIds: selected, format, pageSize, baselineId: effectiveBaseline(selected, baselineId) });
      set({ downloaded: fileName, busy: false });
    } catch (error) {
      const e = error as { code?: string; message?: string };
      set({ error: { code: e.code ?? 'error', message: e.message ?? String(error) }, busy: false });
    }
  },
}));
