// Wizard step 3: the Python environment that runs the engine. Shows every interpreter found with
// torch / CUDA / DeepSpeed status and, for each missing piece, the command that fixes it; or
// creates the app's own environment with a progress bar that can be cancelled.
import { useEffect } from 'react';
import type { InterpreterCandidate } from '../../../../electron/contract';
import { ProgressBar } from '../../components/Progress';
import { Card, ErrorBox, Skeleton } from '../../components/ui';
import { formatDateTime } from '../../format';
import { useEnvironment } from '../../stores/environment';
import type { StepProps } from './steps';

function Status({ candidate }: { candidate: InterpreterCandidate }) {
  const p = candidate.probe;
  if (!p) return <span className="muted">not probed</span>;
  if (!p.ok) return <span className="warn-text">{p.error}</span>;
  return (
    <div className="small">
      <div>
        Python {p.pythonVersion} · torch{' '}
        {p.torch
          ? `${p.torch.version}${p.torch.cuda ? ` (CUDA ${p.torch.cuda}${p.torch.cudaAvailable ? `, ${p.torch.devices.length} GPU` : ', no GPU visible'})` : ' (CPU build)'}`
          : '—'}{' '}
        · DeepSpeed{' '}
        {p.deepspeed ? `${p.deepspeed.version}${p.deepspeed.cpuAdam.compatible ? ', CPU Adam ok' : ', CPU Adam cannot build'}` : '—'}
      </div>
      {p.missing.length > 0 && (
        <ul className="missing">
          {p.missing.map((m) => (
            <li key={m.id} className={m.severity === 'required' ? 'warn-text' : 'muted'}>
              {m.what} — fix: <code>{m.fix}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** "just now", "3 min ago", "2 h ago"; a day or more: "on 3 Dec 2026, 08:14 UTC" (the one date format). */
function checkedAgo(iso: string): string {
  const s = (Date.now() - Date.parse(iso)) / 1000;
  if (!Number.isFinite(s) || s < 60) return 'just now';
  if (s >= 86400) return `on ${formatDateTime(iso)}`;
  return s < 3600 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
}

export function EnvironmentStep({ done }: StepProps) {
  const {
    candidates,
    selected,
    checkedAt,
    loading,
    error,
    list,
    select,
    install,
    cancelInstall,
    installing,
    installProgress,
    installStartedAt,
    installResult,
  } = useEnvironment();
  useEffect(() => {
    if (!candidates.length && !loading) void list();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- list once on entering the step, not on each store change
  }, []);
  const isSelected = (c: InterpreterCandidate) => selected !== null && (c.path === selected || c.probe?.executable === selected);
  const chosen = candidates.find(isSelected);
  // Nothing ready: creating the app's own environment is the first thing offered, and every
  // interpreter is one folded line — before, a dozen near-identical pip commands (some into a
  // system Python that refuses them) came first and the way that works came last.
  const nothingUsable = !loading && !candidates.some((c) => c.probe?.ready);
  // Ready interpreters (and the selected one) in the table; the others folded below, one line each.
  const shown = candidates.filter((c) => c.probe?.ready || isSelected(c));
  const ordered = (shown.length || nothingUsable ? shown : candidates).sort(
    (a, b) => Number(Boolean(b.probe?.ready)) - Number(Boolean(a.probe?.ready)),
  );
  const folded = candidates.filter((c) => !ordered.includes(c));
  const create = (
    <div className="create-environment" data-testid="create-environment">
      <h3>
        {nothingUsable
          ? 'No interpreter here can run the engine yet: create the app’s own environment'
          : 'Or create the app’s own environment'}
      </h3>
      <p className="muted small">
        A virtual environment in the data folder with the pinned torch and DeepSpeed (about 5 GB from PyPI). A failed or cancelled install
        leaves your current environment as it was.
      </p>
      {installing && (
        <>
          <ProgressBar
            fraction={installProgress?.fraction ?? null}
            label={installProgress?.message ?? 'Preparing…'}
            startedAt={installStartedAt}
            testId="install-progress"
          />
          <button type="button" className="danger" onClick={() => void cancelInstall()}>
            Cancel install
          </button>
        </>
      )}
      {installResult && !installResult.ok && (
        <ErrorBox
          message={`${installResult.message}${installResult.log.length ? ` — last output: ${installResult.log.slice(-3).join(' / ')}` : ''}`}
        />
      )}
      {installResult?.ok && <p className="ok-text">Installed: {installResult.python}</p>}
      {!installing && (
        <div className="button-row">
          <button type="button" className={nothingUsable ? undefined : 'secondary'} onClick={() => void install()}>
            Create environment
          </button>
        </div>
      )}
    </div>
  );
  return (
    <Card title="Engine environment (torch + DeepSpeed)">
      {nothingUsable && create}
      {error && <ErrorBox message={error} onRetry={() => void list()} />}
      {loading && (
        <>
          <p className="muted">Probing interpreters (importing torch and DeepSpeed takes a few seconds each)…</p>
          <Skeleton lines={3} />
        </>
      )}
      {!loading && (
        <table className="table" data-testid="interpreters">
          {/* Column heads only over rows that have columns: with nothing ready the table is one sentence. */}
          {ordered.length > 0 && (
            <thead>
              <tr>
                <th />
                <th>Interpreter</th>
                <th>Status</th>
              </tr>
            </thead>
          )}
          <tbody>
            {ordered.map((c) => (
              <tr key={c.path}>
                <td>
                  <input
                    type="radio"
                    name="interpreter"
                    aria-label={`use ${c.path}`}
                    checked={isSelected(c)}
                    onChange={() => void select(c.path)}
                  />
                </td>
                <td>
                  <code>{c.path}</code>
                  <div className="muted small">{c.sources.join(', ')}</div>
                </td>
                <td>
                  {c.probe?.ready && <span className="badge badge-completed">ready</span>} <Status candidate={c} />
                </td>
              </tr>
            ))}
            {candidates.length === 0 && (
              <tr>
                <td colSpan={3} className="muted">
                  No Python interpreter found. Create the app's own environment above.
                </td>
              </tr>
            )}
            {candidates.length > 0 && ordered.length === 0 && (
              <tr>
                <td colSpan={3} className="muted">
                  None of the {candidates.length} interpreters found has torch and DeepSpeed ready (each in one line below).
                </td>
              </tr>
            )}
          </tbody>
        </table>
      )}
      {!loading && checkedAt && (
        <p className="muted small" data-testid="env-checked-at" title={formatDateTime(checkedAt)}>
          Checked {checkedAgo(checkedAt)}; kept until an interpreter or its packages change — Re-check probes again.
        </p>
      )}
      {!loading && folded.length > 0 && (
        <details className="small other-interpreters" data-testid="other-interpreters">
          <summary>
            {ordered.length
              ? `${folded.length} other interpreter${folded.length === 1 ? '' : 's'} without a working engine`
              : `${folded.length} interpreter${folded.length === 1 ? '' : 's'} found, none with torch and DeepSpeed ready`}
          </summary>
          <ul className="folded-interpreters">
            {folded.map((c) => (
              <li key={c.path}>
                <button type="button" className="link" onClick={() => void select(c.path)} aria-label={`use ${c.path}`}>
                  use
                </button>{' '}
                <code>{c.path}</code>
                <span className="muted">
                  {' '}
                  —{' '}
                  {c.probe?.ok
                    ? `Python ${c.probe.pythonVersion}; missing ${
                        c.probe.missing
                          .filter((m) => m.severity === 'required')
                          .map((m) => m.what)
                          .join(', ') || 'nothing required'
                      }`
                    : (c.probe?.error ?? 'not probed')}
                </span>
              </li>
            ))}
          </ul>
        </details>
      )}
      {!nothingUsable && create}
      <div className="button-row">
        <button
          type="button"
          className="secondary"
          onClick={() => void list(true)}
          disabled={loading}
          data-testid="env-recheck"
          title="Probe every interpreter again (answers are otherwise kept while their files are unchanged)"
        >
          Re-check
        </button>
        <button type="button" onClick={() => done()} disabled={installing} data-testid="wizard-next">
          {chosen?.probe?.ready ? 'Continue' : 'Continue without a ready engine'}
        </button>
      </div>
    </Card>
  );
}
