// The one median of the app: every figure called a median (a run's steps, a group's repeats, the
// resource attribution's measured steps) is this one. An even count takes the mean of the two
// middle values, as the runner's flops.py summary does — once `runs show ID --resources` took the
// upper middle value and printed 1.150 s where every other place said 1.092 s for the same run.

/** The median of the finite values (others are left out); null when none is left. */
export function median(values: readonly (number | null | undefined)[]): number | null {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  const n = xs.length;
  if (n === 0) return null;
  const mid = Math.floor(n / 2);
  return n % 2 === 1 ? xs[mid] : halfway(xs[mid - 1], xs[mid]);
}

/** (a + b) / 2 that stays finite near Number.MAX_VALUE, where a + b alone overflows. */
function halfway(a: number, b: number): number {
  return Number.isFinite(a + b) ? (a + b) / 2 : a / 2 + b / 2;
}
