// Human formatting for terminal output: the same as the UI's and the reports'.
export { formatBytes, formatDuration, formatRate } from '../contract/format';
import { formatFigure } from '../contract/format';

/** A measured figure for a terminal: the shared formatter (three significant digits under 1), without thousands separators. */
export const formatFigureCli = (value: number | null | undefined, digits = 1): string => formatFigure(value, digits, false);

// Control characters (ESC sequences, CR, C1) and bidirectional overrides (U+202E) from a runner,
// a file or a config would drive the terminal: clear it, rewrite a line, retitle the window, or
// show text reversed. Everything the CLI prints goes through this: each is written as \uXXXX
// (also valid inside JSON strings, so --json output stays parseable). Tab and newline are kept.
// eslint-disable-next-line no-control-regex
const UNSAFE_FOR_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE_FOR_TERMINAL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
