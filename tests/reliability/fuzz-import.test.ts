// Fuzzing every importable numeric field of a runs file (every numeric column of runs
// and samples, read from the schema itself, and the document numbers the app copies or computes
// with) with integers beyond 2^53, 2^63 − 1, 1.7e308, negative numbers and NaN-like strings,
// written into the file's text exactly as a hostile file carries them. Through the real backend
// (runs/import with content, as a page sends it), so every answer is checked against the contract.
// Each file is either refused (bad_file, the field named, nothing stored) or imported, and then
// runs/list, runs/get, runs/export and compare/runs still answer. Seeded: RELIABILITY_SEED reproduces.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend, type Backend } from '../../electron/services/backend';
import { openHistory } from '../../electron/services/history';
import { rowCounts, seededRandom, tmpDir } from './helpers';

/** Hostile values as JSON text. `must`: refused wherever it goes (beyond ±(2^53 − 1), or not finite). */
const HOSTILE: { text: string; must: boolean }[] = [
  { text: '9007199254740992', must: true }, // 2^53
  { text: '9007199254740993', must: true },
  { text: '9223372036854775807', must: true }, // 2^63 − 1
  { text: '18446744073709551615', must: true }, // 2^64 − 1
  { text: '1.7e308', must: true },
  { text: '-1.7e308', must: true },
  { text: '1e309', must: true }, // parses to Infinity
  { text: '-9007199254740992', must: true },
  { text: '-1', must: false }, // an exit code or a loss may be negative
  { text: '"NaN"', must: false }, // in a document, a string is skipped by the readers
  { text: '"Infinity"', must: false },
  { text: '"-Infinity"', must: false },
  { text: '"1e400"', must: false },
  { text: '"9007199254740993"', must: false },
];

/** The document numbers: where a hostile file can put them, as the refusal names them. */
const DOCUMENT_PLACES = [
  'details.spec.seqLen',
  'details.spec.microBatch',
  'details.spec.nodes',
  'details.spec.gpus',
  'details.config.worldSize',
  'details.result.peakNvmeBytes',
  'details.hello.devices[0].memoryBytes',
  'snapshot.body.memory.totalBytes',
  'snapshot.body.gpus[0].memoryBytes',
  'snapshot.body.disks[0].sizeBytes',
];

type Place = { kind: 'run' | 'sample' | 'document'; name: string };
type Json = Record<string, unknown>;

/** Numeric columns of a table, from the schema a fresh history has. */
function numericColumns(table: string): string[] {
  const store = openHistory(tmpDir('os-fuzz-import-schema-'));
  try {
    const cols = store.db.prepare(`PRAGMA table_info(${table})`).all() as unknown as { name: string; type: string }[];
    return cols.filter((c) => /^(INTEGER|REAL)$/i.test(c.type)).map((c) => c.name);
  } finally {
    store.close();
  }
}

/** Put where the i-th hostile value goes; in the file's text ("@@fuzz-i@@") it is replaced by the value. */
const marker = (i: number) => `@@fuzz-${i}@@`;

/** A complete, valid runs file of two runs (every numeric column and document number set). */
function template(runColumns: string[], sampleColumns: string[], id: string): Json {
  const run = (rid: string, strategy: string, tflops: number): Json => {
    const row: Json = {
      id: rid,
      created_at: '2026-12-01T00:00:00.000Z',
      status: 'completed',
      model: 'tiny-llama',
      strategy,
      engine: 'deepspeed',
      tags: '[]',
      notes: '',
      sweep_id: 'sw',
      machine_id: 'm-fuzz',
      snapshot_id: 'snap-fuzz',
      precision: 'bf16',
      config_hash: null,
    };
    for (const c of runColumns)
      row[c] = c === 'exit_code' || c === 'repeat_index' ? 0 : c.startsWith('peak') ? 2 ** 30 : c === 'tflops_per_gpu' ? tflops : 3;
    const samples = [1, 2, 3].map((step) =>
      sampleColumns.map((c) =>
        c === 'step' ? step : c === 'warmup' ? Number(step === 1) : c.startsWith('gpu') || c === 'host_rss' ? 2 ** 30 : 0.5,
      ),
    );
    return {
      run: row,
      details: {
        spec: { runId: rid, seqLen: 1024, microBatch: 1, nodes: 1, gpus: 1 },
        config: { worldSize: 1 },
        result: { peakNvmeBytes: 0 },
        hello: { devices: [{ memoryBytes: 2 ** 34 }] },
        predicted: null,
      },
      snapshot: {
        id: 'snap-fuzz',
        machine_id: 'm-fuzz',
        hostname: 'fuzz',
        captured_at: '2026-12-01T00:00:00.000Z',
        body: { memory: { totalBytes: 2 ** 36 }, gpus: [{ memoryBytes: 2 ** 34 }], disks: [{ isNvme: true, sizeBytes: 2 ** 40 }] },
      },
      samples: { columns: sampleColumns, rows: samples },
    };
  };
  return {
    format: 'offload-studio/runs',
    version: 1,
    schemaVersion: 5,
    exportedAt: '2026-12-01T00:00:00.000Z',
    source: null,
    runs: [run(`${id}-a`, 'zero3-offload', 2), run(`${id}-b`, 'superoffload', 3)],
  };
}

/** Puts `token` at `place` of the first run; the text then gets the hostile value in its stead. */
function mark(file: Json, place: Place, token: string, sampleColumns: string[]): void {
  const first = (file.runs as Json[])[0];
  if (place.kind === 'run') (first.run as Json)[place.name] = token;
  else if (place.kind === 'sample') (first.samples as { rows: unknown[][] }).rows[1][sampleColumns.indexOf(place.name)] = token;
  else {
    const keys = place.name.replace(/\[(\d+)\]/g, '.$1').split('.');
    let at: Json = first;
    for (const k of keys.slice(0, -1)) at = at[k] as Json;
    at[keys.at(-1)!] = token;
  }
}

