// The Run page's live resource lanes: the run sampling now, drawn with the stored view's
// option builder from the record the live events grow (stores/resources-live.ts), plus its loss so
// far. A lane that is not measured here says why in its title; nothing is drawn as 0.
import { useMemo } from 'react';
import { resourceLanesOption } from '../../../../electron/contract/charts/resource-lanes';
import { Chart } from '../../components/Chart';
import { Card } from '../../components/ui';
import { formatBytes } from '../../format';
import { useEngine } from '../../stores/engine';
import { useResourcesLive } from '../../stores/resources-live';
import { LossCard } from './LossCard';
import { liveRunName } from './progress';

export function LiveResourcesCard() {
  const { sweepId, runs } = useEngine();
  const live = useResourcesLive();
  const runId = live.sweepId === sweepId ? live.latestRunId : null;
  const record = runId ? (live.byRun[runId]?.record ?? null) : null;
  const run = runId ? runs[runId] : undefined;
  const option = useMemo(() => (record ? resourceLanesOption(record) : null), [record]);
  const loss = useMemo(() => (run ? run.samples.map((s) => ({ step: s.step, warmup: s.warmup, loss: s.loss })) : []), [run]);
  if (!record || !run) return null;
  const last = record.samples.at(-1);
  const busy = last ? last.cpuBusyPct.filter((p) => p >= 90).length : null;
  const name = liveRunName(run);
  return (
    <>
      <Card
        title={`Resources — ${name}, ${run.status === 'running' || run.status === 'queued' ? 'live' : run.status} (dashed: warm-up ends)`}
        testId="live-resources"
      >
        {option && (
          <Chart
            option={option}
            height={360}
            testId="chart-live-resources"
            ariaLabel="GPU busy, PCIe throughput and CPU cores busy of the run now, growing"
          />
        )}
        <p className="muted small" data-testid="live-resources-now">
          {last ? `${record.samples.length} sample(s), the newest at ${(last.t / 1000).toFixed(1)} s: ` : ''}
          {busy !== null && last?.cpuBusyPct.length
            ? `${busy}/${last.cpuBusyPct.length} CPU cores at ≥ 90%`
            : `CPU not available: ${record.availability.cpu.reason ?? 'no reading yet'}`}
          {last?.memUsedBytes != null ? `, host memory ${formatBytes(last.memUsedBytes)}` : ''}. The stored record (exact step marks, the
          attribution) is on the run&apos;s page when it ends.
        </p>
      </Card>
      <LossCard points={loss} strategy={run.strategy} title={`Loss per step — ${name} (hollow: warm-up)`} />
    </>
  );
}
