// A bounded record of samples for runs of any length: when it is full, neighbouring samples are
// merged pairwise (the resolution halves) and from then on every `stride` incoming samples become
// one. A 10-hour run keeps as many points as a 10-minute one, spread over its whole length,
// instead of its first minutes or its last.
import type { GpuReading, ResourceSample } from '../../contract';

const mean = (xs: (number | null)[]): number | null => {
  const v = xs.filter((x): x is number => x !== null && Number.isFinite(x));
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
};
const max = (xs: (number | null)[]): number | null => {
  const v = xs.filter((x): x is number => x !== null && Number.isFinite(x));
  return v.length ? Math.max(...v) : null;
};

/** One sample standing for several: rates and shares averaged, memory the highest (a peak is what fits or not). */
export function mergeSamples(group: ResourceSample[]): ResourceSample {
  if (group.length === 1) return group[0];
  const indexes = [...new Set(group.flatMap((s) => s.gpus.map((g) => g.index)))].sort((a, b) => a - b);
  const gpus: GpuReading[] = indexes.map((index) => {
    const rs = group.map((s) => s.gpus.find((g) => g.index === index)).filter((g): g is GpuReading => !!g);
    return {
      index,
      utilPct: mean(rs.map((g) => g.utilPct)),
      memUsedMiB: max(rs.map((g) => g.memUsedMiB)),
      powerW: mean(rs.map((g) => g.powerW)),
      smClockMHz: mean(rs.map((g) => g.smClockMHz)),
      pcieRxMBps: mean(rs.map((g) => g.pcieRxMBps)),
      pcieTxMBps: mean(rs.map((g) => g.pcieTxMBps)),
    };
  });
  const cores = Math.max(...group.map((s) => s.cpuBusyPct.length));
  const withCores = group.filter((s) => s.cpuBusyPct.length === cores);
  return {
    t: group[0].t,
    gpus,
    cpuBusyPct: Array.from({ length: cores }, (_, i) => Math.round(mean(withCores.map((s) => s.cpuBusyPct[i])) ?? 0)),
    memUsedBytes: max(group.map((s) => s.memUsedBytes)),
    memTotalBytes: max(group.map((s) => s.memTotalBytes)),
    swapUsedBytes: max(group.map((s) => s.swapUsedBytes)),
    diskReadBps: mean(group.map((s) => s.diskReadBps)),
    diskWriteBps: mean(group.map((s) => s.diskWriteBps)),
    merged: group.reduce((n, s) => n + (s.merged ?? 1), 0),
  };
}

export class SampleRing {
  private samples: ResourceSample[] = [];
  private pending: ResourceSample[] = [];
  private stride = 1;
  /** Times the whole record was halved. */
  downsampled = 0;

  constructor(readonly capacity = 1200) {
    if (capacity < 2) throw new Error('a sample ring holds at least 2 samples');
  }

  push(sample: ResourceSample): void {
    this.pending.push(sample);
    if (this.pending.length < this.stride) return;
    this.samples.push(mergeSamples(this.pending));
    this.pending = [];
    if (this.samples.length >= this.capacity) {
      const halved: ResourceSample[] = [];
      for (let i = 0; i < this.samples.length; i += 2) halved.push(mergeSamples(this.samples.slice(i, i + 2)));
      this.samples = halved;
      this.stride *= 2;
      this.downsampled++;
    }
  }

  /** Everything kept, the partial group at the end included. */
  toArray(): ResourceSample[] {
    return this.pending.length ? [...this.samples, mergeSamples(this.pending)] : [...this.samples];
  }
}
