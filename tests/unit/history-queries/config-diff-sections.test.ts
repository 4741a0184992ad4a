// Compare's config differences: one column per repeat group, only keys that differ,
// grouped as knobs / DeepSpeed / FSDP2 / workload; with FSDP2 in the set the DeepSpeed keys the
// DeepSpeed groups share are not listed as differences ("not applicable" to FSDP2 instead).
import { describe, expect, it } from 'vitest';
import { configDiffSections, configDiffSectionsOfDiff } from '../../../electron/contract';
import { createBackend } from '../../../electron/services/backend';
import { tmpDir } from './helpers';

describe('config differences, grouped', () => {
  it("compares an engine's keys only among its own columns", () => {
    const ds = (stage: number, extra: Record<string, unknown> = {}) => ({
      engine: 'deepspeed',
      seqLen: 2048,
      knobs: { overlapComm: true },
      fsdp: null,
      dsConfig: { bf16: { enabled: true }, optimizer: { type: 'AdamW', params: { lr: 1e-5 } }, zero_optimization: { stage, ...extra } },
    });
    const fsdp = {
      engine: 'fsdp2',
      seqLen: 2048,
      knobs: { reshardAfterForward: true },
      fsdp: { cpuOffload: true, reshardAfterForward: true },
      dsConfig: null,
    };
    const sections = configDiffSections([ds(2), ds(3, { sub_group_size: 4e8 }), fsdp], ['deepspeed', 'deepspeed', 'fsdp2']);
    const byId = Object.fromEntries(sections.map((s) => [s.id, s]));
    // DeepSpeed: stage and sub_group_size differ between the two DeepSpeed columns; bf16/optimizer are shared, not listed.
    expect(byId.deepspeed.rows.map((r) => r.path)).toEqual(['zero_optimization.stage', 'zero_optimization.sub_group_size']);
    expect(byId.deepspeed.rows[0].values).toEqual(['2', '3', 'not applicable']);
    expect(byId.deepspeed.applies).toEqual([true, true, false]);
    expect(byId.deepspeed.same).toBe(3);
    // FSDP2 settings apply to the FSDP2 column only: one column, nothing can differ.
    expect(byId.fsdp.rows).toEqual([]);
    expect(byId.fsdp.applies).toEqual([false, false, true]);
    // A knob only one engine's columns have is not applicable to the other's: overlapComm (the same
    // in both DeepSpeed columns) and reshardAfterForward (FSDP2's only) are not differences.
    expect(byId.knobs.rows).toEqual([]);
    expect(byId.knobs.same).toBe(2);
    // The workload is the same (seqLen) and 'engine' is the columns' own.
    expect(byId.workload.rows).toEqual([]);
    const knobs = configDiffSections(
      [
        { engine: 'deepspeed', knobs: { overlapComm: true, ratio: 0.1 } },
        { engine: 'deepspeed', knobs: { overlapComm: false } },
        { engine: 'fsdp2', knobs: { reshardAfterForward: true } },
      ],
      ['deepspeed', 'deepspeed', 'fsdp2'],
    ).find((x) => x.id === 'knobs')!;
    expect(knobs.rows).toEqual([
      { path: 'overlapComm', values: ['true', 'false', 'not applicable'] },
      { path: 'ratio', values: ['0.1', '—', 'not applicable'] },
    ]);
    expect(byId.workload.rows).toEqual([]);
  });

  it('on the H200 samples with FSDP2 in the set: a handful of keys, not every DeepSpeed key', async () => {
    const backend = createBackend({ dataDir: tmpDir(), transport: 'cli' });
    try {
      await backend.invoke('samples/load', {});
      const { runs } = await backend.invoke('runs/list', { tag: 'sample' });
      const ids = runs
        .filter(
          (r) =>
            r.sweepId === 'sw-sample-h200-llama-3.2-3b-sweep' && ['superoffload', 'gpu-zero2', 'fsdp2-cpu-offload'].includes(r.strategy),
        )
        .map((r) => r.id);
      expect(ids).toHaveLength(6);
      const c = await backend.invoke('compare/runs', { ids });
      const columns = c.groups.map((g) => c.runs.findIndex((r) => r.id === g.runIds[0]));
      const sections = configDiffSectionsOfDiff(
        c.configDiff,
        columns,
        c.groups.map((g) => g.engine),
        ['strategy', 'prediction'],
      );
      const ds = sections.find((s) => s.id === 'deepspeed')!;
      // Run by run, every DeepSpeed key "differs" (FSDP2 has none); grouped, only the real differences remain.
      expect(c.configDiff.filter((d) => d.path.startsWith('dsConfig')).length).toBeGreaterThan(15);
      expect(ds.rows.length).toBeLessThanOrEqual(12);
      expect(ds.rows.map((r) => r.path)).toContain('zero_optimization.stage');
      expect(ds.rows.map((r) => r.path)).not.toContain('bf16.enabled');
      expect(ds.applies).toEqual(c.groups.map((g) => g.engine === 'deepspeed'));
      for (const r of ds.rows) for (const [i, v] of r.values.entries()) if (!ds.applies[i]) expect(v).toBe('not applicable');
      // One column per group: 3, not 6.
      expect(ds.rows[0].values).toHaveLength(3);
    } finally {
      await backend.close();
    }
  });
});
