// Compare's overlay of two runs' resource lanes: pick run A and run B among the compared
// runs; their stored lanes (runs/resources) are drawn on one time axis from each run's first
// measured step (contract/charts/resource-overlay.ts). A lane a run did not measure says why.
import { useEffect, useMemo, useState } from 'react';
import { OVERLAY_HEIGHT, resourceOverlayOption } from '../../../../electron/contract/charts/resource-overlay';
import type { RunResources } from '../../../../electron/contract';
import { api } from '../../api/client';
import { Chart } from '../../components/Chart';
import { Card } from '../../components/ui';

interface RunRef {
  id: string;
  label: string;
}

function useResources(id: string): { data: RunResources | null; error: string | null } {
  const [state, setState] = useState<{ id: string; data: RunResources | null; error: string | null }>({ id: '', data: null, error: null });
  useEffect(() => {
    let live = true;
    api
      .invoke('runs/resources', { id })
      .then((data) => live && setState({ id, data, error: null }))
      .catch((e: Error) => live && setState({ id, data: null, error: e.message }));
    return () => {
      live = false;
    };
  }, [id]);
  return state.id === id ? state : { data: null, error: null };
}

function RunSelect({ which, runs, value, onChange }: { which: 'A' | 'B'; runs: RunRef[]; value: string; onChange(id: string): void }) {
  return (
    <label className="small">
      {which}{' '}
      <select
        aria-label={`Run ${which}`}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        data-testid={`overlay-run-${which.toLowerCase()}`}
      >
        {runs.map((r) => (
          <option key={r.id} value={r.id}>
            {r.label} · {r.id}
          </option>
        ))}
      </select>
    </label>
  );
}

export function ResourceOverlayCard({ runs }: { runs: RunRef[] }) {
  const [aId, setA] = useState(runs[0].id);
  const [bId, setB] = useState(runs[1].id);
  const a = useResources(aId);
  const b = useResources(bId);
  const label = (id: string) => runs.find((r) => r.id === id)?.label ?? id;
  const ready = (a.data || a.error) && (b.data || b.error);
  const option = useMemo(
    () =>
      ready
        ? resourceOverlayOption(
            { label: label(aId), record: a.data?.record ?? null, missing: a.data?.missing ?? a.error },
            { label: label(bId), record: b.data?.record ?? null, missing: b.data?.missing ?? b.error },
          )
        : null,
    // label() reads runs, which the ids come from
    // eslint-disable-next-line react-hooks/exhaustive-deps -- label is a new function each render; its inputs (the ids) are listed
    [ready, a.data, a.error, b.data, b.error, aId, bId],
  );
  return (
    <Card title="Resources of two runs, overlaid (from each run's first measured step)" testId="compare-resources">
      <div className="button-row">
        <RunSelect which="A" runs={runs} value={aId} onChange={setA} />
        <RunSelect which="B" runs={runs} value={bId} onChange={setB} />
      </div>
      {option && (
        <Chart
          option={option}
          height={OVERLAY_HEIGHT}
          testId="chart-compare-resources"
          ariaLabel="GPU busy, PCIe and CPU cores of run A and run B on one time axis"
        />
      )}
    </Card>
  );
}
