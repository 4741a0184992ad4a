// Every ds_config of the corpus (tests/fixtures/ds-configs, each with its published source in
// sources.json) is read, planned and exported; none ends in an internal error. A published config
// DeepSpeed 0.19.8 refuses is refused here first, with the key and DeepSpeed's own words; what cannot
// run on a machine without a GPU (fp16, SuperOffload, NVMe) is refused there up front, saying why.
// tests/engine/test_ds_config_corpus.py trains the rest for two steps on this CPU.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchExport } from '../../../electron/contract';
import { CORPUS, corpusSources, planCorpusConfig } from '../../helpers/ds-config-corpus';

const sources = corpusSources();
const TUNED_KEY =
  /^(zero_optimization\.(stage|overlap_comm|reduce_bucket_size|sub_group_size|cpu_offload|cpu_offload_param|offload_(optimizer|param)\.\w+)|gradient_clipping|train_batch_size|train_micro_batch_size_per_gpu|gradient_accumulation_steps)$/;

describe('the ds_config corpus', () => {
  it('holds at least 25 configs, each with its published source', () => {
    const files = fs.readdirSync(CORPUS).filter((f) => f.endsWith('.json') && f !== 'sources.json');
    expect(files.length).toBeGreaterThanOrEqual(25);
    expect(Object.keys(sources).sort()).toEqual(files.sort());
    for (const s of Object.values(sources)) expect(s.url).toMatch(/^https:\/\//);
  });

  it.each(Object.entries(sources))('%s is read, planned and exported', (name, src) => {
    const r = planCorpusConfig(name, src);
    if ('refused' in r) {
      // only where DeepSpeed itself refuses the published file, with the key and its words
      expect(src.refusedKey, r.refused.message).toBeDefined();
      expect(r.refused.field).toBe(src.refusedKey);
      expect(r.refused.message).toMatch(/"Extra inputs are not permitted"/);
      return;
    }
    expect(src.refusedKey).toBeUndefined();
    const { plan } = r;
    expect(JSON.stringify(plan.resolvedConfig)).not.toContain('"auto"');
    expect(plan.mapping.strategyId ?? plan.mapping.unmodelled).toBeTruthy();
    for (const spec of [plan.spec, r.tuned]) {
      if (!spec) continue;
      const e = launchExport(spec);
      expect(JSON.parse(e.dsConfigJson)).toEqual(spec.dsConfig);
      expect(e.launch.map((l) => l.launcher)).toEqual(['deepspeed', 'torchrun', 'accelerate']);
    }
    // the tuned config keeps every key the tuner does not model, and lists only what it tunes
    expect(plan.tuned).not.toBeNull();
    for (const d of plan.tuned!.diff) expect(d.key).toMatch(TUNED_KEY);
    for (const key of Object.keys(plan.resolvedConfig))
      if (
        ![
          'zero_optimization',
          'gradient_clipping',
          'train_batch_size',
          'train_micro_batch_size_per_gpu',
          'gradient_accumulation_steps',
        ].includes(key)
      )
        expect(plan.tuned!.spec.dsConfig?.[key], key).toEqual(plan.resolvedConfig[key]);
    // on a machine without a GPU: run, or refused up front saying why (never "internal")
    if (r.cpuRefusal)
      expect(r.cpuRefusal).toMatch(new RegExp(`^${name.replace(/\./g, '\\.')}: .*cannot run on this machine: (it has no GPU|no GPU)`));
    const fp16 = (plan.resolvedConfig.fp16 as { enabled?: unknown } | undefined)?.enabled === true;
    const gpuOnly = ['superoffload', 'zero-infinity-nvme'].includes(plan.mapping.strategyId ?? '');
    expect(r.cpuRefusal !== null).toBe(fp16 || gpuOnly);
  });
});
