// The knob search of one strategy: micro batch up to what fits, and the offload settings that decide
// its speed — `ratio` (share of the optimizer stepped on the CPU; ZeRO-3 offload and SuperOffload),
// cpuadam_cores_perc (SuperOffload: cores for the CPU Adam worker vs the trainer, from the measured
// sweep), overlap_comm, sub_group_size, pin_memory, FSDP2 reshard_after_forward. Every candidate is
// checked against memory and predicted by the (calibrated) throughput model; the fastest in tokens/s
// wins, and each chosen knob comes with the reason it was chosen.
import type { HardwareProfile, Machine, Prediction, StrategyPreset, Workload } from '../../../contract';
import { worldSize } from '../../../contract';
import { MICRO_CANDIDATES, SEED_ZERO_KEYS } from '../config/config-defaults';
import { mechanismOf, type KnobSearchSpace } from '../mechanisms';
import { fitClass, gpuFitChance, type FitClass } from '../model/fit';
import { estimateMemory } from '../model/memory';
import { bandFor, measuredFit } from '../model/memory-evidence';
import { cpuAdamRate } from '../catalogue/profile';
import { factorsFor, type PlanContext } from './context';
import { cpuRatio, phaseTimes, predictFrom, stepSecondsOnly, tokensPerSecondOf, type ThroughputKnobs } from '../model/throughput';

export { MICRO_CANDIDATES, RATIO_CANDIDATES, SUB_GROUP_CANDIDATES } from '../config/config-defaults';
export { coresPercCandidates } from '../mechanisms';

export interface SearchResult {
  microBatch: number;
  /** The accumulation that keeps the workload's global batch (else the workload's). */
  gradAccum: number;
  knobs: ThroughputKnobs;
  predicted: Prediction;
  /** One line per chosen knob: its value and why. */
  why: string[];
  /** Configurations tried (fit or not). */
  tried: number;
  /** The fastest configuration at the edge of memory (within the model's error of a limit), where it is
   *  predicted faster than the pick: the pick never sits there unmeasured, a short trial can. */
  edge: { microBatch: number; gradAccum: number; knobs: ThroughputKnobs; predicted: Prediction; fitChance: number } | null;
  /** Nothing fits for sure: the result is the edge configuration itself, no pick. */
  fitsNone?: boolean;
}

const tps = (p: Prediction) => p.tokensPerSecond;

/** The values each knob may take for this strategy, the default (seed) value first: its mechanism's. */
function knobAxes(s: StrategyPreset, w: Workload, hw: HardwareProfile, machine: Machine, fixedPerc: number | undefined): KnobSearchSpace {
  return mechanismOf(s).knobSpace({ s, w, hw, machine, fixedPerc });
}

/** A change of knob has to buy this much to be taken (else the default, which the engine's authors chose, stays). */
const MIN_GAIN = 1.005;

