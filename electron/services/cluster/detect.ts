// Hardware of each host, detected over ssh with the runner's own probe (resources/engine/probe.py,
// fed on stdin to `<pythonPath> -`), so a remote host is described exactly like this one.
import fs from 'node:fs';
import path from 'node:path';
import type { Cluster, HostDetection } from '../../contract';
import { lastJsonObject, runSsh } from './ssh';
import { readSnippet } from './snippets';
import { defaultEngineDir } from './private-dir';

export interface DetectOptions {
  sshConfigPath: string;
  bundledEngineDir: string;
  timeoutMs?: number;
}

export function probeSource(bundledEngineDir: string, clusterEngineDir: string): { text: string; source: string } {
  const probe = path.join(bundledEngineDir, 'probe.py');
  if (!fs.existsSync(probe))
    return { text: readSnippet(bundledEngineDir, 'probe_fallback.py'), source: 'fallback (resources/engine/probe.py not found)' };
  // On stdin the probe has no folder of its own: put the cluster's runner folder on sys.path so
  // its sibling imports (protocol.py, …) resolve where the runner is staged.
  const prelude = `import sys; sys.path.insert(0, ${JSON.stringify(clusterEngineDir)})\n`;
  return { text: prelude + fs.readFileSync(probe, 'utf8'), source: 'resources/engine/probe.py' };
}

export async function detectHosts(cluster: Cluster, options: DetectOptions): Promise<HostDetection[]> {
  const { text, source } = probeSource(options.bundledEngineDir, cluster.engineDir ?? defaultEngineDir());
  return Promise.all(
    cluster.hosts.map(async (h): Promise<HostDetection> => {
      const r = await runSsh(options.sshConfigPath, h.host, [h.pythonPath, '-'], text, options.timeoutMs ?? 120_000);
      const probe = lastJsonObject(r.stdout);
      const detectedAt = new Date().toISOString();
      if (r.code !== 0 || !probe) {
        const why = r.spawnError ?? (r.timedOut ? 'timed out' : r.stderr.trim().split('\n').pop() || `exit ${r.code}`);
        return { host: h.host, ok: false, detectedAt, detail: `probe failed: ${why}`.slice(0, 500), probe: null };
      }
      return { host: h.host, ok: true, detectedAt, detail: `probed with ${source}`, probe };
    }),
  );
}
