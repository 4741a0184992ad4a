// The resource record of a run that is still running, grown from the live events: the
// lanes page draws it with the same option builder as a stored record (resourceLanesOption). The
// live event carries one sample, not the step marks; the steps come from the run's progress events,
// placed on the sampler's clock by the offset between a sample's `t` and when it arrived here (the
// smallest one seen: the least delayed delivery). The stored record has the exact marks.
import type { ResourceLiveEvent, ResourceRecord, ResourceSample } from '../resources';

/** The live view keeps at most this many samples; past it, neighbours are merged pairwise as SampleRing does. */
export const LIVE_CAPACITY = 1200;

export interface LiveRecord {
  record: ResourceRecord;
  /** Arrival time (ms epoch, this clock) minus the sample's `t`: where the sampler's 0 lies here. Null before the first sample. */
  clockOffsetMs: number | null;
}

const mean = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : (a + b) / 2);
const max = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

/** Two neighbouring samples as one (rates and shares by mean, memory by peak), standing for both. */
function mergePair(a: ResourceSample, b: ResourceSample): ResourceSample {
  return {
    t: b.t,
    gpus: b.gpus.map((g) => {
      const o = a.gpus.find((x) => x.index === g.index);
      if (!o) return g;
      return {
        index: g.index,
        utilPct: mean(o.utilPct, g.utilPct),
        memUsedMiB: max(o.memUsedMiB, g.memUsedMiB),
        powerW: mean(o.powerW, g.powerW),
        smClockMHz: mean(o.smClockMHz, g.smClockMHz),
        pcieRxMBps: mean(o.pcieRxMBps, g.pcieRxMBps),
        pcieTxMBps: mean(o.pcieTxMBps, g.pcieTxMBps),
      };
    }),
    cpuBusyPct: b.cpuBusyPct.length === a.cpuBusyPct.length ? b.cpuBusyPct.map((p, i) => (p + a.cpuBusyPct[i]) / 2) : b.cpuBusyPct,
    memUsedBytes: max(a.memUsedBytes, b.memUsedBytes),
    memTotalBytes: b.memTotalBytes ?? a.memTotalBytes,
    swapUsedBytes: max(a.swapUsedBytes, b.swapUsedBytes),
    diskReadBps: mean(a.diskReadBps, b.diskReadBps),
    diskWriteBps: mean(a.diskWriteBps, b.diskWriteBps),
    merged: (a.merged ?? 1) + (b.merged ?? 1),
  };
}

/** The live record with one more sample (a new record on the event's first sample). `receivedAt`: ms epoch here. */
export function appendLiveSample(live: LiveRecord | null, event: ResourceLiveEvent, receivedAt: number): LiveRecord {
  const offset = receivedAt - event.sample.t;
  const base: ResourceRecord = live?.record ?? {
    startedAt: new Date(offset).toISOString(),
    intervalMs: 1000, // the live event comes about once a second
    availability: event.availability,
    samples: [],
    steps: [],
    dropped: 0,
    downsampled: 0,
  };
  let samples = [...base.samples, event.sample];
  let downsampled = base.downsampled;
  if (samples.length > LIVE_CAPACITY) {
    const merged: ResourceSample[] = [];
    for (let i = 0; i + 1 < samples.length; i += 2) merged.push(mergePair(samples[i], samples[i + 1]));
    if (samples.length % 2) merged.push(samples[samples.length - 1]);
    downsampled += samples.length - merged.length;
    samples = merged;
  }
  return {
    record: { ...base, availability: event.availability, pcieLinkGBps: event.pcieLinkGBps ?? base.pcieLinkGBps, samples, downsampled },
    clockOffsetMs: live?.clockOffsetMs == null ? offset : Math.min(live.clockOffsetMs, offset),
  };
}

/** The live record with a step's end marked where it arrived, on the sampler's clock. Unplaceable before the first sample. */
export function appendLiveStep(
  live: LiveRecord | null,
  step: { step: number; warmup: boolean; stepSeconds: number },
  receivedAt: number,
): LiveRecord | null {
  if (!live || live.clockOffsetMs === null) return live;
  if (live.record.steps.some((s) => s.step === step.step)) return live;
  const seconds = Number.isFinite(step.stepSeconds) && step.stepSeconds >= 0 ? step.stepSeconds : 0;
  const mark = { step: step.step, warmup: step.warmup, endT: Math.max(0, receivedAt - live.clockOffsetMs), seconds };
  return { ...live, record: { ...live.record, steps: [...live.record.steps, mark] } };
}
