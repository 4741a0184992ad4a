// Slurm targets live in <dataDir>/slurm-targets.json beside clusters.json: { version: 1, targets: SlurmTargetRecord[] }.
import path from 'node:path';
import { SlurmTargetRecordSchema, type SlurmNodeShape, type SlurmTarget, type SlurmTargetRecord } from '../../../contract';
import { readJsonObject, writeJsonAtomic } from '../../settings';

export const SLURM_TARGETS_FILE = 'slurm-targets.json';

export function openSlurmStore(dataDir: string) {
  const file = path.join(dataDir, SLURM_TARGETS_FILE);
  function readAll(): SlurmTargetRecord[] {
    const raw = readJsonObject(file);
    const list = Array.isArray(raw.targets) ? raw.targets : [];
    // A record that no longer validates (hand edit, older version) is skipped, not fatal.
    return list.flatMap((r) => {
      const parsed = SlurmTargetRecordSchema.safeParse(r);
      return parsed.success ? [parsed.data] : [];
    });
  }
  const writeAll = (records: SlurmTargetRecord[]) => writeJsonAtomic(file, { ...readJsonObject(file), version: 1, targets: records });
  return {
    list: readAll,
    get: (name: string) => readAll().find((r) => r.target.name === name) ?? null,
    save(target: SlurmTarget): SlurmTargetRecord {
      const records = readAll();
      const old = records.find((r) => r.target.name === target.name);
      // A detection of the same partition stays valid; another partition's does not.
      const detected = old?.detected && old.detected.partition === target.partition ? old.detected : null;
      const record: SlurmTargetRecord = { target, savedAt: new Date().toISOString(), detected };
      writeAll([...records.filter((r) => r.target.name !== target.name), record]);
      return record;
    },
    remove(name: string): boolean {
      const records = readAll();
      const kept = records.filter((r) => r.target.name !== name);
      if (kept.length === records.length) return false;
      writeAll(kept);
      return true;
    },
    recordDetection(name: string, shape: SlurmNodeShape): void {
      const records = readAll();
      const record = records.find((r) => r.target.name === name);
      if (!record) return;
      record.detected = { ...shape, detectedAt: new Date().toISOString() };
      writeAll(records);
    },
  };
}

export type SlurmStore = ReturnType<typeof openSlurmStore>;
