// Writes one runs file of every committed sample run except those of one workload (model × sequence
// length): the history a held-out `tune` or plan is given, so its figures on that workload are test
// figures. Import it with `import-runs` into a fresh data folder.
//
//   npx tsx scripts/holdout-runs.ts MODEL SEQ OUT.runs.json
import fs from 'node:fs';
import path from 'node:path';

const [model, seq, out] = process.argv.slice(2);
if (!model || !seq || !out) throw new Error('usage: npx tsx scripts/holdout-runs.ts MODEL SEQ OUT.runs.json');
const dir = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'resources', 'samples');
type Entry = { run: { model: string | null; seq_len?: number | null }; details: { spec?: { seqLen?: number } } };
const kept: Entry[] = [];
let held = 0;
let head: Record<string, unknown> | null = null;
for (const file of fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.runs.json'))
  .sort()) {
  const data = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { runs: Entry[] } & Record<string, unknown>;
  head ??= data;
  for (const e of data.runs) {
    const s = e.run.seq_len ?? e.details.spec?.seqLen;
    if (e.run.model === model && String(s) === seq) held++;
    else kept.push(e);
  }
}
fs.writeFileSync(
  out,
  JSON.stringify({
    ...head,
    source: { label: `sample runs without ${model} seq ${seq} (held out)`, machine: null, measuredAt: null, note: null },
    runs: kept,
  }),
);
console.log(`${out}: ${kept.length} runs kept, ${held} of ${model} seq ${seq} held out`);
