// Writes resources/engine/run-spec.schema.json from the contract's RunSpecSchema (zod → JSON Schema),
// the file the Python runner validates specs against. Run after changing electron/contract/run-spec.ts:
//   npx tsx scripts/gen-run-spec-schema.ts
import fs from 'node:fs';
import path from 'node:path';
import { runSpecJsonSchemaText } from '../electron/contract/run-spec';

const file = path.resolve(import.meta.dirname, '..', 'resources', 'engine', 'run-spec.schema.json');
fs.writeFileSync(file, runSpecJsonSchemaText());
console.log(`wrote ${path.relative(process.cwd(), file)}`);
