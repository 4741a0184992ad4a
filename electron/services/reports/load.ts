// Run ids → ReportRuns, in the order asked, refusing unknown ids and duplicates by name.
import { ApiError, type RunDetail } from '../../contract';
import { toReportRun } from './normalize';
import type { ReportRun } from './types';

export function normaliseRuns(ids: string[], getRun: (id: string) => RunDetail | null): ReportRun[] {
  const unique = [...new Set(ids)];
  const missing: string[] = [];
  const runs: ReportRun[] = [];
  for (const id of unique) {
    const detail = getRun(id);
    if (detail) runs.push(toReportRun(detail));
    else missing.push(id);
  }
  if (missing.length) throw new ApiError('not_found', `No stored run with id ${missing.join(', ')}.`, 'runIds');
  return runs;
}
