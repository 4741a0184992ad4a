// `npm run bench`: runs every bench/ script and prints one table (figure, value, goal, verdict).
// The table's format is stable — it is how progress is tracked: keep columns and ids as they are.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { formatValue, type Figure } from './figure';

const benchDir = path.dirname(new URL(import.meta.url).pathname);
const only = process.argv.slice(2);
const scripts = fs
  .readdirSync(benchDir)
  .filter(
    (f) =>
      /\.(ts|mjs)$/.test(f) &&
      ![
        'run-all.ts',
        'figure.ts',
        'machine-kinds.ts' /* shared by the tuner benches */,
        'sample-runs.ts' /* shared by the tuner benches */,
        'constant-provenance.ts' /* shared by the tuner benches */,
        'tuner-doc.ts' /* writes the tuner benches' figures into docs/tuner-model.md */,
        'history-synthetic.ts' /* a data generator, run by history-bench */,
      ].includes(f) &&
      !f.startsWith('_'),
  )
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const rows: (Figure & { script: string })[] = [];
const failures: string[] = [];
for (const script of scripts) {
  process.stderr.write(`bench: ${script} …\n`);
  const tsx = path.join(benchDir, '..', 'node_modules', '.bin', 'tsx');
  const result = spawnSync(tsx, [path.join(benchDir, script)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 20 * 60_000 });
  const figures = (result.stdout ?? '')
    .split('\n')
    .filter((l) => l.startsWith('BENCH '))
    .map((l) => JSON.parse(l.slice(6)) as Figure);
  if (result.status !== 0)
    failures.push(`${script}: exit ${result.status}${result.stderr ? `\n${result.stderr.split('\n').slice(-5).join('\n')}` : ''}`);
  if (figures.length === 0 && result.status === 0) failures.push(`${script}: printed no BENCH figure`);
  rows.push(...figures.map((f) => ({ ...f, script })));
}

const header = ['figure', 'value', 'unit', 'goal', 'verdict'];
const table = rows.map((r) => [r.id, formatValue(r.value), r.unit, r.goal, r.ok === null ? 'n/a' : r.ok ? 'ok' : 'MISSED']);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const row of table) console.log(line(row));
if (failures.length) {
  console.log(`\n${failures.length} bench script(s) failed:\n${failures.join('\n')}`);
  process.exitCode = 1;
}
