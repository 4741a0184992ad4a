// Ctrl-C as the user pressed it, not as the signal arrived (the CLI's commands and `serve`).
//
// One press of Ctrl-C can reach the CLI more than once: the terminal signals its whole
// foreground group, and the wrappers in that group pass it on to their child as well (`npm run`
// forwards SIGINT and SIGTERM; tsx's parent process re-sends SIGINT when the child has not
// acknowledged it within 30 ms, which is the normal case on a machine whose cores the run keeps
// busy). Counted one by one, a single press read as "Ctrl-C again": the run was SIGKILLed instead
// of cancelled, and its exit code and last steps were lost; `serve` skipped its graceful stop.
// Deliveries that follow the last press within SAME_PRESS_MS are the same press.

/** Deliveries closer than this to the last press are that press, relayed (a person's second press takes longer). */
export const SAME_PRESS_MS = 1000;

/** Returns a counter of presses: called with each delivery's time, it says which press it began, or null for a relay. */
export function pressCounter(windowMs = SAME_PRESS_MS): (atMs: number) => number | null {
  let presses = 0;
  let lastPressAt = -Infinity;
  return (atMs) => {
    if (atMs - lastPressAt < windowMs) return null;
    lastPressAt = atMs;
    return ++presses;
  };
}

/**
 * Calls `onPress(n)` for the n-th press of Ctrl-C (SIGINT, or SIGTERM from a wrapper or a kill)
 * while the command runs; relayed deliveries of the same press are swallowed. The listeners stay
 * until the returned function removes them, so a relayed signal never finds none (Node would end
 * the process at once).
 */
export function onInterrupt(onPress: (press: number) => void, windowMs = SAME_PRESS_MS): () => void {
  const count = pressCounter(windowMs);
  const listener = () => {
    const press = count(performance.now());
    if (press !== null) onPress(press);
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
  return () => {
    process.off('SIGINT', listener);
    process.off('SIGTERM', listener);
  };
}