function explain(
  s: StrategyPreset,
  best: SearchResult,
  w: Workload,
  hw: HardwareProfile,
  machine: Machine,
  alternatives: Map<string, number>,
  paramsPerRank: number,
): string[] {
  const k = best.knobs;
  const why: string[] = [];
  const gain = (key: string) => {
    const [name, value] = key.split('=');
    if (String((k as Record<string, unknown>)[name]) === value) return '';
    const other = alternatives.get(key);
    return other ? ` (${((tps(best.predicted) / other - 1) * 100).toFixed(0)}% faster than ${key.split('=')[1]})` : '';
  };
  if (w.globalBatch)
    why.push(
      `micro batch ${best.microBatch} × accumulation ${best.gradAccum} × ${worldSize(w)} GPU(s) keeps the global batch ${w.globalBatch}: the fastest split that fits`,
    );
  else if (best.microBatch !== w.microBatch)
    why.push(
      `micro batch ${best.microBatch}: the fastest per token that fits (the form's ${w.microBatch}${alternatives.get(`micro=${w.microBatch}`) ? ` is ${((tps(best.predicted) / alternatives.get(`micro=${w.microBatch}`)! - 1) * 100).toFixed(0)}% slower` : ''})`,
    );
  else why.push(`micro batch ${best.microBatch}: the form's, fastest that fits`);
  if (k.ratio !== undefined) {
    const real = cpuRatio(s, k, paramsPerRank);
    const whole = real !== k.ratio ? ` (DeepSpeed keeps whole sub-groups on the GPU: ${((1 - real) * 100).toFixed(0)}% here)` : '';
    why.push(
      real < 1
        ? `ratio ${k.ratio}: ${((1 - k.ratio) * 100).toFixed(0)}% of the optimizer steps on the GPU, which has room for it${whole}${gain(`ratio=${mechanismOf(s).cpuShare(s, undefined, undefined)}`)}`
        : `ratio ${k.ratio}: the whole optimizer steps on the CPU${whole} — the GPU has no room for a larger share at this micro batch`,
    );
  }
  if (k.cpuadamCoresPerc !== undefined) {
    const threads = Math.round(hw.physicalCores * k.cpuadamCoresPerc);
    why.push(
      `cpuadam_cores_perc ${k.cpuadamCoresPerc}: ${threads} of ${hw.physicalCores} cores step CPU Adam (${(cpuAdamRate(hw, threads) / 1e9).toFixed(1)} G params/s ${hw.sources.cpuAdam === 'measured' ? 'measured' : 'catalogued'}), ${hw.physicalCores - threads} left to the trainer for its copies and casts`,
    );
  }
  if (k.overlapComm !== undefined)
    why.push(
      k.overlapComm
        ? `overlap_comm true: gradient copies/reductions run on a side stream behind backward${gain('overlapComm=false')}`
        : 'overlap_comm false: no transfer to hide, and it saves a bucket of GPU memory',
    );
  if (k.subGroupSize !== undefined)
    why.push(
      `sub_group_size ${k.subGroupSize.toExponential(0)}: ${k.subGroupSize < SEED_ZERO_KEYS.sub_group_size ? 'smaller groups hide more of the CPU step behind backward' : 'fewer groups, less per-group overhead'}`,
    );
  if (k.pinMemory !== undefined)
    why.push(
      k.pinMemory
        ? 'pin_memory true: pinned buffers copy at the full link rate'
        : `pin_memory false: the locked-memory limit (ulimit -l ${machine.memory.lockedMemoryLimitBytes}) is too small for pinned buffers`,
    );
  if (k.reshardAfterForward !== undefined)
    why.push(
      k.reshardAfterForward
        ? 'reshard_after_forward true: parameters are gathered again in backward, keeping GPU memory low'
        : `reshard_after_forward false: the gathered parameters stay for backward, one host→GPU copy fewer per layer${gain('reshardAfterForward=true')}`,
    );
  return why;
}

/**
 * The best (micro batch, knobs) of one strategy at workload `w` (the context's, or a variant of it), or
 * null when nothing fits. The workload's own cpuadam_cores_perc is kept as given; `searchMicroBatch`
 * false keeps its micro batch.
 */
