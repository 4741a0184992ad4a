// The committed sample dataset (real H200 measurements) through the backend's own channels.
import { describe, expect, it } from 'vitest';
import { createBackend } from '../../../electron/services/backend';
import { tmpDir } from './helpers';

describe('samples/load', () => {
  it('imports the H200 sweep tagged sample, says where it was measured, and compares', async () => {
    const backend = createBackend({ dataDir: tmpDir(), transport: 'cli' });
    try {
      const loaded = await backend.invoke('samples/load', {});
      expect(loaded.file).toMatch(/resources\/samples\/h200-llama-3\.2-3b\.runs\.json$/);
      expect(loaded.imported).toHaveLength(10);
      expect(loaded.source?.label).toMatch(/H200.*measured 2026-12-02/);
      const { runs } = await backend.invoke('runs/list', { tag: 'sample' });
      expect(runs).toHaveLength(10);
      expect(runs.every((r) => r.status === 'completed' && r.notes.includes('measured 2026-12-02'))).toBe(true);
      const ids = runs.filter((r) => r.strategy === 'superoffload' || r.strategy === 'zero3-offload').map((r) => r.id);
      const c = await backend.invoke('compare/runs', { ids });
      expect(c.headline).toBe('ZeRO-3 Offload was 1.15× faster than SuperOffload (TFLOPS/GPU median of 2 repeats)');
      // the runs carry the H200 host's machine snapshot (issue 16: tests/fixtures/hosts/h200-sxm-x86/machine.json), so nvidia-smi's 143771 MiB
      expect(c.capacity.gpuBytes).toBe(143771 * 2 ** 20);
      expect(runs.every((r) => r.machineId === '705f57569eba7f15')).toBe(true);
      expect(c.configDiff.map((d) => d.path)).toContain('dsConfig.zero_optimization.offload_optimizer.super_offload');
      // Loading again imports nothing twice.
      expect((await backend.invoke('samples/load', {})).skipped).toHaveLength(10);
    } finally {
      await backend.close();
    }
  });
});
