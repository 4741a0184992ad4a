// Slurm targets (a section of Settings): runs and sweeps go to a cluster as sbatch jobs. A target is
// a form of what the jobs ask for (partition, account, QOS, time, nodes, GPUs per node) and where
// things live on the shared filesystem; detect reads the partition's nodes from Slurm, pre-flight
// runs a tiny job. The backend checks every field and names the one it refuses.
import { useEffect, useState, type FormEvent } from 'react';
import type { SlurmTargetInput } from '../../../electron/contract';
import { TargetButtons } from '../components/TargetButtons';
import { Card, EmptyState, ErrorBox } from '../components/ui';
import { formatBytes, formatDateTime } from '../format';
import { useSlurm } from '../stores/slurm';

type Draft = Record<
  | 'name'
  | 'partition'
  | 'account'
  | 'qos'
  | 'timeLimitMinutes'
  | 'nodes'
  | 'gpusPerNode'
  | 'gpuType'
  | 'constraint'
  | 'pythonPath'
  | 'setup'
  | 'workDir'
  | 'maxPendingMinutes'
  | 'sweepMode',
  string
>;

const EMPTY: Draft = {
  name: '',
  partition: '',
  account: '',
  qos: '',
  timeLimitMinutes: '60',
  nodes: '1',
  gpusPerNode: '1',
  gpuType: '',
  constraint: '',
  pythonPath: '',
  setup: '',
  workDir: '',
  maxPendingMinutes: '',
  sweepMode: 'serial',
};

/** The form's text → the target the backend checks (numbers stay text when they are not numbers: the backend names the field). */
export function draftToTarget(d: Draft): SlurmTargetInput {
  const num = (v: string) => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v.trim());
  const opt = (v: string) => (v.trim() === '' ? null : v.trim());
  return {
    kind: 'slurm',
    name: d.name.trim(),
    partition: d.partition.trim(),
    account: opt(d.account),
    qos: opt(d.qos),
    timeLimitMinutes: num(d.timeLimitMinutes) as number,
    nodes: num(d.nodes) as number,
    gpusPerNode: num(d.gpusPerNode) as number,
    gpuType: opt(d.gpuType),
    constraint: opt(d.constraint),
    pythonPath: d.pythonPath.trim(),
    setup: d.setup
      .split('\n')
      .map((l) => l.trimEnd())
      .filter(Boolean),
    workDir: d.workDir.trim(),
    maxPendingMinutes: d.maxPendingMinutes.trim() === '' ? null : (num(d.maxPendingMinutes) as number),
    sweepMode: d.sweepMode as SlurmTargetInput['sweepMode'],
  };
}

const FIELDS: { key: keyof Draft; label: string; placeholder?: string }[] = [
  { key: 'name', label: 'Name', placeholder: 'my-slurm' },
  { key: 'partition', label: 'Partition', placeholder: 'gpu' },
  { key: 'account', label: 'Account', placeholder: '(the default account)' },
  { key: 'qos', label: 'QOS', placeholder: '(the default QOS)' },
  { key: 'timeLimitMinutes', label: 'Time limit (minutes)' },
  { key: 'nodes', label: 'Nodes' },
  { key: 'gpusPerNode', label: 'GPUs per node (gres)' },
  { key: 'gpuType', label: 'GPU type (gres)', placeholder: 'a100, h100 … (any)' },
  { key: 'constraint', label: 'Constraint', placeholder: 'ib&sm90 (none)' },
  { key: 'pythonPath', label: 'Engine interpreter (shared filesystem)', placeholder: '/shared/venvs/offload/bin/python' },
  { key: 'workDir', label: 'Work folder (shared filesystem)', placeholder: '/home/me/offload-studio' },
  { key: 'maxPendingMinutes', label: 'Give up after pending (minutes)', placeholder: '(wait)' },
];

