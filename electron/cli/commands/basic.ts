// The CLI's commands. Each is a thin layer: parse flags, call the backend, print.
import type { Command } from '../command';
import { STEP_STATISTIC, strategyLabel } from '../../contract/charts/labels';

export const basicCommands: Record<string, Command> = {
  runs: {
    summary: 'list stored benchmark runs (--model, --strategy, --status, --tag, --machine, --since, --until, --limit)',
    async run({ backend, flags, json, out }) {
      const filter: Record<string, unknown> = {};
      for (const key of ['model', 'strategy', 'status', 'tag', 'since', 'until'] as const)
        if (typeof flags[key] === 'string') filter[key] = flags[key];
      if (typeof flags.limit === 'string') filter.limit = Number(flags.limit);
      if (typeof flags.machine === 'string') filter.machineId = flags.machine; // a machine id (detect --json: machineId)
      const { runs, total } = await backend.invoke('runs/list', filter);
      if (json) {
        out(JSON.stringify(runs, null, 2));
        return 0;
      }
      if (runs.length === 0) {
        out('No runs yet. Plan a workload and run your first comparison (npm run cli -- run --help).');
        return 0;
      }
      out(`${total} run(s) — figures are the ${STEP_STATISTIC}`);
      for (const r of runs)
        out(`${r.id}  ${r.status.padEnd(11)} ${r.model.padEnd(16)} ${`${strategyLabel(r.strategy)} (${r.strategy})`.padEnd(43)} ${r.tflopsPerGpu?.toFixed(1) ?? '—'} TFLOPS/GPU  ${r.stepSeconds?.toFixed(3) ?? '—'} s/step`);
      return 0;
    },
  },
};
