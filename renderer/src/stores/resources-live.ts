// The live resource lanes of the sweep in flight: every `runs/resources-live` sample and
// every step of `runs/progress`, grown into one record per run (contract/charts/resource-live.ts), so
// the Run page draws the same lanes chart as a stored run, growing. Subscribed once for the app's
// life, like the engine store: a sweep keeps sampling while the user looks elsewhere.
import { create } from 'zustand';
import { appendLiveSample, appendLiveStep, type LiveRecord } from '../../../electron/contract/charts/resource-live';
import { api } from '../api/client';

/** Runs kept at once: a sweep's runs go one after another and an ended run's page reads its stored
 *  record, so only the latest few are needed (each up to 1,200 samples × every core's load). */
const MAX_RUNS = 4;

interface ResourcesLiveState {
  sweepId: string | null;
  byRun: Record<string, LiveRecord>;
  /** The run whose sample came last (the one running now). */
  latestRunId: string | null;
}

export const useResourcesLive = create<ResourcesLiveState>(() => ({ sweepId: null, byRun: {}, latestRunId: null }));

api.on('runs/resources-live', (event) => {
  const state = useResourcesLive.getState();
  // A new sweep starts a new set: the lanes of the last one are stored with its runs.
  const byRun = event.sweepId === state.sweepId ? state.byRun : {};
  const next = { ...byRun, [event.runId]: appendLiveSample(byRun[event.runId] ?? null, event, Date.now()) };
  const ids = Object.keys(next);
  for (const old of ids.slice(0, Math.max(0, ids.length - MAX_RUNS))) delete next[old];
  useResourcesLive.setState({ sweepId: event.sweepId, byRun: next, latestRunId: event.runId });
});

api.on('runs/progress', (event) => {
  const state = useResourcesLive.getState();
  const live = state.byRun[event.runId];
  if (event.sweepId !== state.sweepId || !live) return;
  const next = appendLiveStep(live, event, Date.now());
  if (next !== live) useResourcesLive.setState({ byRun: { ...state.byRun, [event.runId]: next! } });
});
