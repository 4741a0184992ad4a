// Grace superchip detection (GH200: Grace aarch64 + H100/H200 over NVLink-C2C; GB200: Grace +
// Blackwell). SuperOffload is built for these. Pure.
import type { Cpu, Gpu, Machine } from '../../contract';

export function isGraceCpu(cpu: Pick<Cpu, 'architecture' | 'model' | 'vendor'>): boolean {
  return /^(aarch64|arm64)$/.test(cpu.architecture) && (/Neoverse-V2|Grace/i.test(cpu.model) || /nvidia/i.test(cpu.vendor));
}

export function detectSuperchip(cpu: Pick<Cpu, 'architecture' | 'model' | 'vendor'>, gpus: Gpu[]): Machine['superchip'] {
  const nvidia = gpus.filter((g) => g.vendor === 'nvidia');
  if (nvidia.length === 0) return null;
  const byName = nvidia.find((g) => /\bG[HB]\d{3}\b/i.test(g.name));
  const c2c = nvidia.some((g) => g.c2cMode === true);
  const grace = isGraceCpu(cpu);
  if (!byName && !(grace && (c2c || nvidia.some((g) => /H100|H200|B200/i.test(g.name))))) return null;
  const gpu = byName ?? nvidia[0];
  const kind = /GB\d{3}|blackwell/i.test(`${gpu.name} ${gpu.architecture ?? ''}`) ? 'GB200' : 'GH200';
  return {
    kind,
    description: `${kind} superchip: ${cpu.model} (${cpu.architecture}) + ${nvidia.length}× ${gpu.name} linked by NVLink-C2C${c2c ? '' : ' (C2C mode not reported by the driver)'}`,
  };
}
