// Runs JSON round trip on real SQLite stores in temp folders.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHistory, readRunsFile, writeRunsFile } from '../../../electron/services/history';
import { storeWith, tmpDir } from './helpers';

const runs = [
  { id: 'z1', strategy: 'zero3-offload', tflops: 100, predicted: 110, tags: ['seed'] },
  { id: 's1', strategy: 'superoffload', tflops: 150.123456789, predicted: 140 },
  { id: 'f1', strategy: 'superoffload', tflops: 1, repeatIndex: 1, status: 'failed' as const },
];

describe('runs export / import', () => {
  it('round-trips losslessly: export → import into a fresh store → export again is byte-identical', () => {
    const a = storeWith(runs);
    const file = path.join(tmpDir(), 'runs.json');
    const first = a.exportRuns();
    writeRunsFile(file, first);
    expect(first.runs).toHaveLength(3);
    expect(first.runs[0].samples.columns[0]).toBe('step');
    expect(first.runs[0].samples.rows).toHaveLength(5);
    expect(first.runs[0].snapshot?.body).toMatchObject({ hostname: 'h200-a' });
    expect(first.runs[0].run).not.toHaveProperty('owner');

    const b = openHistory(tmpDir());
    const result = b.importRuns(readRunsFile(file), { file });
    // (Runs created in the same millisecond export in id order, so compare as sets.)
    expect({ ...result, imported: [...result.imported].sort() }).toEqual({
      imported: ['f1', 's1', 'z1'],
      skipped: [],
      source: null,
      droppedColumns: [],
    });
    const second = b.exportRuns();
    expect(second.runs).toEqual(first.runs);
    expect(JSON.stringify(second.runs)).toBe(JSON.stringify(first.runs));
    // The imported runs behave like local ones: listed, compared, their samples read back.
    expect(b.listRuns().total).toBe(3);
    expect(b.samples('s1')).toEqual(a.samples('s1'));
    expect(b.compare(['z1', 's1']).headline).toBe(a.compare(['z1', 's1']).headline);
    // Where they came from is recorded beside them.
    expect(b.db.prepare('SELECT file FROM run_imports WHERE run_id = ?').get('z1')).toEqual({ file });
    a.close();
    b.close();
  });

  it('skips runs that already exist (same id) and reports them', () => {
    const a = storeWith(runs.slice(0, 2));
    const content = a.exportRuns(['z1']);
    const again = a.importRuns(content, { file: 'x.json' });
    expect(again).toMatchObject({ imported: [], skipped: [{ id: 'z1', reason: 'already in this history (same id)' }] });
    const doubled = { ...content, runs: [content.runs[0], content.runs[0]] };
    const b = openHistory(tmpDir());
    expect(b.importRuns(doubled, { file: 'x.json' }).skipped).toEqual([
      { id: 'z1', reason: 'appears twice in the file; the first was imported' },
    ]);
    a.close();
    b.close();
  });

  it('exports a chosen subset, and refuses unknown ids', () => {
    const a = storeWith(runs);
    expect(a.exportRuns(['s1']).runs.map((r) => r.run.id)).toEqual(['s1']);
    expect(() => a.exportRuns(['s1', 'missing'])).toThrow(/No stored run with id missing/);
    a.close();
  });

  it('names columns this database lacks instead of failing, and tags sample imports', () => {
    const a = storeWith(runs.slice(0, 1));
    const content = a.exportRuns();
    content.runs[0].run.future_column = 42;
    content.source = { label: 'sample: synthetic test data', machine: 'H200 SXM', measuredAt: '2026-11-28', note: null };
    const b = openHistory(tmpDir());
    const result = b.importRuns(content, { file: 'sample.runs.json', addTags: ['sample'] });
    expect(result.droppedColumns).toEqual(['runs.future_column']);
    expect(b.listRuns({ tag: 'sample' }).runs.map((r) => [r.id, r.tags])).toEqual([['z1', ['seed', 'sample']]]);
    expect(b.db.prepare('SELECT source_label FROM run_imports').get()).toEqual({ source_label: 'sample: synthetic test data' });
    a.close();
    b.close();
  });

  it('rejects files that are not runs files, and rolls back a failing import completely', () => {
    const dir = tmpDir();
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ format: 'something-else' }));
    expect(() => readRunsFile(bad)).toThrow(/not an Offload Studio runs file/);
    fs.writeFileSync(bad, '{ nope');
    expect(() => readRunsFile(bad)).toThrow(/is not JSON/);
    expect(() => readRunsFile(path.join(dir, 'missing.json'))).toThrow(/No file at/);

    const a = storeWith(runs.slice(0, 2));
    const content = a.exportRuns();
    // The second run's samples break a NOT NULL constraint: nothing of the file may stay.
    content.runs[1].samples.rows[0][content.runs[1].samples.columns.indexOf('step_seconds')] = null;
    const b = openHistory(tmpDir());
    expect(() => b.importRuns(content, { file: 'x.json' })).toThrow();
    expect(b.listRuns().total).toBe(0);
    a.close();
    b.close();
  });

  it('writes atomically and names a missing folder', () => {
    const a = storeWith(runs.slice(0, 1));
    expect(() => writeRunsFile('/nonexistent-dir/x/runs.json', a.exportRuns())).toThrow(/does not exist/);
    a.close();
  });
});
