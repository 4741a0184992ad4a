// The runner validates specs against resources/engine/run-spec.schema.json, the JSON Schema export of
// the contract's RunSpecSchema: the committed file must be what the schema exports today.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSpecJsonSchemaText } from '../../../electron/contract';

const FILE = path.resolve(import.meta.dirname, '../../../resources/engine/run-spec.schema.json');

describe('run-spec.schema.json', () => {
  it('is the current export of RunSpecSchema (else: npx tsx scripts/gen-run-spec-schema.ts)', () => {
    expect(
      fs.readFileSync(FILE, 'utf8'),
      'resources/engine/run-spec.schema.json is stale: run npx tsx scripts/gen-run-spec-schema.ts',
    ).toBe(runSpecJsonSchemaText());
  });
});
