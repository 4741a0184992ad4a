// `detect`: this machine's hardware (and, unless --no-env, the engine environment) — as JSON
// for scripts, or as a summary that reads like lscpu + nvidia-smi topo -m.
import type { Machine, ResponseOf } from '../../contract';
import type { Command } from '../command';
import { formatBytes } from '../format';

type Environment = ResponseOf<'environment/current'>;

function cpuList(cpus: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < cpus.length;) {
    let j = i;
    while (j + 1 < cpus.length && cpus[j + 1] === cpus[j] + 1) j++;
    parts.push(i === j ? `${cpus[i]}` : `${cpus[i]}-${cpus[j]}`);
    i = j + 1;
  }
  return parts.join(',') || '—';
}

/** The GPU↔GPU matrix in nvidia-smi topo -m's own notation (NV18, PIX, SYS, …). */
function topoMatrix(machine: Machine): string[] {
  const gpus = machine.gpus;
  if (gpus.length === 0) return [];
  const cell = (a: Machine['gpus'][number], b: Machine['gpus'][number]) =>
    a.index === b.index ? 'X' : (a.links.find((l) => l.peer === `GPU${b.index}`)?.topo ?? '?');
  const head = ['', ...gpus.map((g) => `GPU${g.index}`), 'CPU Affinity', 'NUMA', 'host link'];
  const rows = gpus.map((g) => [
    `GPU${g.index}`,
    ...gpus.map((o) => cell(g, o)),
    g.cpuAffinity ?? '—',
    g.numaNode === null ? '—' : String(g.numaNode),
    g.links.find((l) => !l.peer.startsWith('GPU'))?.bandwidthClass ?? '—',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [head, ...rows].map(
    (r) =>
      '  ' +
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
  );
}

export function formatMachine(machine: Machine, env: Environment | null): string[] {
  const { cpu, memory } = machine;
  const out: string[] = [];
  const label = (l: string) => l.padEnd(10);
  out.push(
    `${label('Host')}${machine.hostname} — ${machine.os.distro} ${machine.os.release}, kernel ${machine.os.kernel} (${cpu.architecture})  id ${machine.machineId}`,
  );
  out.push(`${label('CPU')}${cpu.model} (${cpu.vendor}${cpu.hypervisor ? `, ${cpu.hypervisor} guest` : ''})`);
  out.push(
    `${label('')}${cpu.sockets} socket(s) × ${Math.round(cpu.physicalCores / Math.max(1, cpu.sockets))} cores, ${cpu.threadsPerCore} thread(s)/core (SMT ${cpu.smt ? 'on' : 'off'}) = ${cpu.logicalCores} logical CPUs${cpu.maxMHz ? `, max ${Math.round(cpu.maxMHz)} MHz` : ''}`,
  );
  out.push(
    cpu.adamSimd === 'unknown'
      ? `${label('')}SIMD ${cpu.simd.join(' ') || '—'}; CPU Adam path unknown (this OS does not report the AVX flags)`
      : `${label('')}SIMD ${cpu.simd.join(' ') || '—'}; CPU Adam builds the ${cpu.adamSimd ?? '?'} path`,
  );
  if (cpu.caches.length)
    out.push(
      `${label('')}caches ${cpu.caches.map((c) => `L${c.level}${c.type === 'Data' ? 'd' : c.type === 'Instruction' ? 'i' : ''} ${formatBytes(c.sizeBytes)}${c.instances ? ` ×${c.instances}` : ''}`).join(', ')}`,
    );
  if (cpu.numaNodes.length === 0) out.push(`${label('NUMA')}unknown (not readable on this OS)`);
  for (const n of cpu.numaNodes)
    out.push(
      `${label(n === cpu.numaNodes[0] ? 'NUMA' : '')}node${n.id}  CPUs ${cpuList(n.cpus)}  ${n.memoryBytes !== null ? formatBytes(n.memoryBytes) : 'memory ?'}${n.memoryFreeBytes != null ? ` (${formatBytes(n.memoryFreeBytes)} free)` : ''}`,
    );
  out.push(
    `${label('Memory')}${formatBytes(memory.totalBytes)} total, ${formatBytes(memory.availableBytes)} available; huge pages ${memory.hugePages ? `${memory.hugePages.total} × ${formatBytes(memory.hugePages.sizeBytes)}` : '—'}; THP ${memory.transparentHugePages ?? '—'}; locked-memory limit ${memory.lockedMemoryUnlimited ? 'unlimited' : memory.lockedMemoryLimitBytes === null ? 'unknown' : formatBytes(memory.lockedMemoryLimitBytes)}`,
  );
  if (machine.gpus.length === 0) out.push(`${label('GPUs')}none — ${machine.gpuStatus.message}`);
  else out.push(`${label('GPUs')}${machine.gpuStatus.message}`);
  for (const g of machine.gpus)
    out.push(
      `${label(`GPU ${g.index}`)}${g.name}, ${formatBytes(g.memoryBytes)}, cc ${g.computeCapability ?? '?'}, PCIe Gen${g.pcie.gen ?? '?'} x${g.pcie.width ?? '?'} (max Gen${g.pcie.maxGen ?? '?'} x${g.pcie.maxWidth ?? '?'}), NUMA ${g.numaNode ?? '?'}${g.powerLimitWatts ? `, ${g.powerLimitWatts} W` : ''}`,
    );
  if (machine.gpus.length) {
    out.push('Topology');
    out.push(...topoMatrix(machine));
  }
  if (machine.superchip) out.push(`${label('Superchip')}${machine.superchip.description}`);
  for (const d of machine.disks)
    out.push(
      `${label(d === machine.disks[0] ? 'Disks' : '')}${d.name}  ${formatBytes(d.sizeBytes)}  ${d.transport ?? '?'}${d.isNvme ? ' NVMe' : ''}${d.rotational ? ' (rotational)' : ''}${d.model ? `  ${d.model}` : ''}${d.mountpoints.length ? `  on ${d.mountpoints.join(', ')}` : ''}`,
    );
  if (env) {
    out.push(
      `${label('Engine')}${env.interpreter ?? 'no Python interpreter chosen or found'}${env.selected ? ' (selected)' : env.interpreter ? ' (best candidate; choose one with environment/select)' : ''}`,
    );
    const p = env.probe;
    if (p) {
      out.push(
        `${label('')}Python ${p.pythonVersion ?? '?'}, torch ${p.torch?.version ?? 'missing'}${p.torch?.cuda ? ` (CUDA ${p.torch.cuda})` : p.torch ? ' (CPU build)' : ''}, deepspeed ${p.deepspeed?.version ?? 'missing'}${p.transformers ? `, transformers ${p.transformers}` : ''}`,
      );
      out.push(
        `${label('')}CPU Adam ${p.deepspeed?.cpuAdam.compatible ? 'ok' : 'unavailable'}, async_io ${p.deepspeed?.asyncIo.compatible ? 'ok' : 'unavailable'}, ninja ${p.build.ninja ? 'yes' : 'no'}, C++ ${p.build.cxx ?? 'none'}; torch sees ${p.torch?.devices.length ?? 0} device(s)`,
      );
      for (const m of p.missing) out.push(`${label('')}missing: ${m.what} — ${m.fix}`);
    }
  }
  if (machine.warnings.length) {
    out.push('Warnings');
    for (const w of machine.warnings) {
      out.push(`  [${w.severity}] ${w.message}`);
      out.push(`      fix: ${w.fix}`);
    }
  }
  if (machine.detectionMs !== undefined) out.push(`(detected in ${machine.detectionMs} ms)`);
  return out;
}

export const hardwareCommands: Record<string, Command> = {
  detect: {
    summary: 'detect this machine (CPU, NUMA, memory, GPUs, links, disks) and the engine environment; --no-env skips the Python probe',
    async run({ backend, flags, json, out }) {
      const skipEnv = flags['no-env'] === true || flags.env === 'false';
      // Hardware and the Python probe are independent: run them side by side.
      const [machine, environment] = await Promise.all([
        backend.invoke('hardware/detect', {}),
        skipEnv ? Promise.resolve(null) : backend.invoke('environment/current', {}),
      ]);
      if (json) {
        out(JSON.stringify(skipEnv ? machine : { ...machine, environment }, null, 2));
        return 0;
      }
      for (const line of formatMachine(machine, environment)) out(line);
      return 0;
    },
  },
};
