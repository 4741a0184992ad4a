// Schema migrations, applied in order inside one transaction each. Never edit a shipped
// migration: add a new one. `user_version` records how far a database has come.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** A value of the run's stored spec (run_details.spec, a RunSpec) of one of the JSON types given,
 *  else NULL (older specs, other shapes). */
const fromSpec = (path: string, types: string[], doc = 'spec') =>
  `(SELECT CASE WHEN json_valid(d.${doc}) AND json_type(d.${doc}, '${path}') IN (${types.map((t) => `'${t}'`).join(', ')}) THEN json_extract(d.${doc}, '${path}') END FROM run_details d WHERE d.run_id = runs.id)`;

/** Fills the workload columns of runs (those matching `where`) from their stored spec, keeping
 *  values already there. One statement for the migration, new runs and imports alike. */
export function workloadColumnsUpdate(where: string): string {
  return `UPDATE runs SET
      micro_batch = COALESCE(micro_batch, ${fromSpec('$.microBatch', ['integer'])}),
      seq_len = COALESCE(seq_len, ${fromSpec('$.seqLen', ['integer'])}),
      nodes = COALESCE(nodes, ${fromSpec('$.nodes', ['integer'])}),
      world_size = COALESCE(world_size, ${fromSpec('$.gpus', ['integer'])} * COALESCE(${fromSpec('$.nodes', ['integer'])}, 1), ${fromSpec('$.worldSize', ['integer'], 'config')}),
      precision = COALESCE(precision, ${fromSpec('$.precision', ['text'])}),
      config_hash = COALESCE(config_hash, ${fromSpec('$.configHash', ['text'])})
    WHERE ${where}`;
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
  {
    // The run lifecycle (engine): who owns a running row (so start-up recovery can tell a crashed
    // run from one another process is still running), how it ended, where its log is; the large
    // JSON documents in run_details so `runs` stays narrow for listing and comparison; machine
    // snapshots deduplicated by content; and per-step samples.
    version: 2,
    name: 'run lifecycle, details, snapshots, samples',
    sql: `
      ALTER TABLE runs ADD COLUMN owner TEXT;            -- 'host:pid:token' of the process running it
      ALTER TABLE runs ADD COLUMN steps INTEGER;         -- measured steps asked for
      ALTER TABLE runs ADD COLUMN warmup INTEGER;        -- warm-up steps asked for
      ALTER TABLE runs ADD COLUMN snapshot_id TEXT REFERENCES snapshots(id);
      ALTER TABLE runs ADD COLUMN log_path TEXT;
      ALTER TABLE runs ADD COLUMN error_fix TEXT;
      ALTER TABLE runs ADD COLUMN exit_code INTEGER;
      ALTER TABLE runs ADD COLUMN exit_signal TEXT;
      ALTER TABLE runs ADD COLUMN predicted_tflops_per_gpu REAL;
      ALTER TABLE runs ADD COLUMN predicted_step_seconds REAL;
      CREATE INDEX runs_sweep ON runs(sweep_id);

      CREATE TABLE snapshots (
        id TEXT PRIMARY KEY,                             -- sha256 of the machine minus detection time
        machine_id TEXT,
        hostname TEXT NOT NULL,
        captured_at TEXT NOT NULL,
        body TEXT NOT NULL                               -- JSON: contract Machine
      );

      CREATE TABLE run_details (
        run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        spec TEXT,                                       -- JSON: spec.json given to the runner
        hello TEXT,                                      -- JSON: runner hello
        config TEXT,                                     -- JSON: runner config
        result TEXT,                                     -- JSON: runner result
        predicted TEXT                                   -- JSON: tuner prediction
      );

      -- One row per step. WITHOUT ROWID: the (run_id, step) key is the table itself, so rows
      -- stay compact and a run's samples are contiguous on disk (fast at 1,000,000 rows).
      CREATE TABLE samples (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        warmup INTEGER NOT NULL,
        step_seconds REAL NOT NULL,
        tflops_per_gpu REAL,
        tokens_per_second REAL,
        loss REAL,
        gpu_allocated INTEGER,
        gpu_reserved INTEGER,
        gpu_peak INTEGER,
        host_rss INTEGER,
        PRIMARY KEY (run_id, step)
      ) WITHOUT ROWID;
    `,
  },
  {
    // History queries and import/export (issue 6): where an imported run came from (kept here,
    // not in the run row, so an export of an imported run equals the file it came from), and the
    // indexes the Runs filters and repeat grouping use.
    version: 3,
    name: 'run imports, filter indexes',
    sql: `
      CREATE TABLE run_imports (
        run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        file TEXT NOT NULL,                              -- the runs JSON it was imported from
        source_label TEXT,                               -- the file's source.label (datasets: where and when measured)
        imported_at TEXT NOT NULL
      );
      CREATE INDEX runs_machine ON runs(machine_id);
      CREATE INDEX runs_strategy ON runs(strategy);
    `,
  },
  {
    // The RunSpec spine (issue 15): the workload dimensions of a run as columns, from its spec, so
    // lists filter and Compare groups by what was run (the config hash) without parsing JSON.
    version: 4,
    name: 'workload columns',
    sql: `
      ALTER TABLE runs ADD COLUMN micro_batch INTEGER;
      ALTER TABLE runs ADD COLUMN seq_len INTEGER;
      ALTER TABLE runs ADD COLUMN world_size INTEGER;
      ALTER TABLE runs ADD COLUMN nodes INTEGER;
      ALTER TABLE runs ADD COLUMN precision TEXT;
      ALTER TABLE runs ADD COLUMN config_hash TEXT;
      CREATE INDEX runs_config_hash ON runs(config_hash);
      ${workloadColumnsUpdate('1')};
    `,
  },
];
