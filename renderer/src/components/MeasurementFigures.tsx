// What a host measurement found, in one table: Setup's Measure step and the Hardware page show the
// same rows (the Hardware page once showed nothing after measuring).
import { useMemo } from 'react';
import type { Measurement } from '../../../electron/contract';
import { cpuAdamCurveOption } from '../../../electron/contract/charts/measure-charts';
import { formatDateTime, formatNumber } from '../format';
import { Chart } from './Chart';
import { KeyValues } from './ui';

const CARRIED_LABEL: Record<string, string> = {
  cpuAdam: 'CPU Adam',
  memoryBandwidth: 'memory bandwidth',
  hostDevice: 'host↔GPU copies',
  torchAdam: 'torch AdamW',
};

/** torch's CPU AdamW rates (FSDP2 offload's step), fused first, or why they were not measured. */
function torchAdamText(m: Measurement): string {
  if (!m.torchAdam) return m.torchAdamReason ?? '—';
  const r = m.torchAdam.paramsPerSecond;
  const each = (['fused', 'foreach', 'plain'] as const).filter((k) => r[k]).map((k) => `${k} ${formatNumber(r[k]! / 1e9, 2)}`);
  return `${each.join(' · ')} G params/s at ${m.torchAdam.threads} threads (torch ${m.torchAdam.torch})`;
}

export function MeasurementFigures({ measurement: m, when = false }: { measurement: Measurement; when?: boolean }) {
  const curve = useMemo(() => (m.cpuAdam.length ? cpuAdamCurveOption(m) : null), [m]);
  return (
    <div data-testid="measure-result">
      <KeyValues
        rows={[
          ...(when ? ([['Measured', formatDateTime(m.measuredAt)]] as [string, string][]) : []),
          // What it took, said beside the budget asked for (starting torch and a busy machine add to the budget).
          ...(m.durationMs > 0 ? ([['Took', `${Math.round(m.durationMs / 1000)} s`]] as [string, string][]) : []),
          [
            'Best CPU Adam rate',
            `${formatNumber(Math.max(...m.cpuAdam.map((p) => p.paramsPerSecond), 0) / 1e9, 2)} G params/s (${m.simdPath})`,
          ],
          // with the threads DeepSpeed gives the Adam worker for it: int(perc × cores), 0.5 of 2 cores is 1
          [
            'Recommended cpuadam_cores_perc',
            m.recommendedCoresPerc !== null
              ? `${m.recommendedCoresPerc}${
                  m.recommendedThreads
                    ? ` (${m.recommendedThreads} thread${m.recommendedThreads === 1 ? '' : 's'}${m.logicalCores ? ` of ${m.logicalCores}` : ''})`
                    : ''
                }`
              : '—',
          ],
          [
            'Memory bandwidth (triad)',
            m.memoryBandwidthBytesPerSecond ? `${formatNumber(m.memoryBandwidthBytesPerSecond / 1e9)} GB/s` : '—',
          ],
          [
            'Host↔GPU (pinned H2D / D2H)',
            m.hostDevice
              ? `${formatNumber(m.hostDevice.pinned.h2dBytesPerSecond / 1e9)} / ${formatNumber(m.hostDevice.pinned.d2hBytesPerSecond / 1e9)} GB/s`
              : (m.hostDeviceReason ?? '—'),
          ],
          ['torch AdamW on the CPU (FSDP2 offload)', torchAdamText(m)],
          ...(m.carried && Object.keys(m.carried).length
            ? ([
                [
                  'Kept from an earlier measurement',
                  Object.entries(m.carried)
                    .map(([kind, at]) => `${CARRIED_LABEL[kind] ?? kind} (${formatDateTime(at)})`)
                    .join(', '),
                ],
              ] as [string, string][])
            : []),
        ]}
      />
      {/* The spread over this machine's measurements, and a flag where the newest is far from the others. */}
      {m.spread?.length ? (
        <ul className="small measure-spread" data-testid="measure-spread">
          {m.spread.map((sp) => (
            <li key={sp.figure} className={sp.disagrees ? 'warn-text' : 'muted'} data-disagrees={sp.disagrees}>
              {sp.words}
            </li>
          ))}
        </ul>
      ) : null}
      {curve && <Chart option={curve} height={240} testId="chart-cpu-adam" ariaLabel="CPU Adam params per second by thread count" />}
    </div>
  );
}
