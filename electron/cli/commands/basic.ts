// The CLI's commands. Each is a thin layer: parse flags, call the backend, print.
import type { Command } from '../command';
import { STEP_STATISTIC, strategyLabel } from '../../contract/charts/labels';
import { UsageError } from '../../kernel';
import { formatBytes, formatFigureCli } from '../format';
import { formatDateTime, type RunSummary } from '../../contract';
import { parseWhen } from '../when';
import { printResources } from '../resources-format';

/** One run in a few lines: what ran, how it ended, its figures (the Runs list's), and where to look next. */
function printRun(r: RunSummary, steps: number | null | undefined, warmup: number | null | undefined, out: (line: string) => void): void {
  out(`${r.id}  ${r.status}  ${r.model}  ${strategyLabel(r.strategy)} (${r.strategy}, ${r.engine})`);
  const shape = [
    r.seqLen != null ? `seq ${r.seqLen}` : null,
    r.microBatch != null ? `micro ${r.microBatch}` : null,
    r.worldSize != null ? `${r.worldSize} process(es)` : null,
    r.precision ?? null,
  ].filter(Boolean);
  if (shape.length) out(`  workload: ${shape.join(', ')}`);
  out(
    // the app's one date format, as the Run page says them (an ISO stamp once)
    `  started ${formatDateTime(r.startedAt ?? r.createdAt)}${r.finishedAt ? `, finished ${formatDateTime(r.finishedAt)}` : ''}${r.machineId ? ` on machine ${r.machineId}` : ''}`,
  );
  if (steps != null) out(`  steps: ${steps} measured after ${warmup ?? 0} warm-up`);
  if (r.status === 'completed')
    out(
      `  ${formatFigureCli(r.tflopsPerGpu)} TFLOPS/GPU, ${formatFigureCli(r.stepSeconds, 3)} s/step, ${formatFigureCli(r.tokensPerSecond, 0)} tokens/s (${STEP_STATISTIC}); peak GPU ${r.peakGpuBytes == null ? '—' : formatBytes(r.peakGpuBytes)}, host ${r.peakHostBytes == null ? '—' : formatBytes(r.peakHostBytes)}`,
    );
  if (r.errorClass || r.errorMessage) out(`  ${r.errorClass ?? 'error'}: ${r.errorMessage ?? ''}`);
  if (r.tags.length) out(`  tags: ${r.tags.join(', ')}`);
  if (r.notes) out(`  notes: ${r.notes}`);
  out(`  more: runs show ${r.id} --resources · compare ${r.id} · export --runs ${r.id} --format html --out report.html`);
}

export const basicCommands: Record<string, Command> = {
  runs: {
    summary:
      'list stored benchmark runs; runs show ID prints one run, with --resources its resource attribution (--model, --strategy, --status, --tag, --machine, --since, --until, --limit)',
    async run({ backend, flags, json, out, positionals }) {
      if (positionals[0] === 'show') {
        const id = positionals[1];
        if (!id) throw new UsageError('usage: runs show ID [--resources] [--json]   (ids from: runs)');
        // `runs show ID --resources`: the run's resource lanes read against the tuner's terms.
        if (flags.resources === true) {
          const r = await backend.invoke('runs/resources', { id });
          if (json) out(JSON.stringify(r, null, 2));
          else printResources(r, out);
          return 0;
        }
        // `runs show ID`: the run itself (a usage error once, as if --resources were the only view).
        const detail = await backend.invoke('runs/get', { id });
        if (json) out(JSON.stringify(detail.summary, null, 2));
        else printRun(detail.summary, detail.steps, detail.warmup, out);
        return 0;
      }
      const filter: Record<string, unknown> = {};
      for (const key of ['model', 'strategy', 'status', 'tag'] as const) if (typeof flags[key] === 'string') filter[key] = flags[key];
      // today, yesterday, 2h, 3d, an ISO date…: stored times are ISO instants, so each becomes one.
      for (const key of ['since', 'until'] as const) if (typeof flags[key] === 'string') filter[key] = parseWhen(key, flags[key] as string);
      if (typeof flags.limit === 'string') {
        const limit = Number(flags.limit);
        if (!Number.isInteger(limit) || limit <= 0) throw new UsageError(`--limit '${flags.limit}' must be a whole number above 0`);
        filter.limit = limit;
      }
      if (typeof flags.machine === 'string') filter.machineId = flags.machine; // a machine id (detect --json: machineId)
      const { runs, total } = await backend.invoke('runs/list', filter);
      if (json) {
        out(JSON.stringify(runs, null, 2));
        return 0;
      }
      if (runs.length === 0) {
        const filtered = Object.keys(filter).some((k) => k !== 'limit');
        out(
          filtered
            ? 'No run matches these filters (runs --json lists every run).'
            : 'No runs yet. Plan a workload and run your first comparison (npm run cli -- run --help).',
        );
        return 0;
      }
      out(`${total} run(s) — figures are the ${STEP_STATISTIC}`);
      for (const r of runs)
        out(
          `${r.id}  ${r.status.padEnd(11)} ${r.model.padEnd(16)} ${`${strategyLabel(r.strategy)} (${r.strategy})`.padEnd(43)} ${formatFigureCli(r.tflopsPerGpu)} TFLOPS/GPU  ${formatFigureCli(r.stepSeconds, 3)} s/step`,
        );
      return 0;
    },
  },
};
