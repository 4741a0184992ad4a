// The import rules of docs/architecture.md are enforced by ESLint (eslint.config.mjs, rule layering/imports
// in scripts/eslint/layering.mjs; `npm run lint`, a stage of `npm test`). Here: the tree is clean,
// and a violation planted in a real file of the tree makes the linter fail.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import tsPlugin from '@typescript-eslint/eslint-plugin';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const eslint = new ESLint({ cwd: root });
// lintText's files are not on disk, so the TypeScript project service cannot type them: the type-aware rules are off there.
const untyped = new ESLint({
  cwd: root,
  overrideConfig: tsPlugin.configs['flat/disable-type-checked'] as ESLint.Options['overrideConfig'],
});
// Only the layering rule's findings (and parse errors, ruleId null): the other rules are `npm run lint`'s.
const layeringOnly = (m: { ruleId: string | null }) => m.ruleId === 'layering/imports' || m.ruleId === null;

async function problems(file: string, text: string): Promise<string[]> {
  const [result] = await untyped.lintText(text, { filePath: path.join(root, file) });
  return result.messages.filter(layeringOnly).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('layering (ESLint)', () => {
  it('the tree has no layering problem', async () => {
    const results = await eslint.lintFiles(['electron', 'renderer/src']);
    const found = results.flatMap((r) =>
      r.messages.filter(layeringOnly).map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.message}`),
    );
    expect(found).toEqual([]);
  }, 120_000);

  it('a violation planted in a file of the tree makes `eslint` exit non-zero', () => {
    const planted = path.join(root, 'electron', 'services', 'reports', `planted-violation-${process.pid}.ts`);
    fs.writeFileSync(planted, "import { startServer } from '../../server';\nexport const x = startServer;\n");
    try {
      const run = spawnSync(path.join(root, 'node_modules', '.bin', 'eslint'), [path.relative(root, planted)], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(run.status).toBe(1);
      expect(run.stdout).toMatch(/layering: services may import .* not server/);
    } finally {
      fs.rmSync(planted, { force: true });
    }
  }, 60_000);

  it.each([
    ['electron/contract/x.ts', "import { createBackend } from '../services/backend';", /contract may import contract; not services/],
    ['electron/kernel/x.ts', "import { history } from '../services/history';", /kernel may import kernel, contract; not services/],
    ['electron/services/reports/x.ts', "import { compareRuns } from '../history/queries';", /only through its index/],
    ['electron/services/reports/x.ts', "import { parseArgv } from '../../cli/main';", /not cli/],
    ['electron/services/engine/x.ts', "import { planWorkload } from '../tuner';", /the engine never plans/],
    ['electron/services/reports/x.ts', "import { planWorkload } from '../tuner';", /reports imports tuner .*never plans/],
    ['electron/cli/x.ts', "import { runServe } from '../server/serve';", /cli may import .* not server/],
    ['electron/main/x.ts', "import { startServer } from '../server';", /main may import .* not server/],
    [
      'renderer/src/x.ts',
      "import { createBackend } from '../../electron/services/backend';",
      /renderer may import renderer, contract; not services/,
    ],
    ['electron/services/history/x.ts', "import { app } from 'electron';", /only electron\/main and electron\/preload import 'electron'/],
    ['electron/services/reports/x.ts', "export { x } from '../../server/serve';", /not server/],
    ['electron/services/reports/x.ts', "const m = await import('../../server');", /not server/],
  ])('%s: %s is refused', async (file, text, message) => {
    expect((await problems(file, text)).join('\n')).toMatch(message);
  });

  it.each([
    ['electron/services/reports/x.ts', "import { repeatStats } from '../history';"],
    ['electron/services/reports/x.ts', "import { writeFileAtomic } from '../../kernel';"],
    ['electron/services/hardware/measure/x.ts', "import { knee } from '../parse/util';"],
    ['electron/cli/x.ts', "import { parseArgv } from '../kernel';"],
    ['renderer/src/x.ts', "import { METRICS } from '../../electron/contract';"],
    ['electron/main/x.ts', "import { app } from 'electron';"],
  ])('%s: %s is allowed', async (file, text) => {
    expect(await problems(file, text)).toEqual([]);
  });
});
