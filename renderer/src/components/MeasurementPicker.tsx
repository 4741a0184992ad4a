// Which of this machine's measurements its plans use, and the choice of another: a measurement taken
// while the machine was busy is flagged and passed over (the newest that agrees with the others is
// used), and the user can pick any one, or go back to that rule.
import { useEffect, useState } from 'react';
import type { Measurement, MeasurementChoice } from '../../../electron/contract';
import { api } from '../api/client';
import { formatDateTime, formatNumber } from '../format';
import { Card } from './ui';

/** This machine's measurement choice, reloaded when `stored` changes (a new one measured here): the
 *  Hardware page's Measurements card reads it too, to say when its figures are not the ones plans use. */
export function useMeasurementChoice(stored: Measurement | null) {
  const [choice, setChoice] = useState<MeasurementChoice | null>(null);
  useEffect(() => {
    let live = true;
    api
      .invoke('hardware/measurements', {})
      .then((c) => live && setChoice(c))
      .catch(() => live && setChoice(null));
    return () => {
      live = false;
    };
  }, [stored?.measuredAt]);
  return [choice, setChoice] as const;
}

/** A card of its own across the page's grid; `choice` and `setChoice` come from useMeasurementChoice. */
export function MeasurementPicker({ choice, setChoice }: { choice: MeasurementChoice | null; setChoice: (c: MeasurementChoice) => void }) {
  const [error, setError] = useState<string | null>(null);
  // one measurement leaves nothing to choose; its figures are shown above
  if (!choice || choice.measurements.length < 2) return null;
  const use = (measuredAt: string | null) =>
    api
      .invoke('hardware/measurement-use', { measuredAt })
      .then((c) => {
        setChoice(c);
        setError(null);
      })
      .catch((e: Error) => setError(e.message));
  return (
    <div className="span-all" data-testid="measurement-picker">
      <Card title="Which measurement plans use">
        <p className="small" data-testid="measurement-used-words">
          {choice.words}
        </p>
        <table className="table small measurement-picker">
          <thead>
            <tr>
              <th>Use</th>
              <th>Measured</th>
              <th className="num">CPU Adam (G params/s)</th>
              <th className="num">Triad (GB/s)</th>
              <th>Agrees with the others</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>
                <input
                  type="radio"
                  name="measurement-use"
                  aria-label="Automatic: the newest that agrees with the others"
                  checked={choice.picked === null}
                  onChange={() => void use(null)}
                />
              </td>
              <td colSpan={4} className="muted">
                Automatic: the newest that agrees with the others
              </td>
            </tr>
            {choice.measurements.map((m) => (
              <tr
                key={m.measuredAt}
                data-testid="measurement-row"
                data-used={m.measuredAt === choice.usedAt}
                data-flagged={m.flagged.length > 0}
              >
                <td>
                  <input
                    type="radio"
                    name="measurement-use"
                    aria-label={`Use the measurement of ${formatDateTime(m.measuredAt)}`}
                    checked={choice.picked === m.measuredAt}
                    onChange={() => void use(m.measuredAt)}
                  />
                </td>
                <td>
                  {formatDateTime(m.measuredAt)}
                  {m.measuredAt === choice.usedAt ? <span className="muted"> · used</span> : null}
                </td>
                <td className="num">{m.cpuAdamParamsPerSecond !== null ? formatNumber(m.cpuAdamParamsPerSecond / 1e9, 2) : '—'}</td>
                <td className="num">{m.memoryBandwidthBytesPerSecond ? formatNumber(m.memoryBandwidthBytesPerSecond / 1e9, 1) : '—'}</td>
                <td className={m.flagged.length ? 'warn-text' : 'muted'}>{m.flagged.length ? `no: ${m.flagged.join('; ')}` : 'yes'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {error && <p className="warn-text small">{error}</p>}
      </Card>
    </div>
  );
}
