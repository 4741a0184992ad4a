// A run's ds_config as the user's own training takes it: the launch lines for its GPUs and nodes and an
// accelerate config (plan/launch-export over the run's stored spec), and the user's own file where the
// run came from one. Nothing for a spec the contract does not accept (older runs): no guess.
import { useEffect, useState } from 'react';
import { RunSpecSchema, type LaunchExport } from '../../../../electron/contract';
import { api } from '../../api/client';
import { Card } from '../../components/ui';

export function TrainingLaunch({ spec }: { spec: unknown }) {
  const [files, setFiles] = useState<LaunchExport | null>(null);
  const specText = JSON.stringify(spec ?? null);
  const parsed = RunSpecSchema.safeParse(spec);
  const runnable = parsed.success && parsed.data.engine === 'deepspeed' && !!parsed.data.dsConfig;
  useEffect(() => {
    const again = RunSpecSchema.safeParse(JSON.parse(specText));
    if (!again.success || again.data.engine !== 'deepspeed' || !again.data.dsConfig) return;
    let live = true;
    api
      .invoke('plan/launch-export', { spec: again.data })
      .then((f) => {
        if (live) setFiles(f);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [specText]);
  if (!runnable || !files) return null;
  const user = parsed.data.userConfig ?? null;
  return (
    <Card title="Train with this config" testId="run-launch">
      {user && (
        <p className="muted small" data-testid="run-user-config">
          Your own config: {user.fileName} (sha256 {user.sha256.slice(0, 12)}…), run unchanged
          {user.resolved.length ? `; ${user.resolved.length} "auto" value(s) filled as HF Trainer does` : ''}.
        </p>
      )}
      <p className="muted small">
        Your script takes --deepspeed ds_config.json, as HF Trainer does; accelerate reads the config file below.
      </p>
      {files.launch.map((l) => (
        <pre key={l.launcher} className="code">
          {l.line}
        </pre>
      ))}
      <details>
        <summary>accelerate_config.yaml</summary>
        <pre className="code">{files.accelerateYaml}</pre>
      </details>
    </Card>
  );
}