export function SlurmSection() {
  const { targets, loaded, busy, error, preflight, load, save, remove, runPreflight, detect } = useSlurm();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  useEffect(() => {
    if (!loaded) void load();
  }, [loaded, load]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(draftToTarget(draft));
  };
  const edit = (t: SlurmTargetInput) =>
    setDraft({
      name: t.name,
      partition: t.partition,
      account: t.account ?? '',
      qos: t.qos ?? '',
      timeLimitMinutes: String(t.timeLimitMinutes),
      nodes: String(t.nodes),
      gpusPerNode: String(t.gpusPerNode),
      gpuType: t.gpuType ?? '',
      constraint: t.constraint ?? '',
      pythonPath: t.pythonPath,
      setup: (t.setup ?? []).join('\n'),
      workDir: t.workDir,
      maxPendingMinutes: t.maxPendingMinutes ? String(t.maxPendingMinutes) : '',
      sweepMode: t.sweepMode ?? 'serial',
    });

  return (
    <Card title="Slurm clusters (runs as sbatch jobs)" testId="slurm-card">
      {error && <ErrorBox message={error} />}
      {loaded && targets.length === 0 && (
        <EmptyState title="No Slurm targets">
          <p>
            Run the app on a login node (where sbatch works), give the partition and the interpreter and work folder on the shared
            filesystem; pre-flight checks them with a tiny job.
          </p>
        </EmptyState>
      )}
      {targets.map(({ target: t, detected }) => {
        const pf = preflight[t.name];
        return (
          <section key={t.name} className="cluster" data-testid={`slurm-${t.name}`}>
            <h3>
              {t.name}{' '}
              <span className="muted">
                — partition {t.partition}
                {t.account ? `, account ${t.account}` : ''}
                {t.qos ? `, QOS ${t.qos}` : ''}, {t.nodes} node(s) × {t.gpusPerNode} GPU(s), {t.timeLimitMinutes} min
              </span>
            </h3>
            {detected && (
              <p className="muted" data-testid={`slurm-detected-${t.name}`}>
                {detected.nodes.length} node(s) in {detected.partition}: {detected.cpus ?? '?'} CPUs,{' '}
                {detected.memBytes === null ? '?' : formatBytes(detected.memBytes)} memory, {detected.gpus} GPU(s)
                {detected.gpuType ? ` (${detected.gpuType})` : ''} per node — detected {formatDateTime(detected.detectedAt)}
              </p>
            )}
            <TargetButtons
              name={t.name}
              busy={busy}
              checking="Checking (a tiny job)…"
              detectLabel="Detect nodes"
              onPreflight={() => void runPreflight(t.name)}
              onDetect={() => void detect(t.name)}
              onEdit={() => edit(t)}
              onDelete={() => void remove(t.name)}
            />
            {pf && (
              <table className="table preflight" data-testid={`slurm-preflight-${t.name}`}>
                <caption className={pf.ok ? 'ok-text' : 'bad-text'}>
                  {pf.ok ? 'Ready for jobs.' : 'Not ready: fix the rows marked ✗.'}
                </caption>
                <tbody>
                  {pf.rows.map((r, i) => (
                    <tr key={`${r.check}/${i}`} className={r.ok ? '' : 'preflight-bad'}>
                      <td>{r.check}</td>
                      <td aria-label={r.ok ? 'ok' : 'failed'}>{r.ok ? '✓' : '✗'}</td>
                      <td>{r.detail}</td>
                      <td>{r.fix && <code>{r.fix}</code>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        );
      })}
      <form className="settings-form" onSubmit={submit} aria-label="Slurm target">
        {FIELDS.map((f) => (
          <label key={f.key}>
            <span>{f.label}</span>
            <input
              value={draft[f.key]}
              placeholder={f.placeholder}
              spellCheck={false}
              onChange={(e) => setDraft((d) => ({ ...d, [f.key]: e.target.value }))}
              data-testid={`slurm-${f.key}`}
            />
          </label>
        ))}
        <label>
          <span>A sweep goes as</span>
          <select
            value={draft.sweepMode}
            onChange={(e) => setDraft((d) => ({ ...d, sweepMode: e.target.value }))}
            data-testid="slurm-sweepMode"
          >
            <option value="serial">one job at a time (each submitted when the previous ended)</option>
            <option value="chain">a dependency chain (all submitted, each after the previous)</option>
            <option value="array">one job array (Slurm runs as many at once as it can)</option>
          </select>
        </label>
        <label>
          <span>Setup lines (module load …, conda activate …), one per line</span>
          <textarea
            value={draft.setup}
            rows={3}
            spellCheck={false}
            onChange={(e) => setDraft((d) => ({ ...d, setup: e.target.value }))}
            data-testid="slurm-setup"
          />
        </label>
        <div className="button-row">
          <button type="submit" disabled={busy !== null} data-testid="slurm-save">
            Save Slurm target
          </button>
        </div>
      </form>
    </Card>
  );
}
