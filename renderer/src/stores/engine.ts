// Engine domain state: the sweep in flight (or the last one), its live per-step samples, its log.
import { create } from 'zustand';
import type { RequestOf, RunProgressEvent, RunStatusEvent } from '../../../electron/contract';
import { api } from '../api/client';

export interface LiveRun {
  runId: string;
  strategy: string;
  repeatIndex: number;
  status: RunStatusEvent['status'] | 'queued';
  errorClass: string | null;
  message: string | null;
  fix: string | null;
  samples: RunProgressEvent[];
}

interface EngineState {
  sweepId: string | null;
  runIds: string[];
  runs: Record<string, LiveRun>;
  last: RunProgressEvent | null;
  log: string[];
  starting: boolean;
  cancelling: boolean;
  done: boolean;
  error: string | null;
  startedAt: number | null;
  start(request: RequestOf<'runs/start'>): Promise<boolean>;
  cancel(): Promise<void>;
}

const MAX_LOG_LINES = 2000;

export const useEngine = create<EngineState>((set, get) => ({
  sweepId: null,
  runIds: [],
  runs: {},
  last: null,
  log: [],
  starting: false,
  cancelling: false,
  done: false,
  error: null,
  startedAt: null,
  async start(request) {
    set({ starting: true, error: null });
    try {
      // The backend says which run is which (repeats outer, specs inner): label from its reply.
      const { sweepId, runIds, runs: planned } = await api.invoke('runs/start', request);
      const runs: Record<string, LiveRun> = {};
      for (const p of planned)
        runs[p.runId] = {
          runId: p.runId,
          strategy: p.strategy,
          repeatIndex: p.repeatIndex,
          status: 'queued',
          errorClass: null,
          message: null,
          fix: null,
          samples: [],
        };
      set({ sweepId, runIds, runs, last: null, log: [], starting: false, cancelling: false, done: false, startedAt: Date.now() });
      return true;
    } catch (error) {
      set({ starting: false, error: (error as Error).message });
      return false;
    }
  },
  async cancel() {
    const sweepId = get().sweepId;
    if (!sweepId) return;
    set({ cancelling: true });
    try {
      await api.invoke('runs/cancel', { sweepId });
    } catch (error) {
      set({ error: (error as Error).message, cancelling: false });
    }
  },
}));

// Events are subscribed once for the app's life: a sweep keeps streaming while the user looks elsewhere.
api.on('runs/progress', (event) => {
  const state = useEngine.getState();
  if (event.sweepId !== state.sweepId) return;
  const run = state.runs[event.runId];
  if (!run) return;
  useEngine.setState({
    last: event,
    runs: { ...state.runs, [event.runId]: { ...run, status: 'running', samples: [...run.samples, event] } },
  });
});

api.on('runs/status', (event) => {
  const state = useEngine.getState();
  if (event.sweepId !== state.sweepId) return;
  const run = state.runs[event.runId];
  useEngine.setState({
    runs: run
      ? {
          ...state.runs,
          [event.runId]: { ...run, status: event.status, errorClass: event.errorClass, message: event.message, fix: event.fix },
        }
      : state.runs,
    done: event.sweepDone || state.done,
    cancelling: event.sweepDone ? false : state.cancelling,
  });
});

api.on('runs/log', (event) => {
  const state = useEngine.getState();
  if (event.sweepId !== state.sweepId) return;
  const log = [...state.log, ...event.lines];
  useEngine.setState({ log: log.length > MAX_LOG_LINES ? log.slice(-MAX_LOG_LINES) : log });
});

const ENDED_STATUSES = new Set(['completed', 'failed', 'cancelled', 'interrupted']);
const REATTACH_POLL_MS = 3000;

/** The index runIdFor gave a run (r-…-<i>): the order the sweep runs them in. */
function runIndex(id: string): number {
  const n = Number(id.slice(id.lastIndexOf('-') + 1));
  return Number.isFinite(n) ? n : Number.MAX_SAFE_INTEGER;
}

/** The stored runs of one sweep (the newest 1,000 runs hold it: a sweep's runs are made together). */
async function sweepRuns(sweepId: string) {
  const { runs } = await api.invoke('runs/list', { limit: 1000 });
  return runs.filter((r) => r.sweepId === sweepId).sort((a, b) => runIndex(a.id) - runIndex(b.id));
}

/**
 * A page opened while a sweep runs — reloaded, a second tab, the laptop's browser reconnecting to
 * `serve` — knew nothing of it and said 'Nothing is running'. On load the
 * store takes up the sweep that history shows running or queued: its runs and their states, the
 * live events from there on, and a re-read of the states every few seconds until every run ended
 * (so a sweep this page has no events of still ends here).
 */
export async function reattachSweep(): Promise<void> {
  if (useEngine.getState().sweepId) return;
  let active: string | null = null;
  for (const status of ['running', 'queued'] as const) {
    const { runs } = await api.invoke('runs/list', { status, limit: 1 });
    active = runs[0]?.sweepId ?? null;
    if (active) break;
  }
  if (!active || useEngine.getState().sweepId) return;
  const stored = await sweepRuns(active);
  if (!stored.length || useEngine.getState().sweepId) return;
  const runs: Record<string, LiveRun> = {};
  for (const r of stored)
    runs[r.id] = {
      runId: r.id,
      strategy: r.strategy,
      repeatIndex: r.repeatIndex,
      status: r.status,
      errorClass: r.errorClass,
      message: r.errorMessage,
      fix: null,
      samples: [],
    };
  const started = stored.map((r) => (r.startedAt ? Date.parse(r.startedAt) : NaN)).filter(Number.isFinite);
  useEngine.setState({
    sweepId: active,
    runIds: stored.map((r) => r.id),
    runs,
    last: null,
    log: [],
    done: stored.every((r) => ENDED_STATUSES.has(r.status)),
    startedAt: started.length ? Math.min(...started) : Date.now(),
  });
  const sweepId = active;
  const poll = async (): Promise<void> => {
    const state = useEngine.getState();
    if (state.sweepId !== sweepId || state.done) return;
    try {
      const fresh = await sweepRuns(sweepId);
      const now = useEngine.getState();
      if (now.sweepId !== sweepId) return;
      const next = { ...now.runs };
      for (const r of fresh) {
        const mine = next[r.id];
        // Stored state moves forward only (queued → running → ended); an event may already be ahead.
        if (
          mine &&
          !ENDED_STATUSES.has(mine.status) &&
          r.status !== mine.status &&
          (ENDED_STATUSES.has(r.status) || mine.status === 'queued')
        )
          next[r.id] = { ...mine, status: r.status, errorClass: r.errorClass, message: r.errorMessage };
      }
      const done = now.runIds.every((id) => ENDED_STATUSES.has(next[id]?.status ?? 'queued'));
      useEngine.setState({ runs: next, done: now.done || done, cancelling: done ? false : now.cancelling });
    } catch {
      // The connection dropped: try again at the next tick.
    }
    setTimeout(() => void poll(), REATTACH_POLL_MS);
  };
  setTimeout(() => void poll(), REATTACH_POLL_MS);
}
