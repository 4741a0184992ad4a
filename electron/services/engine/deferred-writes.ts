// Writes to history that must not be lost when the disk is full for a while: a run's last samples and
// its end. A write that fails is queued and retried in order (every `retryMs`, and whenever another
// write comes), until it lands — so a run never stays `running` after space returns, and the samples
// it measured are kept (the end was swallowed once, the run stayed `running` until shutdown,
// its 150 samples lost). One queue per history store: a later sweep's writes wait behind an earlier one's.
import type { HistoryStore } from '../history';

interface Pending {
  label: string;
  write: () => void;
}

/** Retry every 2 s; give up after an hour (start-up recovery then marks the run interrupted). */
const RETRY_MS = 2000;
const GIVE_UP_MS = 60 * 60 * 1000;

export class DeferredWrites {
  private readonly queue: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;
  private since = 0;

  constructor(
    private readonly onError: (label: string, error: unknown) => void = () => undefined,
    private readonly retryMs = RETRY_MS,
  ) {}

  /** Writes now, or after the ones already waiting; a failure queues it. Returns whether it landed now. */
  run(label: string, write: () => void): boolean {
    this.queue.push({ label, write });
    this.flush();
    return !this.queue.some((p) => p.write === write);
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Tries the queued writes in order; stops at the first that still fails. */
  flush(): void {
    while (this.queue.length > 0) {
      const next = this.queue[0];
      try {
        next.write();
      } catch (error) {
        this.onError(next.label, error);
        this.schedule();
        return;
      }
      this.queue.shift();
    }
    this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.since = 0;
  }

  private schedule(): void {
    if (this.timer) return;
    this.since = Date.now();
    this.timer = setInterval(() => {
      if (Date.now() - this.since > GIVE_UP_MS) {
        this.queue.length = 0;
        this.stop();
        return;
      }
      this.flush();
    }, this.retryMs);
    this.timer.unref(); // never keeps the process alive: start-up recovery covers what is left
  }
}

const perStore = new WeakMap<HistoryStore, DeferredWrites>();

/** The queue of one history store (shared by every sweep writing to it). */
export function deferredWritesFor(history: HistoryStore, onError?: (label: string, error: unknown) => void): DeferredWrites {
  let d = perStore.get(history);
  if (!d) perStore.set(history, (d = new DeferredWrites(onError)));
  return d;
}
