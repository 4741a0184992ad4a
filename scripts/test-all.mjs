// `npm test`: everything, in order, stopping at the first failing stage:
// typecheck → lint (layering) → format (prettier --check) → build → unit (vitest) → engine (pytest, real DeepSpeed on CPU) → e2e (Chromium against serve).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const stages = [
  ['typecheck', 'node', ['scripts/typecheck.mjs']],
  ['lint', 'npx', ['eslint', 'electron', 'renderer/src']],
  ['format', 'npm', ['run', '--silent', 'format:check']],
  ['build', 'node', ['scripts/build.mjs']],
  ['unit', 'npx', ['vitest', 'run']],
  ...(fs.existsSync('scripts/pytest.mjs') ? [['engine', 'node', ['scripts/pytest.mjs']]] : []),
  ['e2e', 'npx', ['vitest', 'run', '--config', 'vitest.e2e.config.ts']],
];

const only = process.argv.slice(2);
const summary = [];
let failed = false;
for (const [name, cmd, args] of stages) {
  if (only.length && !only.includes(name)) continue;
  const started = Date.now();
  console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const result = spawnSync(cmd, args, { stdio: 'inherit', shell: false });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  summary.push(`${name.padEnd(10)} ${result.status === 0 ? 'ok    ' : 'FAILED'} ${seconds}s`);
  if (result.status !== 0) {
    failed = true;
    break;
  }
}
console.log(`\n=== summary\n${summary.join('\n')}`);
process.exit(failed ? 1 : 0);
