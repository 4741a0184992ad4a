// Machines of one kind: the same CPU model and core count, the same GPUs (model, memory, count) and
// about the same memory. A cloud instance gets a new hostname and new GPU UUIDs — so a new machineId —
// every time it is started, yet its figures are those of the last one of its kind. A plan for a
// machine with no measurements or runs of its own may borrow those of its kind, and says so.
import type { Machine } from '../../contract';

/** Memory totals this close count as the same kind (a VM's total moves with what the host reserves). */
const MEMORY_TOLERANCE = 0.15;

export function machineKindKey(m: Pick<Machine, 'cpu' | 'gpus'>): string {
  const gpus = m.gpus
    // not the PCIe link: an idle GPU reports a lower current generation, and some VMs none at all
    .map((g) => `${g.name}/${Math.round((g.memoryBytes ?? 0) / 2 ** 30)}GiB`)
    .sort();
  return [m.cpu.model, `${m.cpu.sockets}x${m.cpu.physicalCores}`, `${gpus.length} gpu`, ...gpus].join('|');
}

/** Same kind: identical key and host memory within MEMORY_TOLERANCE. */
export function sameMachineKind(a: Pick<Machine, 'cpu' | 'gpus' | 'memory'>, b: Pick<Machine, 'cpu' | 'gpus' | 'memory'>): boolean {
  if (machineKindKey(a) !== machineKindKey(b)) return false;
  const [x, y] = [a.memory.totalBytes, b.memory.totalBytes];
  return Math.abs(x - y) <= MEMORY_TOLERANCE * Math.max(x, y);
}

/** Words for a note: what "the same kind" matched on. */
export function machineKindWords(m: Pick<Machine, 'cpu' | 'gpus'>): string {
  const gpu = m.gpus.length ? `${m.gpus.length}× ${m.gpus[0].name}` : 'no GPU';
  return `${m.cpu.physicalCores}-core ${m.cpu.model}, ${gpu}`;
}
