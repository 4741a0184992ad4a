// Tune state (tune/start … tune/progress): kept for the app's life, so the Plan page and the
// wizard's run step show a tune in flight — and its winner — after the user looked elsewhere.
import { create } from 'zustand';
import type { RequestOf, TuneResultInfo } from '../../../electron/contract';
import { api } from '../api/client';

interface TuneState {
  tuneId: string | null;
  lines: string[];
  result: TuneResultInfo | null;
  error: string | null;
  start(request: RequestOf<'tune/start'>): Promise<void>;
  cancel(): Promise<void>;
}

export const useTune = create<TuneState>((set, get) => ({
  tuneId: null,
  lines: [],
  result: null,
  error: null,
  async start(request) {
    set({ lines: [], result: null, error: null });
    try {
      const { tuneId } = await api.invoke('tune/start', request);
      set({ tuneId });
    } catch (e) {
      set({ error: e instanceof Error ? e.message : String(e) });
    }
  },
  async cancel() {
    const tuneId = get().tuneId;
    if (tuneId) await api.invoke('tune/cancel', { tuneId }).catch(() => undefined);
  },
}));

api.on('tune/progress', (e) => {
  const { tuneId, lines } = useTune.getState();
  if (tuneId && e.tuneId !== tuneId) return;
  useTune.setState({ lines: [...lines, e.line].slice(-40) });
  if (e.done) useTune.setState({ tuneId: null, result: e.result, error: e.error ? e.error.message : null });
});
