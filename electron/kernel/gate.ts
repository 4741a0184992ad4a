// A small gate for work that starts a process (an interpreter probe, a model probe): at most
// `running` at once, at most `waiting` queued behind them, and one promise per key in flight (the
// same interpreter or the same config asked twice shares one answer). Past the queue the caller is
// refused as `busy` at once, so a flood of requests cannot start a flood of processes.
import { ApiError } from '../contract';

export interface Gate<T> {
  run(key: string, work: () => Promise<T>): Promise<T>;
}

/** `busy(active, waiting)`: the refusal's message, saying what to wait for. */
export function createGate<T>(running: number, waiting: number, busy: (active: number, waiting: number) => string): Gate<T> {
  const inFlight = new Map<string, Promise<T>>();
  const queue: (() => void)[] = [];
  let active = 0;
  const next = () => {
    active--;
    queue.shift()?.();
  };
  return {
    run(key, work) {
      const shared = inFlight.get(key);
      if (shared) return shared;
      if (active >= running && queue.length >= waiting) throw new ApiError('busy', busy(active, queue.length));
      const started = new Promise<void>((resolve) => {
        if (active < running) {
          active++;
          resolve();
        } else
          queue.push(() => {
            active++;
            resolve();
          });
      });
      const promise = started.then(work).finally(() => {
        inFlight.delete(key);
        next();
      });
      inFlight.set(key, promise);
      return promise;
    },
  };
}
