// A progress bar with counts, elapsed and remaining time: every long action shows one.
import { useEffect, useState } from 'react';
import { formatDuration } from '../format';

export function ProgressBar({
  fraction,
  label,
  startedAt,
  etaSeconds,
  testId,
}: {
  fraction: number | null; // null: indeterminate
  label: string;
  startedAt?: number | null;
  etaSeconds?: number | null;
  testId?: string;
}) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const elapsed = startedAt ? (now - startedAt) / 1000 : null;
  const eta = etaSeconds ?? (fraction && fraction > 0.02 && elapsed ? (elapsed * (1 - fraction)) / fraction : null);
  return (
    <div className="progress" data-testid={testId}>
      <div className="progress-label">
        <span>{label}</span>
        <span className="muted">
          {fraction !== null ? `${Math.round(fraction * 100)}%` : ''}
          {elapsed !== null ? ` · elapsed ${formatDuration(elapsed)}` : ''}
          {eta !== null ? ` · remaining ~${formatDuration(eta)}` : ''}
        </span>
      </div>
      <div
        className="progress-track"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={fraction !== null ? Math.round(fraction * 100) : undefined}
        aria-label={label}
      >
        <div
          className={fraction === null ? 'progress-fill indeterminate' : 'progress-fill'}
          style={{ width: fraction === null ? '30%' : `${Math.min(100, fraction * 100)}%` }}
        />
      </div>
    </div>
  );
}
