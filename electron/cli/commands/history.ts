// History commands: compare runs, move runs between machines as JSON, load the sample dataset.
import path from 'node:path';
import {
  configDiffSectionsOfDiff,
  deltaRows,
  formatBytes,
  formatDelta,
  formatMetricValue,
  formatRepeats,
  type Comparison,
} from '../../contract';
import { readRegularText } from '../../services/files';
import { convertRunnerSweep, writeRunsFile } from '../../services/history';
import type { Command, CommandContext } from '../command';
import { INPUT_LIMITS } from '../user-files';

/** `--json` written before an id swallows it as its value (`compare --json a b`): give it back. */
function boolFlag(ctx: CommandContext, name: string): { on: boolean; positionals: string[] } {
  const value = ctx.flags[name];
  if (typeof value === 'string') return { on: true, positionals: [value, ...ctx.positionals.filter((p) => p !== value)] };
  return { on: value === true, positionals: ctx.positionals };
}

export function printComparison(c: Comparison, out: (line: string) => void): void {
  const metric = c.metrics.find((m) => m.id === c.primary)!;
  // The Compare page's figures (shared formatter): once toPrecision(3), which printed 153.45 as 153 and 12,345 tokens/s as 12300.
  const fmt = (x: number | null | undefined) => formatMetricValue(x, metric.unit, false);
  if (c.headline) out(c.headline);
  out('');
  out(`${metric.label} (${metric.unit}; ${metric.better} is better), median of repeats:`);
  const rows = deltaRows(c);
  const width = Math.max(8, ...rows.map((r) => r.label.length + (r.isBaseline ? 11 : 0)));
  for (const r of rows) {
    const delta = r.isBaseline ? 'baseline' : formatDelta(r.deltaPct);
    out(
      `  ${(r.label + (r.isBaseline ? ' (baseline)' : '')).padEnd(width)}  ${fmt(r.median).padStart(8)}  ${delta.padStart(9)}  n=${r.n}  min ${fmt(r.min)} max ${fmt(r.max)} sd ${fmt(r.stdev)}  repeats: ${formatRepeats(r.values, metric.unit, false)}`,
    );
  }
  for (const w of c.warnings) out(`warning: ${w}`);
  // The Compare page's grouping: one column per repeat group, keys by section, an engine's keys
  // compared only among that engine's groups ("n/a" for the others).
  const columns = c.groups.map((g) => c.runs.findIndex((r) => r.id === g.runIds[0]));
  const sections = configDiffSectionsOfDiff(
    c.configDiff,
    columns,
    c.groups.map((g) => g.engine),
    ['strategy', 'prediction'],
  );
  if (sections.some((s) => s.rows.length)) {
    out('');
    out(`Config differences (${c.groups.map((g) => g.label).join(' | ')}):`);
    for (const s of sections.filter((x) => x.rows.length)) {
      const na = c.groups.filter((_, i) => !s.applies[i]).map((g) => g.label);
      out(`  ${s.title}${na.length ? ` (not applicable to ${na.join(', ')})` : ''}:`);
      for (const d of s.rows.slice(0, 20))
        out(`    ${d.path}: ${d.values.map((v, i) => (s.applies[i] && v !== 'not applicable' ? v : 'n/a')).join(' | ')}`);
      if (s.rows.length > 20) out(`    … ${s.rows.length - 20} more`);
    }
  }
  if (c.snapshotDiff.length) {
    out('');
    out('System differences:');
    for (const d of c.snapshotDiff.slice(0, 20)) out(`  ${d.path}: ${d.values.join(' | ')}`);
  }
}

