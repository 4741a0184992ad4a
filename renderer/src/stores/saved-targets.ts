// What the stores of saved targets (ssh clusters, Slurm targets) do alike: one action at a time,
// named in `busy` so its button can say what it is doing, its error kept for the page, and the
// list read again after a change.

/** The part of such a store's state these actions write. */
type SetStatus = (partial: { busy?: string | null; error?: string | null }) => void;

/** Runs `fn` as the action `what` (busy meanwhile); a failure becomes the store's `error`. */
export type Guard = (what: string, fn: () => Promise<void>) => Promise<void>;

export function busyGuard(set: SetStatus): Guard {
  return async (what, fn) => {
    set({ busy: what, error: null });
    try {
      await fn();
    } catch (error) {
      set({ error: (error as Error).message });
    } finally {
      set({ busy: null });
    }
  };
}

/** The calls that differ between the kinds of target: the channels, and where a pre-flight result is kept. */
export interface SavedTargetCalls<T, P> {
  save(target: T): Promise<unknown>;
  remove(name: string): Promise<unknown>;
  preflight(name: string): Promise<P>;
  keepPreflight(name: string, result: P): void;
  reload(): Promise<void>;
}

export function savedTargetActions<T, P>(guard: Guard, calls: SavedTargetCalls<T, P>) {
  return {
    /** True once the target is saved (a failing reload after it does not unsay that). */
    async save(target: T): Promise<boolean> {
      let ok = false;
      await guard('save', async () => {
        await calls.save(target);
        ok = true;
        await calls.reload();
      });
      return ok;
    },
    async remove(name: string): Promise<void> {
      await guard('delete', async () => {
        await calls.remove(name);
        await calls.reload();
      });
    },
    async runPreflight(name: string): Promise<void> {
      await guard(`preflight:${name}`, async () => calls.keepPreflight(name, await calls.preflight(name)));
    },
  };
}
