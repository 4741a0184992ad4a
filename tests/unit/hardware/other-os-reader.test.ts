// The reader's macOS/Windows branch, run here by telling it the platform is darwin: it must ask
// systeminformation (cpu, mem, diskLayout, blockDevices, graphics when nvidia-smi is absent), skip
// lscpu, and still give a valid Machine. (systeminformation itself keeps its Linux code on this
// machine: this checks our wiring, the parsers are checked on posted outputs in other-os.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MachineSchema } from '../../../electron/contract';
import { buildMachine, readRawHost } from '../../../electron/services/hardware';

const real = Object.getOwnPropertyDescriptor(process, 'platform')!;

describe('readRawHost on a non-Linux platform', () => {
  beforeAll(() => Object.defineProperty(process, 'platform', { ...real, value: 'darwin' }));
  afterAll(() => Object.defineProperty(process, 'platform', real));

  it('reads systeminformation instead of lscpu, and builds a valid Machine from it', { timeout: 60_000 }, async () => {
    const raw = await readRawHost();
    expect(raw.lscpuJson).toBeNull();
    expect(raw.si).toBeTruthy();
    expect(raw.si!.cpu?.cores).toBeGreaterThan(0);
    expect(raw.si!.mem?.total).toBeGreaterThan(0);
    const { problems, ...machine } = buildMachine({
      ...raw,
      cpuinfo: null,
      meminfo: null,
      lsblk: null,
      os: { ...raw.os, platform: 'darwin' },
    });
    expect(problems).toEqual([]);
    expect(() => MachineSchema.parse(machine)).not.toThrow();
    expect(machine.cpu.logicalCores).toBe(raw.si!.cpu!.cores);
    expect(machine.memory.totalBytes).toBe(raw.si!.mem!.total);
    expect(machine.warnings.map((w) => w.id)).toContain('platform-macos');
  });
});
