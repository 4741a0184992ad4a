// What the plan and the Hardware page say, in words: the plan's notes name the speed figures, not
// profile keys; a host without a GPU says so instead of a CUDA runtime's complaint; the
// recommendation names strategies by their one display name.
import { describe, expect, it } from 'vitest';
import { strategyLabel } from '../../../electron/contract';
import { buildMachine, measureHost, nativeAvailable } from '../../../electron/services/hardware';
import { loadHost } from '../hardware/fixture-host';
import { planWorkload } from '../../../electron/services/tuner';
import { h200Machine, h200Measurements } from '../tuner/h200-machine';

describe('plain words', () => {
  it("the plan's notes name the speed figures in words, not the profile's keys", () => {
    const noGpu = planWorkload({ model: 'tiny-llama', seqLen: 128, microBatch: 1, gpus: 1 } as never, {
      machine: { ...h200Machine(), gpus: [] } as never,
    });
    const h200 = planWorkload({ model: 'llama-3.1-8b', seqLen: 2048, microBatch: 1, gpus: 1 } as never, {
      machine: h200Machine(),
      measurements: h200Measurements(),
    });
    for (const plan of [noGpu, h200]) {
      const text = plan.notes.join('\n');
      expect(text).not.toMatch(/matmulTflops|hostLink|peerLink|hostMemoryBandwidth|cpuAdam:|catalog:/);
      expect(text).toMatch(/Speed figures from: GPU compute — /);
    }
    expect(noGpu.notes.join('\n')).toMatch(/GPU compute — no GPU; host↔GPU copies \(pinned\) — a default figure/);
    expect(h200.notes.join('\n')).toMatch(/CPU Adam rate — measured/);
  });

  it("the Hardware page's warnings and GPU status speak in words: no channel names, no CUDA runtime complaint for a machine without a GPU", () => {
    for (const host of ['ci-vm-no-gpu', 'h200-sxm-x86', 'macos-workstation', 'windows-workstation']) {
      let machine;
      try {
        machine = buildMachine(loadHost(host));
      } catch {
        continue; // a fixture read another way (other-os tests): not this check's business
      }
      const text = [machine.gpuStatus.message, ...machine.warnings.flatMap((w) => [w.message, w.fix])].join('\n');
      expect(text, host).not.toMatch(/hardware\/|disk-free|environment\/|libcudart|driver version is insufficient/);
    }
    const noGpu = buildMachine(loadHost('ci-vm-no-gpu'));
    expect(noGpu.gpus).toEqual([]);
    expect(noGpu.warnings.find((w) => w.id === 'no-nvme')?.fix).toMatch(/df -h FOLDER/);
  });

  it("the recommendation's sentences name strategies by their one display name, not the catalogue's long labels", () => {
    const noGpu = planWorkload({ model: 'tiny-llama', seqLen: 128, microBatch: 1, gpus: 1 } as never, {
      machine: { ...h200Machine(), gpus: [] } as never,
    });
    const h200 = planWorkload({ model: 'llama-3.2-3b', seqLen: 2048, microBatch: 1, gpus: 1 } as never, {
      machine: h200Machine(),
      measurements: h200Measurements(),
    });
    for (const plan of [noGpu, h200]) {
      const rec = plan.recommended!;
      expect(rec.reason.startsWith(`${strategyLabel(rec.strategyId)}: `), rec.reason).toBe(true);
      expect(rec.runnerUp!.reason).toContain(strategyLabel(rec.runnerUp!.strategyId));
      const said = [rec.reason, rec.runnerUp!.reason, ...plan.strategies.map((s) => s.reason)].join('\n');
      for (const s of plan.strategies) if (s.label !== strategyLabel(s.id)) expect(said, s.label).not.toContain(s.label);
    }
  });

  it.skipIf(!nativeAvailable().available)(
    'a host without a GPU says so for the copy test, not a libcudart path or a driver complaint',
    async () => {
      const said: string[] = [];
      const m = await measureHost({
        include: ['hostDevice'],
        noGpu: true,
        budgetSeconds: 1,
        onProgress: (p) => said.push(`${p.phase}: ${p.message}`),
      });
      expect(said).toContain('hostDevice: host↔GPU copies: no GPU on this machine, so there are no host↔GPU copies to measure');
      expect(m.hostDevice).toBeNull();
      expect(m.hostDeviceReason).toBe('no GPU on this machine, so there are no host↔GPU copies to measure');
    },
  );
});
