// The CLI's commands. Each is a thin layer: parse flags, call the backend, print.
import type { Command } from '../command';
import { formatBytes } from '../format';

export const basicCommands: Record<string, Command> = {
  detect: {
    summary: 'detect this machine (CPU, NUMA, memory, GPUs, links, disks)',
    async run({ backend, json, out }) {
      const machine = await backend.invoke('hardware/detect', {});
      if (json) {
        out(JSON.stringify(machine, null, 2));
        return 0;
      }
      out(`${machine.hostname} — ${machine.os.distro} ${machine.os.release} (${machine.os.arch})`);
      out(`CPU     ${machine.cpu.model}: ${machine.cpu.sockets} socket(s), ${machine.cpu.physicalCores} cores / ${machine.cpu.logicalCores} threads`);
      out(`Memory  ${formatBytes(machine.memory.totalBytes)}`);
      if (machine.gpus.length === 0) out(`GPUs    none — ${machine.gpuStatus.message}`);
      for (const gpu of machine.gpus) out(`GPU ${gpu.index}   ${gpu.name}, ${formatBytes(gpu.memoryBytes)}`);
      for (const warning of machine.warnings) out(`warning: ${warning}`);
      return 0;
    },
  },
  runs: {
    summary: 'list stored benchmark runs (--model, --strategy, --status, --tag filters)',
    async run({ backend, flags, json, out }) {
      const filter: Record<string, unknown> = {};
      for (const key of ['model', 'strategy', 'status', 'tag', 'since', 'until'] as const)
        if (typeof flags[key] === 'string') filter[key] = flags[key];
      if (typeof flags.limit === 'string') filter.limit = Number(flags.limit);
      const { runs, total } = await backend.invoke('runs/list', filter);
      if (json) {
        out(JSON.stringify(runs, null, 2));
        return 0;
      }
      if (runs.length === 0) {
        out('No runs yet. Plan a workload and run your first comparison (npm run cli -- run --help).');
        return 0;
      }
      out(`${total} run(s)`);
      for (const r of runs)
        out(`${r.id}  ${r.status.padEnd(11)} ${r.model.padEnd(16)} ${r.strategy.padEnd(20)} ${r.tflopsPerGpu?.toFixed(1) ?? '—'} TFLOPS/GPU`);
      return 0;
    },
  },
};
