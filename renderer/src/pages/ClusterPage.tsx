// Clusters (a section of Settings): multi-node runs go through DeepSpeed's own launcher (pdsh over
// ssh). A cluster is edited as JSON (hosts with slots, ssh user/port, interpreter; master address),
// then checked host by host (pre-flight), detected over ssh, and its launch command previewed.
import { useEffect, useState } from 'react';
import type { Cluster } from '../../../electron/contract';
import { TargetButtons } from '../components/TargetButtons';
import { Card, EmptyState, ErrorBox } from '../components/ui';
import { formatDateTime } from '../format';
import { useCluster } from '../stores/cluster';

const EXAMPLE: Cluster = {
  name: 'my-cluster',
  hosts: [
    { host: 'node-a', slots: 4, sshUser: null, sshPort: 22, pythonPath: '/opt/offload-venv/bin/python' },
    { host: 'node-b', slots: 4, sshUser: null, sshPort: 22, pythonPath: '/opt/offload-venv/bin/python' },
  ],
  masterAddr: 'node-a',
  masterPort: 29500,
  engineDir: '/opt/offload-studio/engine',
  interconnect: { kind: 'infiniband', gbitPerSecond: 400 },
};

export function ClusterSection() {
  const { clusters, loaded, busy, error, preflight, launch, load, save, remove, runPreflight, detect, preview } = useCluster();
  const [text, setText] = useState(JSON.stringify(EXAMPLE, null, 2));
  const [parseError, setParseError] = useState<string | null>(null);
  useEffect(() => {
    if (!loaded) void load();
  }, [loaded, load]);

  const submit = () => {
    let value: Cluster;
    try {
      value = JSON.parse(text) as Cluster;
    } catch (e) {
      setParseError(`Not valid JSON: ${(e as Error).message}`);
      return;
    }
    setParseError(null);
    void save(value);
  };

  return (
    <Card title="Clusters (multi-node through DeepSpeed's launcher)" testId="clusters-card">
      {error && <ErrorBox message={error} />}
      {loaded && clusters.length === 0 && (
        <EmptyState title="No clusters">
          <p>
            Define one below. Every host needs key-based ssh from this machine, the same interpreter path, torch and DeepSpeed, and the
            runner in the engine folder; pre-flight checks all of it.
          </p>
        </EmptyState>
      )}
      {clusters.map(({ cluster, detections }) => {
        const pf = preflight[cluster.name];
        const l = launch[cluster.name];
        return (
          <section key={cluster.name} className="cluster" data-testid={`cluster-${cluster.name}`}>
            <h3>
              {cluster.name}{' '}
              <span className="muted">
                — {cluster.hosts.length} node(s), master {cluster.masterAddr}:{cluster.masterPort}
              </span>
            </h3>
            <ul className="cluster-hosts">
              {cluster.hosts.map((h) => {
                const d = detections.find((x) => x.host === h.host);
                return (
                  <li key={h.host}>
                    <code>
                      {h.sshUser ? `${h.sshUser}@` : ''}
                      {h.host}:{h.sshPort}
                    </code>{' '}
                    slots={h.slots} <span className="muted">{h.pythonPath}</span>{' '}
                    {d && (
                      <span className={d.ok ? 'ok-text' : 'bad-text'}>{d.ok ? `detected ${formatDateTime(d.detectedAt)}` : d.detail}</span>
                    )}
                  </li>
                );
              })}
            </ul>
            <TargetButtons
              name={cluster.name}
              busy={busy}
              checking="Checking…"
              detectLabel="Detect hardware"
              onPreflight={() => void runPreflight(cluster.name)}
              onDetect={() => void detect(cluster.name)}
              onEdit={() => setText(JSON.stringify(cluster, null, 2))}
              onDelete={() => void remove(cluster.name)}
            >
              <button type="button" className="secondary" disabled={busy !== null} onClick={() => void preview(cluster.name)}>
                Launch command
              </button>
            </TargetButtons>
            {pf && (
              <table className="table preflight" data-testid={`preflight-${cluster.name}`}>
                <caption className={pf.ok ? 'ok-text' : 'bad-text'}>
                  {pf.ok ? 'Every host is ready.' : 'Not ready: fix the rows marked ✗.'}
                </caption>
                <thead>
                  <tr>
                    <th>Host</th>
                    <th>Check</th>
                    <th />
                    <th>What was found</th>
                    <th>Fix</th>
                  </tr>
                </thead>
                <tbody>
                  {pf.rows.map((r) => (
                    <tr key={`${r.host}/${r.check}`} className={r.ok ? '' : 'preflight-bad'}>
                      <td>{r.host}</td>
                      <td>{r.check}</td>
                      <td aria-label={r.ok ? 'ok' : 'failed'}>{r.ok ? '✓' : '✗'}</td>
                      <td>{r.detail}</td>
                      <td>{r.fix && <code>{r.fix}</code>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {l && (
              <pre className="cluster-launch" data-testid={`launch-${cluster.name}`}>
                {`# hostfile\n${l.hostfileText}\n# cd ${l.cwd}\n${Object.entries(l.env)
                  .map(([k, v]) => `${k}='${v}'`)
                  .join(' \\\n')} \\\n${[l.file, ...l.args].join(' ')}`}
              </pre>
            )}
          </section>
        );
      })}
      <label className="cluster-editor">
        <span>Cluster definition (JSON)</span>
        <textarea value={text} onChange={(e) => setText(e.target.value)} rows={16} spellCheck={false} data-testid="cluster-json" />
      </label>
      {parseError && <p className="bad-text">{parseError}</p>}
      <div className="button-row">
        <button type="button" disabled={busy !== null} onClick={submit} data-testid="cluster-save">
          Save cluster
        </button>
      </div>
    </Card>
  );
}
