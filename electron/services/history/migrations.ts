// Schema migrations, applied in order inside one transaction each. Never edit a shipped
// migration: add a new one. `user_version` records how far a database has come.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'runs',
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        started_at TEXT,
        finished_at TEXT,
        status TEXT NOT NULL CHECK (status IN ('queued','running','completed','failed','cancelled','interrupted')),
        model TEXT NOT NULL,
        strategy TEXT NOT NULL,
        engine TEXT NOT NULL,
        sweep_id TEXT,
        repeat_index INTEGER NOT NULL DEFAULT 0,
        machine_id TEXT,
        tags TEXT NOT NULL DEFAULT '[]',
        notes TEXT NOT NULL DEFAULT '',
        error_class TEXT,
        error_message TEXT,
        tflops_per_gpu REAL,
        tokens_per_second REAL,
        step_seconds REAL,
        peak_gpu_bytes REAL,
        peak_host_bytes REAL
      );
      CREATE INDEX runs_created ON runs(created_at);
      CREATE INDEX runs_model_strategy ON runs(model, strategy);
      CREATE INDEX runs_status ON runs(status);
    `,
  },
];
