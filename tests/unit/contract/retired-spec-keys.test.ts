// Specs stored before the runner's former model modules were deleted may carry
// `modelImpl`; history, imported sweeps and reproduction bundles must still read them. The contract
// drops the retired key before its strict check (and the JSON Schema the runner validates against no
// longer lists it: resources/engine/spec.py drops it there); any other unknown key is still refused.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RETIRED_SPEC_KEYS, RunSpecSchema, runSpecJsonSchema } from '../../../electron/contract';
import { trainingLaunch } from '../../../electron/services/reports/launch';
import type { ReportRun } from '../../../electron/services/reports/types';

// A spec the app stored for a real H100 run (the former modules' side of the comparison).
const FILE = path.resolve(import.meta.dirname, '../../../resources/samples/h100-model-impl/specs-legacy/r-20261205-071814-04ca1e-1.json');
const stored = JSON.parse(fs.readFileSync(FILE, 'utf8')) as Record<string, unknown>;

describe('retired RunSpec keys', () => {
  it('a stored spec carrying modelImpl still parses, without the key', () => {
    for (const impl of ['legacy', 'transformers']) {
      const parsed = RunSpecSchema.safeParse({ ...stored, modelImpl: impl });
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      expect(parsed.data).not.toHaveProperty('modelImpl');
      expect(parsed.data?.configHash).toBe(stored.configHash);
    }
  });

  it('other unknown keys are still refused by name', () => {
    const parsed = RunSpecSchema.safeParse({ ...stored, modelImplementation: 'legacy' });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('modelImplementation');
  });

  it("the runner's JSON Schema does not list a retired key", () => {
    const props = (runSpecJsonSchema() as { properties: Record<string, unknown> }).properties;
    for (const k of RETIRED_SPEC_KEYS) expect(props).not.toHaveProperty(k);
    expect(props).toHaveProperty('configHash');
  });

  it('a report of a run stored with modelImpl still gets its launch lines', () => {
    const run = { spec: { ...stored, modelImpl: 'legacy' } } as unknown as ReportRun;
    const launch = trainingLaunch(run);
    expect(launch).not.toBeNull();
    expect(launch?.files.launch.length).toBeGreaterThan(0);
  });
});
