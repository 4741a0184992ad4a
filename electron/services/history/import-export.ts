// Runs as a JSON file, so results move between machines. The file holds the stored rows column by
// column (runs, run_details, snapshots, samples), so export → import → export gives the same
// runs whatever columns the schema has grown; a column this database lacks is named, not hidden.
// Import is one transaction: a full disk or a bad file leaves the database as it was.
import fs from 'node:fs';
import path from 'node:path';
import {
  ApiError,
  formatBytes,
  firstIssue,
  RUNS_FILE_FORMAT,
  RUNS_FILE_MAX_BYTES,
  RunsFileSchema,
  type ExportedRun,
  type ImportResult,
  worldSize,
  WORKLOAD_COLUMNS,
  WORKLOAD_OPTION_LIST,
  type RunsFile,
} from '../../contract';
import { writeFileAtomic } from '../../kernel';
import { inTransaction, schemaVersion, type Database } from './database';
import { MAX_STORED_COUNT } from './migrations';
import { fillWorkloadColumns } from './workload-columns';

type Row = Record<string, string | number | null>;

// A running row's owner is a live process lock on the exporting machine: not part of the result.
const RUN_COLUMNS_NOT_EXPORTED = new Set(['owner']);
// The run_details columns are JSON documents (see migration 2).
const parseDoc = (value: unknown): unknown => {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
};
const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

function columns(db: Database, table: string): string[] {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as unknown as { name: string }[]).map((c) => c.name);
}

/** Only finished runs travel: a queued or running row is not a result yet. */
const FINISHED = "status NOT IN ('queued', 'running')";

export function exportRuns(db: Database, ids?: readonly string[], source: RunsFile['source'] = null): RunsFile {
  const unique = ids ? [...new Set(ids)] : null;
  const runRows = (unique
    ? db.prepare(`SELECT * FROM runs WHERE id IN (${placeholders(unique.length)}) ORDER BY created_at, id`).all(...unique)
    : db.prepare(`SELECT * FROM runs WHERE ${FINISHED} ORDER BY created_at, id`).all()) as unknown as Row[];
  if (unique) {
    const missing = unique.filter((id) => !runRows.some((r) => r.id === id));
    if (missing.length) throw new ApiError('not_found', `No stored run with id ${missing.join(', ')}.`, 'ids');
    const busy = runRows.filter((r) => r.status === 'queued' || r.status === 'running');
    if (busy.length) throw new ApiError('busy', `Run ${busy.map((r) => r.id).join(', ')} has not finished; export it when it has.`, 'ids');
  }
  const sampleColumns = columns(db, 'samples').filter((c) => c !== 'run_id');
  const detailStmt = db.prepare('SELECT * FROM run_details WHERE run_id = ?');
  const snapshotStmt = db.prepare('SELECT * FROM snapshots WHERE id = ?');
  const sampleStmt = db.prepare(`SELECT ${sampleColumns.join(', ')} FROM samples WHERE run_id = ? ORDER BY step`);
  sampleStmt.setReturnArrays?.(true);
  const runs: ExportedRun[] = runRows.map((row) => {
    const run: Row = {};
    for (const [k, v] of Object.entries(row)) if (!RUN_COLUMNS_NOT_EXPORTED.has(k)) run[k] = v;
    const detailRow = detailStmt.get(row.id) as unknown as Row | undefined;
    const details = detailRow
      ? Object.fromEntries(
          Object.entries(detailRow)
            .filter(([k]) => k !== 'run_id')
            .map(([k, v]) => [k, parseDoc(v)]),
        )
      : null;
    const snapRow = row.snapshot_id ? (snapshotStmt.get(row.snapshot_id) as unknown as Row | undefined) : undefined;
    const snapshot = snapRow ? ({ ...snapRow, id: String(snapRow.id), body: parseDoc(snapRow.body) } as ExportedRun['snapshot']) : null;
    const raw = sampleStmt.all(row.id) as unknown[];
    const rows = raw.map((r) => (Array.isArray(r) ? (r as (number | null)[]) : sampleColumns.map((c) => (r as Row)[c] as number | null)));
    return { run: run as ExportedRun['run'], details, snapshot, samples: { columns: sampleColumns, rows } };
  });
  return { format: RUNS_FILE_FORMAT, version: 1, schemaVersion: schemaVersion(db), exportedAt: new Date().toISOString(), source, runs };
}

