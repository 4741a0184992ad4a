// The CLI's commands. Each is a thin layer: parse flags, call the backend, print.
import type { Command } from '../command';
import { STEP_STATISTIC, strategyLabel } from '../../contract/charts/labels';
import { UsageError } from '../../kernel';
import { formatFigureCli } from '../format';
import { parseWhen } from '../when';
import { printResources } from '../resources-format';

export const basicCommands: Record<string, Command> = {
  runs: {
    summary:
      "list stored benchmark runs; runs show ID --resources prints a run's resource attribution (--model, --strategy, --status, --tag, --machine, --since, --until, --limit)",
    async run({ backend, flags, json, out, positionals }) {
      // `runs show ID --resources`: the run's resource lanes read against the tuner's terms.
      if (positionals[0] === 'show') {
        const id = positionals[1];
        if (!id || flags.resources !== true) throw new UsageError('usage: runs show ID --resources [--json]   (ids from: runs)');
        const r = await backend.invoke('runs/resources', { id });
        if (json) out(JSON.stringify(r, null, 2));
        else printResources(r, out);
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
