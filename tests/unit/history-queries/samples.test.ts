// The committed sample dataset (real H200 measurements) through the backend's own channels.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { createBackend } from '../../../electron/services/backend';
import { tmpDir } from './helpers';
import { memoryPerResourceOption } from '../../../electron/contract/charts/compare-charts';

describe('samples/load', () => {
  it('imports the H200 sweeps tagged sample, says where they were measured, and compares', async () => {
    const backend = createBackend({ dataDir: tmpDir(), transport: 'cli' });
    try {
      const loaded = await backend.invoke('samples/load', {});
      expect(loaded.files.map((f) => f.split('/').pop())).toEqual([
        'h100-boundary.runs.json',
        'h100-heldout-tune.runs.json',
        'h100-heldout-tune3b4k.runs.json',
        'h100-phi3-unseen.runs.json',
        'h100-superoffload-clip.runs.json',
        'h200-boundary-tune.runs.json',
        'h200-boundary.runs.json',
        'h200-heldout-probes.runs.json',
        'h200-heldout.runs.json',
        'h200-llama-3.1-8b-tune.runs.json',
        'h200-llama-3.1-8b.runs.json',
        'h200-llama-3.2-3b-cores.runs.json',
        'h200-llama-3.2-3b-repeats.runs.json',
        'h200-llama-3.2-3b-repeats2.runs.json',
        'h200-llama-3.2-3b-tune.runs.json',
        'h200-llama-3.2-3b-tuned.runs.json',
        'h200-llama-3.2-3b.runs.json',
        'h200-user-config.runs.json',
      ]);
      expect(loaded.imported).toHaveLength(109);
      const { runs: all } = await backend.invoke('runs/list', { tag: 'sample' });
      expect(all).toHaveLength(109);
      // the failures are results: the 8B tune's baseline (seed defaults), refused by the runner's pre-flight, and
      // issue 25's boundary probes — the first micro batch past the limit (8B ZeRO-3 micro 3, 1B ZeRO-2 micro 4 at
      // seq 16384) and Llama-2-13B's ZeRO-3 offload at ratio 0.45 and 0.6, killed during init (no error line: crashed),
      // and at ratio 0.35, out of GPU memory — nothing fits that host, as the plan says; on the H100 (80 GB), the first
      // micro batch past each no-offload strategy's limit for Llama-3.2-3B at seq 2048 and 4096, and
      // tune's edge trial of ZeRO-3 offload for Llama-3.1-8B at seq 2048 (micro 8); Phi-3-mini's ZeRO-Offload micro 25
      expect(
        all
          .filter((r) => r.status !== 'completed')
          .map((r) => `${r.model} ${r.strategy} ${r.microBatch} ${r.errorClass}`)
          .sort(),
      ).toEqual([
        'llama-2-13b zero3-offload 2 crashed',
        'llama-2-13b zero3-offload 2 crashed',
        'llama-2-13b zero3-offload 2 cuda_oom',
        'llama-3.1-8b gpu-zero3 3 cuda_oom',
        'llama-3.1-8b gpu-zero3 5 cuda_oom',
        'llama-3.1-8b superoffload 4 host_oom',
        'llama-3.1-8b superoffload 4 host_oom',
        'llama-3.1-8b zero3-offload 4 host_oom',
        'llama-3.1-8b zero3-offload 8 cuda_oom',
        'llama-3.2-1b gpu-zero2 4 cuda_oom',
        'llama-3.2-3b gpu-zero1 5 cuda_oom',
        'llama-3.2-3b gpu-zero1 9 cuda_oom',
        'llama-3.2-3b gpu-zero3 4 cuda_oom',
        'llama-3.2-3b gpu-zero3 8 cuda_oom',
        'phi-3-mini zero2-offload 25 cuda_oom', // issue 46: tune's third trial on the H100, "fits ±3% (uncalibrated)"
      ]);
      // issue 25: ZeRO-3 without offload, which the plan called "does not fit", ran Llama-3.1-8B at micro 1 and 2
      const z3Boundary = all.filter(
        (r) => r.model === 'llama-3.1-8b' && r.seqLen === 4096 && r.strategy === 'gpu-zero3' && r.status === 'completed',
      );
      expect(z3Boundary.map((r) => r.microBatch).sort()).toEqual([1, 1, 2, 2, 2]); // the probes, tune's two trials, and a user config's tuned alternative (micro 2 × accumulation 2)
      expect(Math.max(...z3Boundary.map((r) => r.tflopsPerGpu ?? 0))).toBeGreaterThan(380);
      // The first sweep (2026-12-02, micro 4, sweep.py's configs): SuperOffload lost to ZeRO-3 offload.
      const runs = all.filter((r) => r.notes.includes('measured 2026-12-02'));
      expect(runs).toHaveLength(10);
      const ids = runs.filter((r) => r.strategy === 'superoffload' || r.strategy === 'zero3-offload').map((r) => r.id);
      const c = await backend.invoke('compare/runs', { ids });
      expect(c.headline).toBe('ZeRO-3 Offload was 1.15× faster than SuperOffload (TFLOPS/GPU median of 2 repeats)');
      // the runs carry the H200 host's machine snapshot (issue 16: tests/fixtures/hosts/h200-sxm-x86/machine.json), so nvidia-smi's 143771 MiB
      expect(c.capacity.gpuBytes).toBe(143771 * 2 ** 20);
      // …and say whose capacity it is: the runs' machine, not the one the app runs on (issue 30.13)
      expect(c.capacity.machine).toBe('h200-sxm-x86');
      expect(JSON.stringify(memoryPerResourceOption(c).title)).toContain('dashed line: capacity of h200-sxm-x86');
      expect(runs.every((r) => r.machineId === '705f57569eba7f15')).toBe(true);
      expect(c.configDiff.map((d) => d.path)).toContain('dsConfig.zero_optimization.offload_optimizer.super_offload');
      // The app's own specs (2026-12-03): with the tuner's knobs (ratio 0.1) ZeRO-3 offload is 2.6× its seed (ratio 0.9).
      const tuned = all.filter((r) => r.sweepId === 'sw-sample-h200-llama-3.2-3b-tuned-sweep');
      expect(tuned).toHaveLength(17);
      expect(tuned.every((r) => r.machineId === '705f57569eba7f15')).toBe(true);
      // SuperOffload's cpuadam_cores_perc, measured on another instance of that machine kind (its own machineId)
      const cores = all.filter((r) => r.sweepId === 'sw-sample-h200-llama-3.2-3b-cores');
      expect(cores.length).toBeGreaterThanOrEqual(4);
      expect(cores.every((r) => r.machineId === '5c8ec6a638dd062a' && r.strategy === 'superoffload')).toBe(true);
      // the one trial of \`tune\` on a third instance of that kind: ZeRO-3 offload, micro 16, ratio 0.1, 398 TFLOPS/GPU
      const tune = all.filter((r) => r.tags.includes('tune') && r.model === 'llama-3.2-3b' && r.machineId === '01476e0fac4be6a8');
      expect(tune.map((r) => r.strategy)).toEqual(['zero3-offload']);
      expect(tune[0].tflopsPerGpu).toBeGreaterThan(390);
      // issue 25: \`tune\` with each workload's runs held out found ZeRO-3 without offload at micro 2 for Llama-3.1-8B (455 TFLOPS/GPU)
      const held = all.filter((r) => r.tags.includes('tune') && r.machineId === 'f7f0b2a8d54bf1e8');
      expect(held.map((r) => `${r.model} ${r.strategy} ${r.microBatch}`).sort()).toEqual([
        'llama-3.1-8b gpu-zero3 1',
        'llama-3.1-8b gpu-zero3 2',
        'llama-3.2-1b gpu-zero1 2',
        'llama-3.2-3b gpu-zero1 22',
        'llama-3.2-3b gpu-zero2 22',
      ]);
      // Llama-3.1-8B seq 4096 (issue 16): the tuner's ZeRO-3 offload (micro 8, ratio 0.75) measured twice on two instances, ~268 TFLOPS/GPU
      const h100Leases = ['c17ce049e6a3528c', 'd15223b6eb29faa3', '44981975514787f2', 'cce566f5eae7df8b']; // h100-boundary, h100-heldout-tune, h100-superoffload-clip, h100-heldout-tune3b4k: another kind
      const z3 = all.filter(
        (r) =>
          r.model === 'llama-3.1-8b' &&
          r.seqLen === 4096 &&
          r.strategy === 'zero3-offload' &&
          r.status === 'completed' &&
          !h100Leases.includes(r.machineId ?? ''),
      );
      expect(z3.map((r) => r.machineId).sort()).toEqual(['5b1a89c00362713d', 'c0dd9f99bdc7260a']);
      for (const r of z3) expect(r.tflopsPerGpu).toBeGreaterThan(260);
      // issue 25's test lease (2026-12-06): workloads the model had never seen, every spec the app's own; all 12 ran,
      // Llama-3.1-8B seq 2048 with ZeRO-3 up to micro 4 (called "at the edge" from micro 3)
      const heldout = all.filter((r) => r.machineId === '5fef79d9cf233338');
      expect(heldout).toHaveLength(12);
      expect(heldout.every((r) => r.status === 'completed')).toBe(true);
      expect(
        heldout
          .filter((r) => r.seqLen === 2048 && r.strategy === 'gpu-zero3')
          .map((r) => r.microBatch)
          .sort(),
      ).toEqual([2, 3, 4]);
      // issue 26: the SuperOffload guide's own ds_config run unchanged (its text stored byte for byte), and its tuned alternative
      const guide = all.filter((r) => r.machineId === '46337056763e9c9b' && r.model === 'llama-3.2-3b');
      expect(guide.map((r) => r.strategy).sort()).toEqual(['gpu-zero1', 'superoffload']);
      const yours = await backend.invoke('runs/get', { id: guide.find((r) => r.strategy === 'superoffload')!.id, logLines: 0 });
      expect((yours.spec as { userConfig: { text: string } }).userConfig.text).toBe(
        fs.readFileSync(path.resolve(__dirname, '../../fixtures/ds-configs/deepspeed-guide-superoffload.json'), 'utf8'),
      );
      const gain =
        guide.find((r) => r.strategy === 'gpu-zero1')!.tokensPerSecond! /
        guide.find((r) => r.strategy === 'superoffload')!.tokensPerSecond!;
      expect(gain).toBeGreaterThan(5);
      // …and plan/user-config reads that gain back from history for the machine those runs ran on
      const planned = await backend.invoke('plan/user-config', {
        config: {
          fileName: 'guide.json',
          text: fs.readFileSync(path.resolve(__dirname, '../../fixtures/ds-configs/deepspeed-guide-superoffload.json'), 'utf8'),
        },
        workload: { model: 'llama-3.2-3b', seqLen: 4096, gpus: 1 },
        machine: yours.snapshot as never,
      });
      // "best other configuration measured here": the fastest other run of the workload on that machine kind — the
      // guide's tuned alternative, or since 2026-12-06 the H200's held-out plan pick (ZeRO-1 micro 10, 16,070 tokens/s)
      const superTps = guide.find((r) => r.strategy === 'superoffload')!.tokensPerSecond!;
      const otherTps = all
        .filter((r) => r.model === 'llama-3.2-3b' && r.seqLen === 4096 && r.status === 'completed' && r.strategy !== 'superoffload')
        .filter((r) => !h100Leases.includes(r.machineId ?? ''))
        .map((r) => r.tokensPerSecond ?? 0);
      expect(planned.measured?.yoursTokensPerSecond).toBeCloseTo(superTps, 6);
      expect(planned.measured?.tunedTokensPerSecond).toBeCloseTo(Math.max(...otherTps), 6);
      expect(planned.measured?.gain).toBeGreaterThanOrEqual(gain);
      expect(planned.measured?.yoursTokensPerSecond).toBe(guide.find((r) => r.strategy === 'superoffload')!.tokensPerSecond);
      // Loading again imports nothing twice.
      expect((await backend.invoke('samples/load', {})).skipped).toHaveLength(109);
    } finally {
      await backend.close();
    }
  });
});
