// One decision of which catalogue strategy a config runs as: the user's own ds_config (mapConfig) and a
// stored run's config (knobsOfConfig) ask the registry's strategyOfConfig, so the configs on which two
// separate readers once disagreed — NVMe on one device only, ZeRO stage 1 with CPU offload, the
// deprecated cpu_offload flags, stage 3 parameters offloaded without the optimizer — get one answer.
import { describe, expect, it } from 'vitest';
import { configParts, knobsOfConfig, strategyOfConfig } from '../../../electron/services/tuner/mechanisms';
import { mapConfig } from '../../../electron/services/tuner/user-config';

const batch = { trainBatch: 2, microBatch: 2, gradAccum: 1 };
const zeroConfig = (zero: Record<string, unknown>) => ({ train_batch_size: 2, bf16: { enabled: true }, zero_optimization: zero });
/** The strategy both readers give: the registry's, and the one the user's config is planned as. */
function both(zero: Record<string, unknown>) {
  const config = zeroConfig(zero);
  const decided = strategyOfConfig(configParts(config));
  const mapped = mapConfig(config, batch, 1, []);
  return { registry: decided.strategy?.id ?? null, mechanism: decided.mechanism?.id ?? null, userConfig: mapped.strategyId };
}

describe('one strategy decision for a config', () => {
  it.each([
    // ZeRO-Infinity is both devices on NVMe; one device alone is no catalogue strategy
    [{ stage: 3, offload_optimizer: { device: 'nvme', nvme_path: '/x' } }, null, null],
    [{ stage: 3, offload_param: { device: 'nvme', nvme_path: '/x' } }, null, null],
    [{ stage: 3, offload_optimizer: { device: 'cpu' }, offload_param: { device: 'nvme', nvme_path: '/x' } }, null, null],
    [
      { stage: 3, offload_optimizer: { device: 'nvme', nvme_path: '/x' }, offload_param: { device: 'nvme', nvme_path: '/x' } },
      'zero-infinity-nvme',
      'nvme',
    ],
    // stage 1 with the optimizer on the CPU: DeepSpeed's ZeRO-2 optimizer class, modelled as ZeRO-2 offload
    [{ stage: 1, offload_optimizer: { device: 'cpu' } }, 'zero2-offload', 'optimizer-offload'],
    [{ stage: 1 }, 'gpu-zero1', 'no-offload'],
    // the deprecated flags name the offload blocks they stand for
    [{ stage: 2, cpu_offload: true }, 'zero2-offload', 'optimizer-offload'],
    [{ stage: 3, cpu_offload: true, cpu_offload_param: true }, 'zero3-offload-param', 'param-offload'],
    // parameters on the CPU without the optimizer, or super_offload beside them: no catalogue strategy
    [{ stage: 3, offload_param: { device: 'cpu' } }, null, null],
    [{ stage: 3, offload_optimizer: { device: 'cpu', super_offload: true }, offload_param: { device: 'cpu' } }, null, null],
    [{ stage: 3, offload_optimizer: { device: 'cpu', super_offload: true } }, 'superoffload', 'superoffload'],
    // a zero block without a stage is DeepSpeed's stage 0
    [{}, null, null],
  ])('%j → %s', (zero, strategy, mechanism) => {
    expect(both(zero)).toEqual({ registry: strategy, mechanism, userConfig: strategy });
  });

  it('a config of no catalogue strategy says why, and its knobs are the ZeRO keys alone', () => {
    const config = zeroConfig({ stage: 3, offload_optimizer: { device: 'nvme', nvme_path: '/x' }, reduce_bucket_size: 1e8 });
    const decided = strategyOfConfig(configParts(config));
    expect(decided.strategy).toBeNull();
    if (!decided.strategy) expect(decided.why).toMatch(/optimizer on "nvme" and parameters on "none".*no strategy of the catalogue/);
    expect(knobsOfConfig(config)).toEqual({ reduceBucketSize: 1e8 });
  });

  it('the deprecated flags read as their blocks: pinned CPU offload, as DeepSpeed sets it', () => {
    const mapped = mapConfig(zeroConfig({ stage: 2, cpu_offload: true }), batch, 1, []);
    expect(mapped.knobs.pinMemory).toBe(true);
  });
});