export const historyCommands: Record<string, Command> = {
  compare: {
    summary: 'compare runs: compare <id…> [--baseline id] [--json]',
    async run(ctx) {
      const { on: json, positionals: ids } = boolFlag(ctx, 'json');
      if (ids.length === 0) {
        ctx.out('usage: compare <run id…> [--baseline id] [--json]   (ids from: runs --json)');
        return 2;
      }
      const baselineId = typeof ctx.flags.baseline === 'string' ? ctx.flags.baseline : undefined;
      const c = await ctx.backend.invoke('compare/runs', { ids, baselineId });
      if (json) ctx.out(JSON.stringify(c, null, 2));
      else printComparison(c, ctx.out);
      return 0;
    },
  },
  'export-runs': {
    summary: 'write runs to a JSON file: export-runs --out file.json [--overwrite] [ids…] (all finished runs by default)',
    async run(ctx) {
      const out = ctx.flags.out;
      if (typeof out !== 'string') {
        ctx.out('usage: export-runs --out file.json [--overwrite] [run id…]');
        return 2;
      }
      const ids = ctx.positionals.length ? ctx.positionals : undefined;
      // Relative to the folder the command runs in (the backend takes absolute paths only).
      const r = await ctx.backend
        .invoke('runs/export', { path: path.resolve(out), ids, overwrite: ctx.flags.overwrite === true })
        .catch((error: unknown) => {
          if ((error as { code?: string }).code === 'exists')
            throw new Error(`${(error as Error).message} (pass --overwrite to replace it)`);
          throw error;
        });
      if (ctx.json) ctx.out(JSON.stringify(r));
      else ctx.out(`wrote ${r.count} run(s) to ${r.path} (${formatBytes(r.bytes)})`);
      return 0;
    },
  },
  'import-runs': {
    summary: 'import runs from a JSON file: import-runs file.json (runs already stored are skipped)',
    async run(ctx) {
      const { on: json, positionals } = boolFlag(ctx, 'json');
      const [file] = positionals;
      if (!file) {
        ctx.out('usage: import-runs file.json');
        return 2;
      }
      const r = await ctx.backend.invoke('runs/import', { path: file });
      if (json) ctx.out(JSON.stringify(r, null, 2));
      else {
        ctx.out(`imported ${r.imported.length} run(s), skipped ${r.skipped.length}${r.source ? ` — ${r.source.label}` : ''}`);
        for (const s of r.skipped) ctx.out(`  skipped ${s.id}: ${s.reason}`);
        if (r.droppedColumns.length) ctx.out(`warning: this version does not store ${r.droppedColumns.join(', ')} (left out)`);
      }
      return 0;
    },
  },
  'convert-sweep': {
    summary:
      "raw runner output (bench.py --spec on the app's specs: <name>.jsonl + <name>.spec.json) → runs file: convert-sweep DIR --out F.runs.json --label L [--specs DIR] [--machine M] [--measured-at D] [--snapshot detect.json]",
    // eslint-disable-next-line @typescript-eslint/require-await -- async so that a throw reaches the caller as a rejection, as Command.run promises
    async run(ctx) {
      const [dir] = ctx.positionals;
      const out = ctx.flags.out;
      const label = ctx.flags.label;
      if (!dir || typeof out !== 'string' || typeof label !== 'string') {
        ctx.out(
          'usage: convert-sweep DIR --out file.runs.json --label "sample: <machine>, measured <date>" [--specs SPEC_DIR] [--machine M] [--measured-at D] [--snapshot detect.json] [--sweep-id ID]',
        );
        return 2;
      }
      const str = (name: string) => (typeof ctx.flags[name] === 'string' ? (ctx.flags[name] as string) : null);
      const snapshotFile = str('snapshot');
      const { file, skipped, rejectedLines, otherTypes } = convertRunnerSweep(path.resolve(dir), {
        source: { label, machine: str('machine'), measuredAt: str('measured-at'), note: str('note') },
        sweepId: str('sweep-id') ?? `sw-sample-${path.basename(path.resolve(dir))}`,
        snapshot: snapshotFile
          ? JSON.parse(readRegularText(snapshotFile, { label: '--snapshot', maxBytes: INPUT_LIMITS.machine }))
          : undefined,
        specsDir: str('specs') ? path.resolve(str('specs')!) : undefined,
      });
      const bytes = writeRunsFile(path.resolve(out), file);
      ctx.out(`wrote ${file.runs.length} run(s) to ${path.resolve(out)} (${formatBytes(bytes)})`);
      for (const s of skipped) ctx.out(`  skipped ${s}`);
      if (rejectedLines) ctx.out(`warning: ${rejectedLines} line(s) did not match the runner protocol and were left out`);
      const other = Object.entries(otherTypes);
      if (other.length)
        ctx.out(`note: message types this version does not store were left out: ${other.map(([t, n]) => `${t} ×${n}`).join(', ')}`);
      return 0;
    },
  },
  'load-samples': {
    summary: 'import the bundled sample datasets (resources/samples/*.runs.json), tagged "sample"',
    async run(ctx) {
      const r = await ctx.backend.invoke('samples/load', {});
      if (ctx.json) ctx.out(JSON.stringify(r, null, 2));
      else
        ctx.out(
          `imported ${r.imported.length} sample run(s) from ${r.files.map((f) => path.basename(f)).join(', ')}, skipped ${r.skipped.length}`,
        );
      return 0;
    },
  },
};
