// `plan --ds-config`: whose machine the plan is for, in `plan`'s words.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { printUserConfigPlan } from '../../../electron/cli/commands/user-config';
import { planUserConfig } from '../../../electron/services/tuner';
import { h200Machine, h200Measurements } from '../tuner/h200-machine';

const text = fs.readFileSync(path.resolve(__dirname, '../../fixtures/ds-configs/deepspeed-guide-superoffload.json'), 'utf8');
const printed = (machineSource: 'detected' | 'file') => {
  const r = planUserConfig(
    { config: { fileName: 'ds_config.json', text }, workload: { model: 'llama-3.2-3b', seqLen: 4096, gpus: 1 } },
    { machine: h200Machine(), machineSource, measurements: h200Measurements() },
  );
  const lines: string[] = [];
  printUserConfigPlan(r, (s) => lines.push(s));
  return lines[0];
};

describe('plan --ds-config: the machine line', () => {
  it('calls this machine "(this machine)" as plan does, not "(detected)"', () => {
    expect(printed('detected')).toMatch(/^ds_config\.json \(sha256 [0-9a-f]{12}…\) on .+ \(this machine\)$/);
    expect(printed('detected')).not.toMatch(/\(detected\)/);
  });
  it("says a loaded machine file's plan does not run here, as plan does", () => {
    expect(printed('file')).toMatch(/\(a loaded file, not this machine: its plan does not run here\)$/);
  });
});
