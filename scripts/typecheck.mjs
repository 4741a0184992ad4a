// `npm run typecheck`: every project the root tsconfig.json references, each with its own libs
// (electron/ without DOM, the renderer without Node types, tests with both).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const projects = JSON.parse(fs.readFileSync('tsconfig.json', 'utf8').replace(/^\s*\/\/.*$/gm, '')).references.map((r) => r.path);
let failed = false;
for (const project of projects) {
  const result = spawnSync('npx', ['tsc', '--noEmit', '-p', project], { stdio: 'inherit', shell: false });
  if (result.status !== 0) {
    console.error(`typecheck: ${project} failed`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
