// What every handler module gets: the data folder, the open history store, and a way to emit events.
import type { EventName, EventOf, Machine } from '../../contract';
import type { HistoryStore } from '../history';

export interface BackendContext {
  dataDir: string;
  transport: 'electron' | 'server' | 'cli';
  history: HistoryStore;
  /** The machine (detected once and cached, or the --machine file); refresh re-detects. */
  machine(refresh?: boolean): Promise<Machine>;
  emit<E extends EventName>(event: E, payload: EventOf<E>): void;
  /**
   * Tell the user something: emitted as 'app/notice' and kept until a client acknowledges it
   * (app/notice-ack), so a window or browser that connects later still sees it (app/notices).
   */
  notify(level: EventOf<'app/notice'>['level'], message: string): void;
  /** Functions to run on close (stop child processes, close files). */
  onClose(fn: () => void | Promise<void>): void;
}
