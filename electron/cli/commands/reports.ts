// `export`: a report of the selected runs, written where --out says (relative to the current folder).
import path from 'node:path';
import type { Command } from '../command';
import { formatBytes } from '../format';

const FORMATS = ['html', 'pdf', 'csv', 'json', 'bundle'] as const;
const USAGE = 'usage: npm run cli -- export [--data-dir D] --runs <id…> --format html|pdf|csv|json|bundle --out <path> [--overwrite] [--page-size A4|Letter] [--samples] [--baseline <id>]';

export const reportsCommands: Record<string, Command> = {
  export: {
    summary: 'export runs as an HTML/PDF report, CSV, JSON or a reproduction bundle (--runs, --format, --out)',
    async run({ backend, flags, positionals, json, out }) {
      // --runs takes the ids after it: `--runs a b c` (the flag parser keeps the first; the rest are positionals) or `--runs a,b,c`.
      const first = typeof flags.runs === 'string' ? flags.runs.split(',') : [];
      const runIds = [...first, ...positionals].map((s) => s.trim()).filter(Boolean);
      const format = flags.format;
      if (runIds.length === 0 || typeof format !== 'string' || !FORMATS.includes(format as never) || typeof flags.out !== 'string') {
        out(USAGE);
        return 2;
      }
      const pageSize = flags['page-size'];
      if (pageSize !== undefined && pageSize !== 'A4' && pageSize !== 'Letter') {
        out(`--page-size must be A4 or Letter.\n${USAGE}`);
        return 2;
      }
      const result = await backend.invoke('reports/export', {
        runIds,
        format: format as (typeof FORMATS)[number],
        path: path.resolve(flags.out),
        overwrite: flags.overwrite === true,
        pageSize: pageSize as 'A4' | 'Letter' | undefined,
        includeSamples: flags.samples === true,
        baselineId: typeof flags.baseline === 'string' ? flags.baseline : undefined,
      });
      if (json) out(JSON.stringify(result, null, 2));
      else {
        out(`wrote ${result.path} (${formatBytes(result.bytes)}, ${result.format}, ${result.ms ?? '?'} ms)`);
        for (const extra of result.extraPaths ?? []) out(`wrote ${extra}`);
      }
      return 0;
    },
  },
};
