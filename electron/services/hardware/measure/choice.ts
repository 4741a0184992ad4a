// Which of a machine's measurements its plans use. On a busy machine one measurement can be far off
// (CPU Adam 1.32 → 0.39 → 1.13 G params/s in 15 minutes), and taking the newest without a word let
// that one measurement set every plan. The rule: the measurement the user picked (Hardware page, or
// `measure --use`); without a pick, the newest that no figure flags as far from the machine's others
// (spread.ts); where every one is flagged, the newest. A newer measurement passed over is named.
import { formatDateTime, type Measurement, type MeasurementChoice } from '../../../contract';
import { measurementSpread } from './spread';
import { machineMeasurements, pickedMeasurement } from './store';

export interface UsedMeasurement {
  /** The measurement plans use; null when the machine has none stored. */
  used: Measurement | null;
  /** Why that one, as a clause for the plan's host-figures note: "picked", "the newest", … */
  reason: string;
  choice: MeasurementChoice;
}

const best = (m: Measurement) => (m.cpuAdam.length ? Math.max(...m.cpuAdam.map((p) => p.paramsPerSecond)) : null);

/** The figures of `m` far from the machine's other measurements, each in a few words ("CPU Adam 70% below the median"). */
function flagsOf(m: Measurement, all: readonly Measurement[]): string[] {
  return measurementSpread(m, all)
    .filter((s) => s.disagrees && s.off !== undefined)
    .map((s) => `${s.figure} ${Math.round(Math.abs(s.off!) * 100)}% ${s.off! < 0 ? 'below' : 'above'} the median`);
}

export function usedMeasurement(dataDir: string, machineId: string, isThisHost = false): UsedMeasurement {
  const all = machineMeasurements(dataDir, machineId, isThisHost);
  const flags = all.map((m) => flagsOf(m, all));
  const picked = pickedMeasurement(dataDir, machineId);
  const measurements = all.map((m, i) => ({
    measuredAt: m.measuredAt,
    durationMs: m.durationMs,
    cpuAdamParamsPerSecond: best(m),
    memoryBandwidthBytesPerSecond: m.memoryBandwidthBytesPerSecond,
    flagged: flags[i],
  }));
  const answer = (used: Measurement | null, reason: string, words: string): UsedMeasurement => ({
    used,
    reason,
    choice: { machineId, picked, usedAt: used?.measuredAt ?? null, words, measurements },
  });
  if (all.length === 0) return answer(null, '', 'No measurements of this machine are stored: measure it (Hardware page, or measure).');
  const when = (m: Measurement) => formatDateTime(m.measuredAt);
  const chosen = picked ? all.find((m) => m.measuredAt === picked) : undefined;
  if (chosen) {
    const flagged = flags[all.indexOf(chosen)];
    return answer(
      chosen,
      'the one picked',
      `Plans use the measurement of ${when(chosen)}, picked${flagged.length ? ` although it is flagged (${flagged.join('; ')})` : ''}. Back to the newest that agrees with the others: Automatic (Hardware page), or measure --use auto.`,
    );
  }
  const gone = picked ? `The measurement picked (${formatDateTime(picked)}) is no longer stored. ` : '';
  const index = flags.findIndex((f) => f.length === 0);
  if (index <= 0) {
    const all3 = index < 0 && all.length > 1 ? ' (each is far from the others: measure again when the machine is quiet)' : '';
    return answer(all[0], all.length > 1 ? 'the newest' : '', `${gone}Plans use the newest measurement, of ${when(all[0])}${all3}.`);
  }
  const passed = all.slice(0, index).map((m, i) => `${when(m)}: ${flags[i].join('; ')}`);
  return answer(
    all[index],
    `the newest that agrees with its others; newer, flagged: ${passed.join(', ')}`,
    `${gone}Plans use the measurement of ${when(all[index])}, the newest that agrees with this machine's others. Passed over as far from them (the machine may have been busy): ${passed.join('; ')}. Pick one to use it anyway.`,
  );
}
