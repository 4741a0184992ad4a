// Plain words on the Hardware step: the host-memory note speaks of this machine (how large
// a model its memory holds with CPU offload), not of a 70B model nobody has chosen yet.
import { describe, expect, it } from 'vitest';
import { buildMachine } from '../../../electron/services/hardware';
import { loadHost } from './fixture-host';

describe('host memory note', () => {
  for (const host of ['ci-vm-no-gpu', 'h200-sxm-x86']) {
    it(`${host}: names this machine's capacity, no model size nobody chose`, () => {
      const machine = buildMachine(loadHost(host));
      const note = machine.warnings.find((w) => w.id === 'host-ram-70b');
      expect(note, 'the note is shown on a machine too small for the largest preset').toBeDefined();
      expect(note!.message).toMatch(
        /^With CPU offload, training keeps about 18 bytes per model parameter in host memory .*: this machine's [\d.]+ GiB holds a model of up to about [\d.]+ (million|billion) parameters that way\.$/,
      );
      for (const w of machine.warnings) expect(`${w.message} ${w.fix}`).not.toMatch(/\b70 ?B\b/i);
    });
  }
});
