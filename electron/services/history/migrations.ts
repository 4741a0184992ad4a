// Schema migrations, applied in order inside one transaction each. Never edit a shipped
// migration: add a new one. `user_version` records how far a database has come.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The largest whole number JavaScript reads back exactly (2^53 − 1). SQLite stores larger
 *  INTEGERs, but the binding then throws on every read of that row ("Value is too large to be
 *  represented as a JavaScript number"): one such row broke runs/list and export for everyone. */
export const MAX_STORED_COUNT = Number.MAX_SAFE_INTEGER;

/** `expr` when it is a whole number from 0 to MAX_STORED_COUNT, else NULL: a count (batch, length,
 *  GPUs) beyond that, negative or stored as a float (2^63 − 1 is) is no workload a reader can use. */
const safeCount = (expr: string) =>
  `(SELECT v FROM (SELECT ${expr} AS v) WHERE typeof(v) = 'integer' AND v BETWEEN 0 AND ${MAX_STORED_COUNT})`;

/** A value of the run's stored spec (run_details.spec, a RunSpec) of one of the JSON types given,
 *  else NULL (older specs, other shapes). */
const fromSpec = (path: string, types: string[], doc = 'spec') =>
  `(SELECT CASE WHEN json_valid(d.${doc}) AND json_type(d.${doc}, '${path}') IN (${types.map((t) => `'${t}'`).join(', ')}) THEN json_extract(d.${doc}, '${path}') END FROM run_details d WHERE d.run_id = runs.id)`;
/** A count of the stored spec, or NULL when it is none a reader could use (see safeCount). */
const countFromSpec = (path: string, doc = 'spec') => safeCount(fromSpec(path, ['integer'], doc));

/** Fills the workload columns of runs (those matching `where`) from their stored spec, keeping
 *  values already there: the backfill of rows stored before the columns (migrations 3 and 4; a shipped
 *  migration's SQL stays as it ran). New runs and imports fill them in TypeScript from the one reading
 *  of a stored run (workload-columns.ts), in the same order: the spec's GPUs × nodes, then the
 *  config line's world size. Counts out
 *  of range (and a GPUs × nodes product that is) stay NULL: imports refuse them, and this keeps a
 *  spec from any other source from storing one. (Migration 4 runs this too: the bound changes it
 *  only where it stored a value no read of the row survives.) */
export function workloadColumnsUpdate(where: string): string {
  return `UPDATE runs SET
      micro_batch = COALESCE(micro_batch, ${countFromSpec('$.microBatch')}),
      seq_len = COALESCE(seq_len, ${countFromSpec('$.seqLen')}),
      nodes = COALESCE(nodes, ${countFromSpec('$.nodes')}),
      world_size = COALESCE(world_size, ${safeCount(`${countFromSpec('$.gpus')} * COALESCE(${countFromSpec('$.nodes')}, 1)`)}, ${countFromSpec('$.worldSize', 'config')}),
      precision = COALESCE(precision, ${fromSpec('$.precision', ['text'])}),
      config_hash = COALESCE(config_hash, ${fromSpec('$.configHash', ['text'])})
    WHERE ${where}`;
}

/** The workload columns: filled from specs, so the ones a spec could put out of range. */
const WORKLOAD_COUNTS = ['micro_batch', 'seq_len', 'world_size', 'nodes'];

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
    // History queries and import/export: where an imported run came from (kept here,
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
    // The RunSpec spine: the workload dimensions of a run as columns, from its spec, so
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
  {
    // Hostile data: before imports bounded spec numbers, a runs file whose spec said
    // seqLen 2^53 stored a count no read of its row survives (runs/list, export failed for every
    // client), and 2^63 − 1 a float. Such values are cleared, then refilled from what is usable.
    version: 5,
    name: 'workload counts a reader can use',
    sql: `
      UPDATE runs SET ${WORKLOAD_COUNTS.map((c) => `${c} = ${safeCount(c)}`).join(', ')}
        WHERE ${WORKLOAD_COUNTS.map((c) => `${c} IS NOT ${safeCount(c)}`).join(' OR ')};
      ${workloadColumnsUpdate('1')};
    `,
  },
  {
    // The resource view: what the machine did during a run, one JSON document per run
    // (contract ResourceRecord: samples already bounded by the monitor's ring, step marks, which
    // lanes could not be measured and why). A document rather than a row per sample: it is always
    // read whole, beside the run, and a 10-hour run's is as large as a 10-minute one's.
    // IF NOT EXISTS: a database whose user_version was rewound (repair of an older row) replays it.
    version: 6,
    name: 'resource samples',
    sql: `
      CREATE TABLE IF NOT EXISTS resource_samples (
        run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        body TEXT NOT NULL                               -- JSON: contract ResourceRecord
      );
    `,
  },
  {
    // A run that ran as a scheduler's job (Slurm): the job id, its nodes, its last known state.
    // A table of its own: most runs have none, and a restart asks the scheduler about exactly these.
    version: 7,
    name: 'scheduler jobs',
    sql: `
      CREATE TABLE IF NOT EXISTS run_jobs (
        run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        body TEXT NOT NULL                               -- JSON: contract SlurmJobRecord
      );
    `,
  },
];
