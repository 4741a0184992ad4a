// Tune: the closed loop (tune/start) for the workload on the form, on this machine — short trials of
// the most promising configurations through the real runner, refitted after each, until nothing
// untried is predicted to beat the best measured by more than the noise or the budget is spent.
// Every trial is a stored run (tag "tune"); cancel keeps the finished ones.
import { useEffect, useState } from 'react';
import type { TuneResultInfo } from '../../../../electron/contract';
import { api } from '../../api/client';
import { Card, ErrorBox } from '../../components/ui';
import { formatNumber } from '../../format';
import { usePlan } from '../../stores/plan';

export function TunePanel() {
  const workload = usePlan((s) => s.workload);
  const imported = usePlan((s) => s.imported);
  const [budget, setBudget] = useState(20);
  const [tuneId, setTuneId] = useState<string | null>(null);
  const [lines, setLines] = useState<string[]>([]);
  const [result, setResult] = useState<TuneResultInfo | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(
    () =>
      api.on('tune/progress', (e) => {
        if (tuneId && e.tuneId !== tuneId) return;
        setLines((l) => [...l, e.line].slice(-40));
        if (e.done) {
          setTuneId(null);
          setResult(e.result);
          if (e.error) setError(e.error.message);
        }
      }),
    [tuneId],
  );

  const start = async () => {
    setLines([]);
    setResult(null);
    setError(null);
    try {
      const model = imported.find((m) => m.id === workload.model) ?? workload.model;
      const { tuneId: id } = await api.invoke('tune/start', {
        workload: { model, seqLen: workload.seqLen, microBatch: workload.microBatch, gpus: workload.gpus, precision: workload.precision, activationCheckpointing: workload.activationCheckpointing },
        budgetMinutes: budget,
      });
      setTuneId(id);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };

  return (
    <Card title="Tune on this machine" testId="tune-panel">
      <p className="muted small">
        Runs the most promising configurations as short trials (2 warm-up + 4 steps), refits the model from each, and stops when nothing untried is predicted to beat
        the best by more than 5% — or when the budget is spent. Every trial is kept in Runs (tag “tune”).
      </p>
      <div className="button-row">
        <label>
          Budget (minutes){' '}
          <input type="number" min={1} value={budget} onChange={(e) => setBudget(Math.max(1, Number(e.target.value) || 1))} disabled={!!tuneId} data-testid="tune-budget" />
        </label>
        {tuneId ? (
          <button type="button" className="secondary" onClick={() => void api.invoke('tune/cancel', { tuneId })} data-testid="tune-cancel">
            Cancel (keep finished trials)
          </button>
        ) : (
          <button type="button" onClick={() => void start()} data-testid="tune-start">
            Tune
          </button>
        )}
      </div>
      {error && <ErrorBox message={error} />}
      {lines.length > 0 && (
        <pre className="log small" data-testid="tune-log">
          {lines.join('\n')}
        </pre>
      )}
      {result?.winner && (
        <p data-testid="tune-result">
          <strong>{result.winner.strategyId}</strong>: {formatNumber(result.winner.tflopsPerGpu ?? 0)} TFLOPS/GPU measured in{' '}
          {result.trials.filter((t) => !t.baseline).length} trial(s)
          {result.seedDefaults?.tflopsPerGpu ? ` — seed defaults ${formatNumber(result.seedDefaults.tflopsPerGpu)} (${((result.gain ?? 0) * 100).toFixed(0)}% gained)` : ''}. {result.stopReason}.
        </p>
      )}
    </Card>
  );
}
