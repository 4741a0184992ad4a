// The specs a sweep runs, made ready for the host it starts on before anything is queued: the
// request's own or the planner's for its workload, what can never run here refused, a prediction made
// for another machine refused or dropped, the plan's choices said in the run's log, and the memory the
// run needs here sized (the planner's sizeHere) for the runner's pre-flight.
import { ApiError, type RunSpec, type StartRunsRequest } from '../../contract';
import type { Planner } from './planner';

export function machineIdOf(machine: unknown): string | null {
  const id = (machine as { machineId?: unknown } | null)?.machineId;
  return typeof id === 'string' ? id : null;
}

/**
 * What a workload request runs, in the run's log (and stored notes): the micro batch and knobs the plan chose
 * for the strategy on this machine — what `plan` shows for it — or, asked with a micro batch, that one, said
 * where the spec runs another (a global batch's split). Before issue 46 `run` without --micro-batch silently ran
 * another micro batch than `plan` showed (its plan lacked the kind's memory evidence).
 */
export function plannedNotes(request: StartRunsRequest, spec: RunSpec): string[] {
  const w = request.workload;
  if (!w) return []; // specs run unchanged: their own words
  const knobs = Object.entries(spec.knobs ?? {})
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
  const config = `micro batch ${spec.microBatch} × accumulation ${spec.gradAccum}${knobs ? ` (${knobs})` : ''}`;
  if (w.searchMicroBatch === false)
    return spec.microBatch === w.microBatch
      ? []
      : [
          `[offload-studio] ${spec.strategy} runs ${config}, not the micro batch ${w.microBatch} asked for: the plan's split of the workload's global batch.`,
        ];
  return [
    `[offload-studio] ${spec.strategy} runs ${config}: the plan's configuration for this strategy on this machine, as \`plan\` shows it (--micro-batch N runs another).`,
  ];
}

/** The specs a request runs: its own, or the planner's for its workload and strategies. */
export async function specsOf(request: StartRunsRequest, planner: Planner, machine: unknown): Promise<RunSpec[]> {
  const specs = request.specs ?? (await planner.specs(request.workload!, request.strategies!, machine, { force: request.force }));
  // what can never run on this machine, whichever door the specs came through (the planner's refuseSpecs)
  planner.refuseSpecs?.(specs, machine);
  return specs;
}

const SOURCE_WORDS = { file: 'a loaded file', catalogued: 'a catalogued machine' } as const;

/**
 * Whether a spec's prediction was made for another machine than `hostId`, the one it is about to run
 * on (its snapshot's machineId): 'refuse' for a plan of a loaded or catalogued machine (once, a
 * 3B ZeRO-1 planned for a loaded H200 was started on a CPU box), 'drop' for one planned on another
 * detected host (its host figure would size this host's pre-flight), null where it is this
 * machine's or cannot be told (a spec without the stamp: hand-written, or older than it).
 */
export function predictionElsewhere(spec: RunSpec, hostId: string | null): { action: 'refuse' | 'drop'; words: string } | null {
  const p = spec.prediction;
  if (!p || (p.machineSource === undefined && (p.machineId === undefined || p.machineId === null))) return null;
  const sameHost = hostId !== null && p.machineId === hostId;
  if (sameHost) return null;
  const label = p.machineLabel ?? p.machineId ?? 'another machine';
  if (p.machineSource === 'file' || p.machineSource === 'catalogued')
    return { action: 'refuse', words: `${label}, ${SOURCE_WORDS[p.machineSource]}` };
  if (p.machineId && hostId !== null)
    return { action: 'drop', words: `${label} (machine ${p.machineId}), not this host (machine ${hostId})` };
  return null;
}

/**
 * The specs as they run on this host: one planned for a loaded or catalogued machine is refused
 * (plan for this machine to run here); one planned on another detected host runs without that
 * prediction, so the runner's pre-flight sizes it for this host with its own estimate rather than
 * taking the other host's hostPeakBytes as this one's — and the run's log says so.
 */
export function forThisHost(specs: RunSpec[], hostId: string | null): { spec: RunSpec; notes: string[] }[] {
  return specs.map((spec, i) => {
    const elsewhere = predictionElsewhere(spec, hostId);
    if (!elsewhere) return { spec, notes: [] };
    if (elsewhere.action === 'refuse')
      throw new ApiError(
        'planned_elsewhere',
        `This plan is for ${elsewhere.words}, not this machine: plan for this machine to run here (the ${spec.strategy} spec's prediction${specs.length > 1 ? `, specs[${i}]` : ''} was made for it).`,
        'specs',
      );
    return {
      spec: { ...spec, prediction: null },
      notes: [
        `[offload-studio] the plan's prediction for ${spec.strategy} was made for ${elsewhere.words}: it is left out of this run, so the pre-flight sizes the run for this host and no prediction is stored beside the measurement.`,
      ],
    };
  });
}

/**
 * The spec with this host's memory estimate for it (the planner's sizeHere), which the runner's pre-flight
 * checks instead of the plan's figure, and a log line saying which figure that is; unchanged where the
 * planner cannot size it (the runner then says whose figure it checks).
 */
export function sizedHere(p: { spec: RunSpec; notes: string[] }, machine: unknown, planner: Planner): { spec: RunSpec; notes: string[] } {
  const sized = planner.sizeHere?.(p.spec, machine) ?? null;
  if (!sized) return p;
  const planned = p.spec.prediction?.hostPeakBytes;
  const differs = planned !== undefined && Math.abs(planned - sized.hostBytes) > 0.05 * Math.max(planned, sized.hostBytes);
  return {
    spec: { ...p.spec, preflightMemory: sized },
    notes: [
      ...p.notes,
      `[offload-studio] pre-flight: this run needs ~${(sized.hostBytes / 1024 ** 3).toFixed(1)} GiB of host memory on this host (${sized.basis})${differs ? `; the plan's prediction said ${(planned / 1024 ** 3).toFixed(1)} GiB` : ''}.`,
    ],
  };
}