/** Write atomically (temp file + rename), so a full disk never leaves half a file under the name. */
export function writeRunsFile(file: string, content: RunsFile): number {
  const text = JSON.stringify(content, null, 1) + '\n';
  try {
    writeFileAtomic(file, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC') throw new ApiError('disk_full', `The disk holding ${file} is full; nothing was written.`, 'path');
    if (code === 'ENOENT') throw new ApiError('bad_path', `The folder ${path.dirname(file)} does not exist.`, 'path');
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      throw new ApiError('bad_path', `Cannot write ${file} (${code}): choose a folder you can write to.`, 'path');
    throw error;
  }
  return Buffer.byteLength(text);
}

/** The largest runs file import reads (a million samples export to well under this). */
export const MAX_RUNS_FILE_BYTES = RUNS_FILE_MAX_BYTES;

/**
 * Reads a runs file from this machine (the CLI's `import-runs FILE`). Regular files only: a FIFO
 * is opened non-blocking so it cannot hang the process, a device (/dev/zero) is refused before a
 * byte is read, and the size is capped. No error echoes the file's content.
 */
export function readRunsFile(file: string): RunsFile {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ApiError('not_found', `No file at ${file}.`, 'path');
    if (code === 'EACCES' || code === 'EPERM') throw new ApiError('bad_path', `Cannot read ${file}: permission denied.`, 'path');
    throw new ApiError('bad_path', `Cannot read ${file} (${code ?? 'error'}).`, 'path');
  }
  let buffer: Buffer;
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw new ApiError('bad_file', `${file} is a folder; choose a runs file (*.runs.json) inside it.`, 'path');
    if (!stat.isFile())
      throw new ApiError(
        'bad_file',
        `${file} is not a regular file (a device, FIFO or socket); import reads regular runs files (*.runs.json) only.`,
        'path',
      );
    if (stat.size > MAX_RUNS_FILE_BYTES)
      throw new ApiError(
        'too_large',
        `${file} is ${(stat.size / 1048576).toFixed(0)} MiB; a runs file may be at most ${MAX_RUNS_FILE_BYTES / 1048576} MiB. Export fewer runs per file.`,
        'path',
      );
    // Read at most the cap (+1 to notice a file that grew meanwhile).
    buffer = Buffer.alloc(Math.min(stat.size, MAX_RUNS_FILE_BYTES) + 1);
    let length = 0;
    for (;;) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) break;
    }
    if (length > MAX_RUNS_FILE_BYTES)
      throw new ApiError(
        'too_large',
        `${file} is over ${MAX_RUNS_FILE_BYTES / 1048576} MiB; a runs file may be at most that. Export fewer runs per file.`,
        'path',
      );
    buffer = buffer.subarray(0, length);
  } finally {
    fs.closeSync(fd);
  }
  return parseRunsText(buffer.toString('utf8'), file, 'path');
}

/**
 * A runs file's text (from a path the CLI read, or the content a page sent) → a checked RunsFile.
 * `label` names the file in messages; `field` is the request field errors point at. Messages say
 * where the text is wrong (line/column, the JSON path), never what it holds.
 */
export function parseRunsText(text: string, label: string, field = 'content'): RunsFile {
  // The limit in bytes, as a file on disk has it, whichever door the text came by (Buffer.byteLength
  // counts without copying): never parsed past it.
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_RUNS_FILE_BYTES)
    throw new ApiError(
      'too_large',
      `${label} is ${formatBytes(bytes)}; a runs file may be at most ${formatBytes(MAX_RUNS_FILE_BYTES)}. Export fewer runs per file.`,
      field,
    );
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text ("Unexpected token 'r', "root:x:0:0"…"): only the position is kept.
    const position = /position (\d+)/.exec((error as Error).message);
    let where = '';
    if (position) {
      const before = text.slice(0, Number(position[1]));
      const line = before.split('\n').length;
      where = ` (at line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
    }
    throw new ApiError(
      'bad_file',
      `${label} is not JSON${where}; a runs file is what \`npm run cli -- export-runs --out runs.json\` writes.`,
      field,
    );
  }
  const parsed = RunsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    throw new ApiError(
      'bad_file',
      `${label} is not an Offload Studio runs file (${RUNS_FILE_FORMAT} v1): '${issue.path}' ${issue.message}.`,
      field,
    );
  }
  return parsed.data;
}

const toText = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));

export interface ImportOptions {
  /** The file name recorded as where the runs came from. */
  file: string;
  /** Tags added to every imported run (the sample dataset gets 'sample'). */
  addTags?: string[];
  /** The request field a refusal points at ('path' or 'content'). */
  field?: string;
}

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
}

const kindOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'number' && !Number.isFinite(value)
        ? 'a non-finite number'
        : `a ${typeof value}`;

// ---- the numbers an import may carry ----
// Bounded to what the app computes with: a whole number beyond 2^53 cannot be read back at all
// (one such row broke runs/list and export for every client), and figures near 1.7e308 overflow
// the sums and squares of repeat statistics (compare/runs answered bad_response).

/** Seconds, TFLOPS and tokens/s above this are no measurement, and stay far from overflow. */
const FIGURE_MAX = 1e12;

interface NumberRule {
  min: number;
  max: number;
  integer: boolean;
}
const COUNT: NumberRule = { min: 0, max: MAX_STORED_COUNT, integer: true }; // steps, repeat index, batch shape, sample bytes
const BYTES: NumberRule = { min: 0, max: MAX_STORED_COUNT, integer: false }; // peak bytes (REAL columns), sizes in documents
const FIGURE: NumberRule = { min: 0, max: FIGURE_MAX, integer: false }; // seconds, TFLOPS, tokens/s
const SIGNED_FIGURE: NumberRule = { min: -FIGURE_MAX, max: FIGURE_MAX, integer: false }; // loss
const SIGNED_INTEGER: NumberRule = { min: -MAX_STORED_COUNT, max: MAX_STORED_COUNT, integer: true }; // exit code, other INTEGER columns
const SIGNED_REAL: NumberRule = { min: -MAX_STORED_COUNT, max: MAX_STORED_COUNT, integer: false }; // other REAL columns

/** The rule of each numeric column; a column not named here (a later migration's) gets its type's. */
const COLUMN_RULES: Record<string, Record<string, NumberRule>> = {
  runs: {
    repeat_index: COUNT,
    steps: COUNT,
    warmup: COUNT,
    // the workload's counts (contract workload-options.ts `column`)
    ...Object.fromEntries(WORKLOAD_COLUMNS.filter((c) => c.count).map((c) => [c.name, COUNT])),
    exit_code: SIGNED_INTEGER,
    tflops_per_gpu: FIGURE,
    tokens_per_second: FIGURE,
    step_seconds: FIGURE,
    predicted_tflops_per_gpu: FIGURE,
    predicted_step_seconds: FIGURE,
    peak_gpu_bytes: BYTES,
    peak_host_bytes: BYTES,
  },
  samples: {
    step: COUNT,
    warmup: COUNT,
    step_seconds: FIGURE,
    tflops_per_gpu: FIGURE,
    tokens_per_second: FIGURE,
    loss: SIGNED_FIGURE,
    gpu_allocated: COUNT,
    gpu_reserved: COUNT,
    gpu_peak: COUNT,
    host_rss: COUNT,
  },
};

/** The numbers of the JSON documents that the app copies into columns (the workload's counts as the spec
 *  names them, and the runner's world size: workload-columns.ts) or computes with (Compare's capacity and
 *  NVMe figure); `[]` walks an array. */
const DOCUMENT_RULES: [
  where: 'details.spec' | 'details.config' | 'details.result' | 'details.hello' | 'snapshot.body',
  path: string,
  rule: NumberRule,
][] = [
  ...WORKLOAD_OPTION_LIST.filter((o) => o.column && o.kind === 'count').map((o): ['details.spec', string, NumberRule] => [
    'details.spec',
    o.key,
    COUNT,
  ]),
  ['details.config', 'worldSize', COUNT],
  ['details.result', 'peakNvmeBytes', BYTES],
  ['details.hello', 'devices[].memoryBytes', BYTES],
  ['snapshot.body', 'memory.totalBytes', BYTES],
  ['snapshot.body', 'gpus[].memoryBytes', BYTES],
  ['snapshot.body', 'disks[].sizeBytes', BYTES],
];

type Refuse = (where: string, why: string) => never;

