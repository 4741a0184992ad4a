// A measurement beside this machine's earlier ones: on a busy machine three measurements in 15
// minutes gave CPU Adam 1.32 → 0.39 → 1.13 G params/s and triad 32.6 → 8.8 → 25.3 GB/s, and plans
// took the newest without a word. This keeps the spread of each figure and flags the newest where it
// is far from the median of the others: the plans then use the newest that is not flagged, unless the
// user picks it (choice.ts).
import { median } from '../../../contract';
import type { MeasureKind, Measurement, MeasurementSpread } from '../../../contract';

/** Off by more than this share of the earlier measurements' median: flagged. */
export const DISAGREE_FRACTION = 0.3;

const FIGURES: {
  figure: MeasurementSpread['figure'];
  kind: MeasureKind;
  unit: string;
  scale: number;
  of(m: Measurement): number | null;
}[] = [
  {
    figure: 'CPU Adam',
    kind: 'cpuAdam',
    unit: 'G params/s',
    scale: 1e9,
    of: (m) => (m.cpuAdam.length ? Math.max(...m.cpuAdam.map((p) => p.paramsPerSecond)) : null),
  },
  {
    figure: 'memory bandwidth (triad)',
    kind: 'memoryBandwidth',
    unit: 'GB/s',
    scale: 1e9,
    of: (m) => m.memoryBandwidthBytesPerSecond || null,
  },
];

/** Each figure of `latest` beside the same machine's earlier measurements (newest first in `history`, `latest` among them or not). */
export function measurementSpread(latest: Measurement, history: readonly Measurement[]): MeasurementSpread[] {
  const earlier = history.filter(
    (m) => m.measuredAt !== latest.measuredAt && (m.machineId ?? null) === (latest.machineId ?? null) && !m.carried,
  );
  const out: MeasurementSpread[] = [];
  for (const f of FIGURES) {
    // a figure carried from an earlier measurement (`measure --only` another kind) is that one's, not new
    if (latest.carried?.[f.kind]) continue;
    const value = f.of(latest);
    const others = earlier.map(f.of).filter((v): v is number => v !== null);
    if (value === null || others.length === 0) continue;
    // the median of all of them, this one included: one outlier among few does not move it (against the
    // others' alone, two earlier measurements of which one was busy would flag a good newest one)
    const mid = median([value, ...others])!;
    const off = value / mid - 1;
    const disagrees = others.length >= 2 && Math.abs(off) > DISAGREE_FRACTION;
    const g = (v: number) => (v / f.scale).toFixed(2);
    out.push({
      figure: f.figure,
      latest: value,
      earlier: others,
      disagrees,
      off,
      words: `${f.figure} ${g(value)} ${f.unit}; this machine's ${others.length} earlier measurement(s): ${g(Math.min(...others))}–${g(Math.max(...others))} ${f.unit}; median of all ${others.length + 1}: ${g(mid)}${
        disagrees
          ? ` — ${Math.round(Math.abs(off) * 100)}% ${off < 0 ? 'below' : 'above'} it: the machine may have been busy: plans use the newest measurement that is not flagged, unless you pick this one (Hardware page, or measure --use)`
          : ''
      }`,
    });
  }
  return out;
}
