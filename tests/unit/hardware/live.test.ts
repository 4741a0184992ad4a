// Detection on the machine running the tests (the CI VM has no GPU): it must not crash, must
// validate, and must say clearly why there are no GPUs.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { DiskFreeSchema, MachineSchema } from '../../../electron/contract';
import { detectMachine, diskFree } from '../../../electron/services/hardware';

describe('live detection', () => {
  it('detects this machine', async () => {
    const m = MachineSchema.parse(await detectMachine());
    expect(m.cpu.logicalCores).toBe(os.cpus().length);
    expect(m.memory.totalBytes).toBeGreaterThan(0);
    expect(m.cpu.numaNodes.length).toBeGreaterThan(0);
    if (m.gpus.length === 0) {
      expect(m.gpuStatus.driver).toBe('none');
      expect(m.gpuStatus.message).toMatch(/NVIDIA|GPU/);
    }
    expect(m.detectionMs).toBeLessThan(5000);
  });
  it('answers disk-free for a folder that does not exist yet', async () => {
    const d = DiskFreeSchema.parse(await diskFree(`${os.tmpdir()}/offload-nvme-not-there/x`));
    expect(d.exists).toBe(false);
    expect(d.freeBytes).toBeGreaterThan(0);
    expect(d.totalBytes).toBeGreaterThanOrEqual(d.freeBytes);
    expect(d.writable).toBe(true);
  });
});