export function searchStrategy(ctx: PlanContext, s: StrategyPreset, w: Workload = ctx.workload): SearchResult | null {
  const { model, params, machine, hw, perc, evidence } = ctx;
  const factors = factorsFor(ctx, s.id);
  const fixedPerc = w.cpuadamCoresPerc;
  // with a global batch to keep, micro batches that divide its per-GPU share, accumulation making up the rest
  const perGpu = w.globalBatch ? w.globalBatch / worldSize(w) : null;
  const shapes: [number, number][] = perGpu
    ? Number.isInteger(perGpu)
      ? [...new Set([...MICRO_CANDIDATES, w.microBatch, perGpu])]
          .filter((m) => m <= perGpu && perGpu % m === 0)
          .sort((a, b) => a - b)
          .map((m) => [m, perGpu / m])
      : []
    : (w.searchMicroBatch ? [...new Set([w.microBatch, ...MICRO_CANDIDATES])].sort((a, b) => a - b) : [w.microBatch]).map((m) => [
        m,
        w.gradAccum,
      ]);
  const micros = shapes.map(([m]) => m);
  const accumOf = new Map(shapes);
  const { base, axes } = knobAxes(s, w, hw, machine, fixedPerc);
  let best: { microBatch: number; knobs: ThroughputKnobs; rate: number } | null = null as {
    microBatch: number;
    knobs: ThroughputKnobs;
    rate: number;
  } | null;
  let tried = 0;
  // best tokens/s seen with one knob held at a value: what the winner is compared with in its reasons
  const alternatives = new Map<string, number>();
  const fitCache = new Map<string, FitClass>();
  const chanceOf = new Map<string, number>();
  const band = bandFor(evidence, s.id);
  // the edge worth a trial: the best predicted rate × chance to fit (gpuFitChance), not the fastest
  let bestEdge: { microBatch: number; knobs: ThroughputKnobs; rate: number; chance: number } | null = null;
  let edgeVerdicts = 0; // candidates judged at the edge so far: tryMicro reads whether its micro batch added any
  // tokens/s of one candidate that fits, or null when it does not (the full Prediction is built for the
  // winner only); a candidate at the edge is kept aside as bestEdge and counts as not fitting here
  const evaluate = (wm: Workload, knobs: ThroughputKnobs): number | null => {
    tried++;
    // memory does not depend on the cores split: one verdict per memory-relevant setting
    const memKey = `${wm.microBatch}|${wm.gradAccum}|${knobs.ratio}|${knobs.subGroupSize}|${knobs.overlapComm}|${knobs.reshardAfterForward}|${knobs.reduceBucketSize}`;
    let cls = fitCache.get(memKey);
    if (cls === undefined) {
      const mem = estimateMemory(s, model, params, wm, false, knobs);
      fitCache.set(memKey, (cls = fitClass(s, mem, wm, machine, hw, { band, measured: measuredFit(evidence, s.id, wm, knobs) })));
      if (cls === 'edge') chanceOf.set(memKey, gpuFitChance(mem, hw, band));
    }
    if (cls === 'does-not-fit') return null;
    const x = { strategy: s, model, params, workload: wm, profile: hw, cpuadamCoresPerc: knobs.cpuadamCoresPerc ?? perc, knobs };
    const rate = tokensPerSecondOf(wm, stepSecondsOnly(phaseTimes(x), factors));
    if (cls === 'edge') {
      edgeVerdicts++;
      const chance = chanceOf.get(memKey) ?? 0.5;
      if (!bestEdge || rate * chance > bestEdge.rate * bestEdge.chance) bestEdge = { microBatch: wm.microBatch, knobs, rate, chance };
      return null;
    }
    const note = (id: string) => alternatives.set(id, Math.max(alternatives.get(id) ?? 0, rate));
    note(`micro=${wm.microBatch}`);
    for (const key in knobs) note(`${key}=${String((knobs as Record<string, unknown>)[key])}`);
    return rate;
  };
  let start = { ...base };
  // one micro batch: coordinate descent over the knobs — each knob in turn takes its best value, from
  // the defaults and from the previous micro batch's best (warm start); another round only while a
  // round changes something. Returns whether anything fitted, and whether anything was at the edge.
  const tryMicro = (micro: number): { fits: boolean; edge: boolean } => {
    const wm = { ...w, microBatch: micro, gradAccum: accumOf.get(micro) ?? w.gradAccum };
    const edgesBefore = edgeVerdicts;
    let knobs = { ...start };
    let current = evaluate(wm, knobs);
    if (!current && start !== base) [knobs, current] = [{ ...base }, evaluate(wm, base)];
    for (let round = 0, changed = true; changed && round < 3; round++) {
      changed = false;
      for (const [key, values] of axes)
        for (const value of values) {
          if (knobs[key] === value) continue;
          const next = { ...knobs, [key]: value };
          const p = evaluate(wm, next);
          if (p !== null && (current === null || p > current * MIN_GAIN)) [knobs, current, changed] = [next, p, true];
        }
    }
    const edge = edgeVerdicts > edgesBefore;
    if (current === null) return { fits: false, edge };
    start = knobs;
    if (!best || current > best.rate * MIN_GAIN) best = { microBatch: micro, knobs, rate: current };
    return { fits: true, edge };
  };
  let lastFit: number | null = null;
  let firstNotFit: number | null = null;
  let lastAlive: number | null = null;
  let firstDead: number | null = null;
  for (const micro of micros) {
    const r = tryMicro(micro);
    if (r.fits) lastFit = micro;
    else firstNotFit ??= micro;
    if (r.fits || r.edge) lastAlive = micro;
    else {
      // memory grows with the micro batch: past a micro batch where nothing even reaches the edge, nothing will
      firstDead = micro;
      break;
    }
  }
  // The ladder doubles; the boundary lies between two of its rungs (Llama-3.2-1B at seq 16384 on an
  // H200: micro 3 fits, 4 runs out). Bisect between the last rung that fitted and the first that did
  // not, and between the last at the edge and the first past it — free micro batches only (a global
  // batch fixes the splits).
  const bisect = (lo: number | null, hi: number | null, alive: (r: { fits: boolean; edge: boolean }) => boolean) => {
    if (perGpu || lo === null || hi === null) return;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (alive(tryMicro(mid))) lo = mid;
      else hi = mid;
    }
  };
  if (firstNotFit !== null && (lastFit === null || firstNotFit > lastFit)) bisect(lastFit, firstNotFit, (r) => r.fits);
  bisect(lastAlive, firstDead, (r) => r.fits || r.edge);
  const edgeOut = (): SearchResult['edge'] => {
    const e = bestEdge as { microBatch: number; knobs: ThroughputKnobs; rate: number; chance: number } | null;
    if (!e || (best && e.rate <= (best as { rate: number }).rate * MIN_GAIN)) return null;
    const we = { ...w, microBatch: e.microBatch, gradAccum: accumOf.get(e.microBatch) ?? w.gradAccum };
    return {
      microBatch: e.microBatch,
      gradAccum: we.gradAccum,
      knobs: e.knobs,
      fitChance: e.chance,
      predicted: predictFrom(
        { strategy: s, model, params, workload: we, profile: hw, cpuadamCoresPerc: e.knobs.cpuadamCoresPerc ?? perc, knobs: e.knobs },
        factors,
      ),
    };
  };
  if (!best) {
    const edge = edgeOut();
    // nothing fits for sure, but something sits at the edge: no pick, a trial to make
    return edge
      ? {
          microBatch: edge.microBatch,
          gradAccum: edge.gradAccum,
          knobs: edge.knobs,
          predicted: edge.predicted,
          why: [],
          tried,
          edge,
          fitsNone: true,
        }
      : null;
  }
  const found = best as { microBatch: number; knobs: ThroughputKnobs; rate: number };
  const wm = { ...w, microBatch: found.microBatch, gradAccum: accumOf.get(found.microBatch) ?? w.gradAccum };
  const predicted = predictFrom(
    { strategy: s, model, params, workload: wm, profile: hw, cpuadamCoresPerc: found.knobs.cpuadamCoresPerc ?? perc, knobs: found.knobs },
    factors,
  );
  const result: SearchResult = {
    microBatch: found.microBatch,
    gradAccum: wm.gradAccum,
    knobs: found.knobs,
    predicted,
    why: [],
    tried,
    edge: edgeOut(),
  };
  result.why = explain(s, result, w, hw, machine, alternatives, params.total / worldSize(w));
  return result;
}
