// One Ctrl-C, however many times the wrappers in the terminal's group deliver it, is one press;
// the real relay (a run cancelled, not killed) is in tests/unit/engine/real-runner.test.ts.
import { describe, expect, it } from 'vitest';
import { onInterrupt, pressCounter } from '../../../electron/kernel';

describe('Ctrl-C presses', () => {
  it('counts deliveries within the window of the last press as that press', () => {
    const count = pressCounter(1000);
    expect(count(5_000)).toBe(1); // the terminal's SIGINT
    expect(count(5_030)).toBe(null); // tsx's relay after its 30 ms wait
    expect(count(5_400)).toBe(null); // npm's, late on a busy machine
    expect(count(6_500)).toBe(2); // the person pressing again
    expect(count(6_510)).toBe(null);
    expect(count(7_600)).toBe(3);
  });

  it('listens to SIGINT and SIGTERM while the command runs, and leaves no listener behind', async () => {
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    const presses: number[] = [];
    const off = onInterrupt((press) => presses.push(press), 50);
    try {
      process.emit('SIGINT');
      process.emit('SIGTERM'); // npm forwards the same press as it got it
      expect(presses).toEqual([1]);
      await new Promise((r) => setTimeout(r, 80));
      process.emit('SIGINT');
      expect(presses).toEqual([1, 2]);
    } finally {
      off();
    }
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
  });
});
