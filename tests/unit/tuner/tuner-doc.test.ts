// docs/tuner-model.md's figures are the benches' own (issue 46: no hand-copied numbers): the generated block
// must be what bench/tuner-doc.ts makes from the tuner benches now. After a change that moves a figure, run
// `npx tsx bench/tuner-doc.ts` and commit the doc with it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..', '..');

it("docs/tuner-model.md's generated figures match what the tuner benches print", () => {
  const r = spawnSync(path.join(root, 'node_modules', '.bin', 'tsx'), [path.join(root, 'bench', 'tuner-doc.ts'), '--check'], {
    encoding: 'utf8',
  });
  expect(r.stderr + r.stdout).toContain('generated figures match the benches');
  expect(r.status).toBe(0);
}, 180_000);
