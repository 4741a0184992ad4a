// The families the runner builds (resources/engine/model-families.json, read by the runner's
// families.py too) against the contract and the presets: nothing the schema lets through is
// refused by the runner for its family, and every preset can run at a sequence it supports.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelFamilySchema } from '../../../electron/contract';
import { refusalOf, runnerFamilies } from '../../../electron/services/engine/families';
import { countParams } from '../../../electron/services/tuner';

const presets = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../resources/presets/models.json'), 'utf8')).models;

describe('runner families', () => {
  it('are exactly the families the spec schema allows', () => {
    expect(Object.keys(runnerFamilies()).sort()).toEqual([...ModelFamilySchema.options].sort());
  });

  it('every preset is buildable at 1024 tokens; GPT-2 is refused past its learned positions', () => {
    for (const m of presets) expect(refusalOf({ model: m, seqLen: 1024 }), m.id).toBeNull();
    const gpt2 = presets.find((m: { id: string }) => m.id === 'gpt2');
    expect(refusalOf({ model: gpt2, seqLen: 2048 })).toMatchObject({
      field: 'seqLen',
      message: expect.stringMatching(/at most 1,024 positions/),
    });
    // The family's default (1024) applies when the spec does not say.
    expect(refusalOf({ model: { ...gpt2, maxPositionEmbeddings: undefined }, seqLen: 1025 })?.field).toBe('seqLen');
    expect(refusalOf({ model: { ...presets[0], family: 'phi3' }, seqLen: 128 })).toMatchObject({
      field: 'model.family',
      message: expect.stringMatching(/'phi3'.*gpt2/),
    });
    expect(refusalOf({ model: { ...presets[0], ropeTheta: 0 }, seqLen: 128 })?.field).toBe('model.ropeTheta');
  });

  it("the tuner's parameter count is the published one for every preset (the runner's families.py is held to the same numbers)", () => {
    for (const m of presets.filter((p: { publishedParams: number | null }) => p.publishedParams))
      expect(countParams(m).total, m.id).toBe(m.publishedParams);
  });
});

describe("presets are of the formula's families", () => {
  it('every preset parses as a PresetModel; one of another architecture does not (it comes in as an imported config.json)', async () => {
    const { PresetModelSchema } = await import('../../../electron/contract');
    for (const m of presets) expect(PresetModelSchema.safeParse(m).success, m.id).toBe(true);
    const gemma = PresetModelSchema.safeParse({ ...presets[0], family: 'gemma' });
    expect(gemma.success).toBe(false);
    expect(JSON.stringify(gemma.error?.issues)).toContain('family');
  });
});
