// pip's output lines → install progress. pip gives no overall fraction, so the fraction is an
// honest rough one: downloads done / packages collected during the download phase, fixed
// points for the install and verify phases. Pure and stateful only through the tracker object.
import type { InstallProgress } from '../../contract';

export type PipEvent = { phase: InstallProgress['phase']; message: string } | null;

export function parsePipLine(line: string): PipEvent {
  const l = line.trim();
  if (!l) return null;
  let m: RegExpExecArray | null;
  if ((m = /^Collecting\s+(\S+)/.exec(l))) return { phase: 'collecting', message: `Collecting ${m[1]}` };
  if ((m = /^Downloading\s+(\S+)(?:\s+\(([^)]+)\))?/.exec(l)))
    return { phase: 'downloading', message: `Downloading ${m[1].split('/').pop()}${m[2] ? ` (${m[2]})` : ''}` };
  if (/^Using cached\s+/.exec(l)) return { phase: 'downloading', message: l };
  if ((m = /^Installing collected packages:\s*(.*)$/.exec(l))) return { phase: 'installing', message: `Installing ${m[1]}` };
  if ((m = /^Successfully installed\s+(.*)$/.exec(l))) return { phase: 'installing', message: `Installed ${m[1]}` };
  if (/^Requirement already satisfied/.test(l)) return { phase: 'collecting', message: l };
  if (/^(ERROR|error):/.test(l)) return { phase: 'failed', message: l };
  return null;
}

export class PipProgress {
  private collected = 0;
  private downloaded = 0;
  private last = 0;

  constructor(private readonly span: [number, number] = [0.05, 0.95]) {}

  /** Fraction for this event inside the tracker's span, never going backwards. */
  fraction(event: NonNullable<PipEvent>): number | null {
    if (event.phase === 'collecting') this.collected++;
    if (event.phase === 'downloading') this.downloaded++;
    let f: number | null = null;
    if (event.phase === 'collecting' || event.phase === 'downloading') f = 0.7 * Math.min(1, this.downloaded / Math.max(1, this.collected));
    else if (event.phase === 'installing') f = /^Installed/.test(event.message) ? 1 : 0.8;
    if (f === null) return null;
    const [a, b] = this.span;
    this.last = Math.max(this.last, a + (b - a) * f);
    return this.last;
  }
}
