// What an imported runs file may carry, checked before anything is written: every value of every row
// against the column it goes into, and the numbers of the documents the app copies into columns or
// computes with. A wrong value is refused with its place in the file named.
import path from 'node:path';
import {
  ABSOLUTE_PATH_PATTERN,
  ApiError,
  SLURM_JOB_ID_PATTERN,
  worldSize,
  WORKLOAD_COLUMNS,
  WORKLOAD_OPTION_LIST,
  type RunsFile,
} from '../../contract';
import type { Database } from './database';
import { MAX_STORED_COUNT } from './migrations';

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

/** The job record a run ran as (the file's schema has checked its shape). The report reads the
 *  sbatch script at scriptPath, so an imported record may name only the job.sbatch of its run
 *  folder, never any other file of this machine; the job id is Slurm's form (the app quotes it to
 *  squeue/sacct/scancel). */
function checkJob(job: NonNullable<RunsFile['runs'][number]['job']>, at: string, refuse: Refuse): void {
  if (!SLURM_JOB_ID_PATTERN.test(job.jobId)) refuse(`${at}.job.jobId`, 'must be a Slurm job id (digits, an array task as 123_4)');
  if (!ABSOLUTE_PATH_PATTERN.test(job.runDir) || job.runDir.split('/').includes('..'))
    refuse(`${at}.job.runDir`, 'must be an absolute path without .. or shell characters');
  if (job.scriptPath !== path.posix.join(job.runDir, 'job.sbatch')) refuse(`${at}.job.scriptPath`, 'must be the job.sbatch of its runDir');
  if (job.maxRssBytes !== null) checkNumber(`${at}.job.maxRssBytes`, job.maxRssBytes, BYTES, refuse);
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
export function checkRows(db: Database, content: RunsFile, label: string, field: string): void {
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
    if (record.job) checkJob(record.job, at, refuse);
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
