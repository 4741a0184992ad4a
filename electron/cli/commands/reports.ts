// `export`: a report of the selected runs, written where --out says (relative to the current folder).
import path from 'node:path';
import type { Command } from '../command';
import { formatBytes } from '../format';

const FORMATS = ['html', 'pdf', 'csv', 'json', 'bundle'] as const;
const USAGE =
  'usage: npm run cli -- export [--data-dir D] --runs <id…> --format html|pdf|csv|json|bundle --out <path> [--overwrite] [--page-size A4|Letter] [--samples] [--baseline <id>]';

export const reportsCommands: Record<string, Command> = {
  export: {
    summary: 'export runs as an HTML/PDF report, CSV, JSON or a reproduction bundle (--runs, --format, --out)',
    async run({ backend, flags, positionals, json, out }) {
      // --runs takes the ids after it: `--runs a b c` (the flag parser keeps the first; the rest are positionals) or `--runs a,b,c`.
      const first = typeof flags.runs === 'string' ? flags.runs.split(',') : [];
      const runIds = [...first, ...positionals].map((s) => s.trim()).filter(Boolean);
      const format = flags.format;
      // Each missing or wrong piece named, with the valid choices (not just the usage line).
      const problems: string[] = [];
      if (runIds.length === 0)
        problems.push('--runs is missing: the ids of the runs to export (runs --json lists them), e.g. --runs r1,r2');
      if (typeof format !== 'string') problems.push(`--format is missing: one of ${FORMATS.join(', ')}`);
      else if (!FORMATS.includes(format as never))
        problems.push(`--format '${format}' is not one I can write: use one of ${FORMATS.join(', ')}`);
      if (typeof flags.out !== 'string')
        problems.push(
          `--out is missing: the file to write${typeof format === 'string' && FORMATS.includes(format as never) ? ` (e.g. --out report.${format === 'bundle' ? 'zip' : format})` : ''}, or a folder for --format bundle`,
        );
      if (problems.length) {
        process.stderr.write(problems.map((p) => `error: ${p}`).join('\n') + `\n${USAGE}\n`);
        return 2;
      }
      const pageSize = flags['page-size'];
      if (pageSize !== undefined && pageSize !== 'A4' && pageSize !== 'Letter') {
        out(`--page-size must be A4 or Letter.\n${USAGE}`);
        return 2;
      }
      const result = await backend
        .invoke('reports/export', {
          runIds,
          format: format as (typeof FORMATS)[number],
          path: path.resolve(flags.out as string), // already absolute: the CLI resolves it in the user's folder
          overwrite: flags.overwrite === true,
          pageSize: pageSize as 'A4' | 'Letter' | undefined,
          includeSamples: flags.samples === true,
          baselineId: typeof flags.baseline === 'string' ? flags.baseline : undefined,
        })
        .catch((error: unknown) => {
          // The backend's words are the app's (its dialog offers to overwrite): here the way is a flag.
          const e = error as Error & { code?: string; field?: string };
          if (e.code === 'exists')
            throw Object.assign(new Error(`${e.message} (pass --overwrite to replace it)`), { code: e.code, field: e.field });
          throw error;
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