/** The one check of an imported number (run columns, document numbers, sample values alike). */
function checkNumber(where: string, value: number, rule: NumberRule, refuse: Refuse): void {
  if (!Number.isFinite(value)) refuse(where, 'must be a finite number (got a non-finite number)');
  if (rule.integer && !Number.isInteger(value)) refuse(where, `must be an integer (got ${value})`);
  if (value > rule.max) refuse(where, `is out of range: ${value} (at most ${rule.max})`);
  if (value < rule.min) refuse(where, `is out of range: ${value} (at least ${rule.min})`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The numbers at `path` of `doc` with their place in the file. Other values are skipped: the
 *  readers take numbers only there (fromSpec, num()), so a string or an object is not a danger. */
function numbersAt(doc: unknown, path: string, where: string): [string, number][] {
  if (path === '') return typeof doc === 'number' ? [[where, doc]] : [];
  const [head, ...rest] = path.split('.');
  const key = head.replace(/\[\]$/, '');
  if (!isObject(doc) || !Object.hasOwn(doc, key)) return [];
  const value = doc[key];
  if (key === head) return numbersAt(value, rest.join('.'), `${where}.${key}`);
  return Array.isArray(value) ? value.flatMap((item, i) => numbersAt(item, rest.join('.'), `${where}.${key}[${i}]`)) : [];
}

function checkDocuments(record: RunsFile['runs'][number], at: string, refuse: Refuse): void {
  const docs = {
    'details.spec': record.details?.spec,
    'details.config': record.details?.config,
    'details.result': record.details?.result,
    'details.hello': record.details?.hello,
    'snapshot.body': record.snapshot?.body,
  };
  for (const [doc, path, rule] of DOCUMENT_RULES)
    for (const [where, value] of numbersAt(docs[doc], path, `${at}.${doc}`)) checkNumber(where, value, rule, refuse);
  // The world size stored is GPUs × nodes: each in range is not enough.
  const spec = docs['details.spec'];
  if (isObject(spec) && typeof spec.gpus === 'number' && typeof spec.nodes === 'number')
    checkNumber(`${at}.details.spec.gpus × nodes`, worldSize({ gpus: spec.gpus, nodes: spec.nodes }), COUNT, refuse);
}

/**
 * Every value of every row against the column it goes into (the declared type and NOT NULL of
 * this database's schema, and the range of its numbers: COLUMN_RULES), the document numbers the
 * app copies or computes with (DOCUMENT_RULES), plus what the readers assume beyond SQLite's
 * types: `tags` is a JSON array of strings, a sample's step is an integer. A wrong value is refused
 * with its place in the file named, before anything is written: a bad row would otherwise break
 * runs/list and compare/runs for every client. Text values are never echoed; a number out of
 * range is (it says what is wrong with it).
 */
function checkRows(db: Database, content: RunsFile, label: string, field: string): void {
  const info = (table: string) =>
    new Map((db.prepare(`PRAGMA table_info(${table})`).all() as unknown as ColumnInfo[]).map((c) => [c.name, c]));
  const tables = { runs: info('runs'), snapshots: info('snapshots'), samples: info('samples') };
  const refuse: Refuse = (where, why) => {
    throw new ApiError('bad_file', `${label}: ${where} ${why}. Nothing was imported; fix or re-export the file.`, field);
  };
  const check = (where: string, table: keyof typeof tables, key: string, value: unknown) => {
    const column = tables[table].get(key);
    if (!column) return; // not a column here: dropped and named in droppedColumns
    if (value === null || value === undefined) {
      if (column.notnull) refuse(where, 'must not be null');
      return;
    }
    const type = column.type.toUpperCase();
    if (type === 'TEXT' && typeof value !== 'string') refuse(where, `must be text (got ${kindOf(value)})`);
    if (type !== 'INTEGER' && type !== 'REAL') return;
    if (typeof value !== 'number') refuse(where, `must be ${type === 'INTEGER' ? 'an integer' : 'a finite number'} (got ${kindOf(value)})`);
    checkNumber(where, value as number, COLUMN_RULES[table]?.[key] ?? (type === 'INTEGER' ? SIGNED_INTEGER : SIGNED_REAL), refuse);
  };
  content.runs.forEach((record, i) => {
    const at = `runs[${i}]`;
    for (const [key, value] of Object.entries(record.run)) check(`${at}.run.${key}`, 'runs', key, value);
    if (typeof record.run.tags === 'string') {
      let tags: unknown;
      try {
        tags = JSON.parse(record.run.tags);
      } catch {
        refuse(`${at}.run.tags`, 'must be a JSON array of strings (it is not JSON)');
      }
      if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string')) refuse(`${at}.run.tags`, 'must be a JSON array of strings');
    }
    if (record.snapshot) {
      for (const [key, value] of Object.entries(record.snapshot))
        if (key !== 'body') check(`${at}.snapshot.${key}`, 'snapshots', key, value);
      if (record.run.snapshot_id != null && record.run.snapshot_id !== record.snapshot.id)
        refuse(`${at}.run.snapshot_id`, `does not match ${at}.snapshot.id`);
    }
    checkDocuments(record, at, refuse);
    const { columns: cols, rows } = record.samples;
    if (new Set(cols).size !== cols.length) refuse(`${at}.samples.columns`, 'names a column twice');
    for (const required of ['step', 'warmup', 'step_seconds'])
      if (tables.samples.has(required) && rows.length && !cols.includes(required)) refuse(`${at}.samples.columns`, `lacks '${required}'`);
    rows.forEach((row, j) => {
      if (row.length !== cols.length) refuse(`${at}.samples.rows[${j}]`, `has ${row.length} values for ${cols.length} columns`);
      row.forEach((value, k) => check(`${at}.samples.rows[${j}] (${cols[k]})`, 'samples', cols[k], value));
    });
  });
}

export function importRuns(db: Database, content: RunsFile, options: ImportOptions): ImportResult {
  checkRows(db, content, options.file, options.field ?? 'content');
  const runCols = new Set(columns(db, 'runs'));
  const detailCols = new Set(columns(db, 'run_details'));
  const snapshotCols = new Set(columns(db, 'snapshots'));
  const sampleCols = new Set(columns(db, 'samples'));
  const dropped = new Set<string>();
  const imported: string[] = [];
  const skipped: ImportResult['skipped'] = [];
  const exists = db.prepare('SELECT 1 FROM runs WHERE id = ?');
  const importedAt = new Date().toISOString();
  const seen = new Set<string>();

  const keep = (table: string, have: Set<string>, row: Record<string, unknown>) =>
    Object.entries(row).filter(([k]) => {
      if (have.has(k)) return true;
      dropped.add(`${table}.${k}`);
      return false;
    });
  const insert = (table: string, entries: [string, unknown][], orIgnore = false) =>
    db
      .prepare(
        `INSERT ${orIgnore ? 'OR IGNORE ' : ''}INTO ${table} (${entries.map(([k]) => k).join(', ')}) VALUES (${placeholders(entries.length)})`,
      )
      .run(...(entries.map(([, v]) => v) as (string | number | null)[]));

  inTransaction(db, () => {
    for (const record of content.runs) {
      const id = record.run.id;
      if (seen.has(id)) {
        skipped.push({ id, reason: 'appears twice in the file; the first was imported' });
        continue;
      }
      seen.add(id);
      if (exists.get(id)) {
        skipped.push({ id, reason: 'already in this history (same id)' });
        continue;
      }
      if (record.run.status === 'queued' || record.run.status === 'running') {
        skipped.push({ id, reason: `was still ${record.run.status} where it was exported` });
        continue;
      }
      // The snapshot first: the run row references it.
      if (record.snapshot)
        insert('snapshots', keep('snapshots', snapshotCols, { ...record.snapshot, body: toText(record.snapshot.body) }), true);
      const run: Record<string, unknown> = { ...record.run };
      // A process lock of the exporting machine means nothing here (it is never exported either).
      for (const column of RUN_COLUMNS_NOT_EXPORTED) delete run[column];
      if (options.addTags?.length) {
        const tags = new Set<string>(typeof run.tags === 'string' ? (JSON.parse(run.tags) as string[]) : []);
        for (const t of options.addTags) tags.add(t);
        run.tags = JSON.stringify([...tags]);
      }
      if (run.snapshot_id && !record.snapshot) run.snapshot_id = null; // the file did not carry it
      insert('runs', keep('runs', runCols, run));
      if (record.details)
        insert('run_details', [
          ['run_id', id],
          ...keep('run_details', detailCols, Object.fromEntries(Object.entries(record.details).map(([k, v]) => [k, toText(v)]))),
        ]);
      const cols = record.samples.columns;
      const usable = cols.map((c) => sampleCols.has(c));
      cols.forEach((c, i) => !usable[i] && dropped.add(`samples.${c}`));
      const kept = cols.filter((_, i) => usable[i]);
      if (record.samples.rows.length && kept.length) {
        const stmt = db.prepare(`INSERT INTO samples (run_id, ${kept.join(', ')}) VALUES (?, ${placeholders(kept.length)})`);
        for (const r of record.samples.rows) stmt.run(id, ...r.filter((_, i) => usable[i]));
      }
      // A file from before the workload columns, or one whose columns say nothing: fill them from the run's documents.
      fillWorkloadColumns(db, id);
      db.prepare('INSERT INTO run_imports (run_id, file, source_label, imported_at) VALUES (?, ?, ?, ?)').run(
        id,
        options.file,
        content.source?.label ?? null,
        importedAt,
      );
      imported.push(id);
    }
  });
  return { imported, skipped, source: content.source, droppedColumns: [...dropped].sort() };
}
