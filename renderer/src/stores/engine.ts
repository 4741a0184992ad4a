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
        runs[p.runId] = { runId: p.runId, strategy: p.strategy, repeatIndex: p.repeatIndex, status: 'queued', errorClass: null, message: null, fix: null, samples: [] };
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
      ? { ...state.runs, [event.runId]: { ...run, status: event.status, errorClass: event.errorClass, message: event.message, fix: event.fix } }
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