/** How a refusal names the place: checkRows' words, or the schema's JSON path (a value JSON.parse
 *  made Infinity, a string where the schema wants a number, is refused by the schema first). */
function named(place: Place, sampleColumns: string[]): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const words =
    place.kind === 'run'
      ? `runs[0].run.${place.name}`
      : place.kind === 'sample'
        ? `runs[0].samples.rows[1] (${place.name})`
        : `runs[0].${place.name}`;
  const schemaPath =
    place.kind === 'run'
      ? `runs.0.run.${place.name}`
      : place.kind === 'sample'
        ? `runs.0.samples.rows.1.${sampleColumns.indexOf(place.name)}`
        : `runs.0.${place.name}`;
  return new RegExp(`${esc(`${words} `)}|${esc(`'${schemaPath}'`)}`);
}

describe('fuzz: hostile numbers in every importable numeric field', () => {
  let backend: Backend;
  let dataDir: string;
  let runColumns: string[];
  let sampleColumns: string[];
  let places: Place[];
  let n = 0;
  beforeAll(() => {
    dataDir = tmpDir('os-fuzz-import-');
    backend = createBackend({ dataDir, transport: 'cli' });
    runColumns = numericColumns('runs');
    sampleColumns = numericColumns('samples');
    places = [
      ...runColumns.map((name) => ({ kind: 'run' as const, name })),
      ...sampleColumns.map((name) => ({ kind: 'sample' as const, name })),
      ...DOCUMENT_PLACES.map((name) => ({ kind: 'document' as const, name })),
    ];
  });
  afterAll(async () => backend?.close());

  /** Imports a file with `values` at `at`: refused (the first forced place named, nothing stored) or imported (history still answers). */
  async function attempt(at: Place[], values: (typeof HOSTILE)[number][], context: string): Promise<'refused' | 'imported'> {
    const id = `fz${n++}`;
    const file = template(runColumns, sampleColumns, id);
    at.forEach((p, i) => mark(file, p, marker(i), sampleColumns));
    let text = JSON.stringify(file);
    values.forEach((v, i) => {
      expect(text, context).toContain(JSON.stringify(marker(i)));
      text = text.replace(JSON.stringify(marker(i)), v.text);
    });
    const forced = at.some((p, i) => values[i].must || (p.kind !== 'document' && values[i].text.startsWith('"')));
    const before = rowCounts(dataDir);
    const result = await backend.invoke('runs/import', { content: text, name: 'fuzz.runs.json' }).then(
      () => null,
      (e: unknown) => e as { code: string; message: string; field: string },
    );
    if (result) {
      expect(result, context).toMatchObject({ code: 'bad_file', field: 'content' });
      expect(result.message, context).toMatch(/^fuzz\.runs\.json: |^fuzz\.runs\.json is not an Offload Studio runs file/);
      if (at.length === 1) expect(result.message, context).toMatch(named(at[0], sampleColumns));
      expect(rowCounts(dataDir), context).toEqual(before);
      return 'refused';
    }
    expect(forced, `${context}: imported, but must be refused`).toBe(false);
    const ids = [`${id}-a`, `${id}-b`];
    const { runs } = await backend.invoke('runs/list', {});
    for (const r of runs)
      for (const v of [r.seqLen, r.microBatch, r.worldSize, r.nodes, r.tflopsPerGpu, r.stepSeconds])
        if (v != null) expect(Math.abs(v), context).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
    for (const runId of ids) await backend.invoke('runs/get', { id: runId, logLines: 0 });
    await backend.invoke('compare/runs', { ids });
    await backend.invoke('runs/export', { path: path.join(tmpDir('os-fuzz-import-out-'), 'all.runs.json') });
    await backend.invoke('runs/delete', { ids });
    return 'imported';
  }

  it("the template itself imports (so every refusal below is the hostile value's)", async () => {
    expect(await attempt([], [], 'template')).toBe('imported');
  });

  it('each field × each hostile value: refused naming the field, or imported harmlessly', { timeout: 30_000 }, async () => {
    const started = Date.now();
    const tally = { refused: 0, imported: 0 };
    for (const place of places)
      for (const value of HOSTILE) tally[await attempt([place], [value], `${place.kind} ${place.name} = ${value.text}`)]++;
    console.log(
      `[fuzz-import] ${places.length} fields × ${HOSTILE.length} values: ${tally.refused} refused, ${tally.imported} imported harmlessly, ${Date.now() - started} ms`,
    );
    expect(places.length).toBeGreaterThanOrEqual(35); // 20+ run columns, 10 sample columns, 10 document numbers
    expect(tally.refused).toBeGreaterThan(places.length * 8);
  });

  it('random combinations of fields and values (seeded)', { timeout: 30_000 }, async () => {
    const rng = seededRandom('fuzz-import');
    for (let i = 0; i < 150; i++) {
      const at = [...new Set(Array.from({ length: 1 + rng.int(4) }, () => rng.pick(places)))];
      const values = at.map(() => rng.pick(HOSTILE));
      await attempt(at, values, `seed ${rng.seed}: ${at.map((p, k) => `${p.name} = ${values[k].text}`).join(', ')}`);
    }
    // Whatever came and went, the history answers every client.
    expect((await backend.invoke('runs/list', {})).runs).toEqual([]);
  });
});
