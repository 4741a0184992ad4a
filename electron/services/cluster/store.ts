// Clusters live in <dataDir>/clusters.json (the SQLite store belongs to the history service):
// { version: 1, clusters: ClusterRecord[] }, written atomically through the settings service's helper.
import path from 'node:path';
import { ClusterRecordSchema, type Cluster, type ClusterRecord, type HostDetection } from '../../contract';
import { readJsonObject, writeJsonAtomic } from '../settings';

export const CLUSTERS_FILE = 'clusters.json';

export interface ClusterStore {
  list(): ClusterRecord[];
  get(name: string): ClusterRecord | null;
  save(cluster: Cluster): ClusterRecord;
  remove(name: string): boolean;
  recordDetections(name: string, detections: HostDetection[]): ClusterRecord;
}

export function openClusterStore(dataDir: string): ClusterStore {
  const file = path.join(dataDir, CLUSTERS_FILE);

  function readAll(): ClusterRecord[] {
    const raw = readJsonObject(file);
    const list = Array.isArray(raw.clusters) ? raw.clusters : [];
    // A record that no longer validates (hand edit, older version) is skipped, not fatal.
    return list.flatMap((r) => {
      const parsed = ClusterRecordSchema.safeParse(r);
      return parsed.success ? [parsed.data] : [];
    });
  }
  function writeAll(records: ClusterRecord[]): void {
    const raw = readJsonObject(file);
    writeJsonAtomic(file, { ...raw, version: 1, clusters: records });
  }

  return {
    list: readAll,
    get: (name) => readAll().find((r) => r.cluster.name === name) ?? null,
    save(cluster) {
      const records = readAll();
      const old = records.find((r) => r.cluster.name === cluster.name);
      const hosts = new Set(cluster.hosts.map((h) => h.host));
      // Detections of hosts that are still in the cluster stay; removed hosts drop theirs.
      const record: ClusterRecord = {
        cluster,
        savedAt: new Date().toISOString(),
        detections: (old?.detections ?? []).filter((d) => hosts.has(d.host)),
      };
      writeAll([...records.filter((r) => r.cluster.name !== cluster.name), record]);
      return record;
    },
    remove(name) {
      const records = readAll();
      const kept = records.filter((r) => r.cluster.name !== name);
      if (kept.length === records.length) return false;
      writeAll(kept);
      return true;
    },
    recordDetections(name, detections) {
      const records = readAll();
      const record = records.find((r) => r.cluster.name === name);
      if (!record) throw new Error(`no cluster named '${name}'`);
      const byHost = new Map(record.detections.map((d) => [d.host, d]));
      for (const d of detections) byHost.set(d.host, d);
      record.detections = record.cluster.hosts.flatMap((h) => (byHost.has(h.host) ? [byHost.get(h.host)!] : []));
      writeAll(records);
      return record;
    },
  };
}
