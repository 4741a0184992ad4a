// The runner's stdout, turned into validated protocol messages.
//
// Two layers: LineSplitter cuts a byte stream into lines (chunks may end anywhere, even inside a
// multi-byte character: splitting on the byte 0x0A is safe because it never occurs inside a
// UTF-8 sequence, and decoding happens per whole line), and parseProtocolLine classifies one
// line. Anything that is not a protocol line is kept as log, never fatal: libraries print to
// stdout, and a runner bug must not lose the run.
import { describeIssue, runnerMessageSchemas, type RunnerMessage } from '../../contract';

export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

export interface SplitterEvents {
  line(text: string, info: { invalidUtf8: boolean }): void;
  /** A line longer than the cap: its content is dropped, the stream resynchronises at the next newline. */
  overflow(bytes: number): void;
}

const NEWLINE = 0x0a;
const CR = 0x0d;
const strictDecoder = new TextDecoder('utf-8', { fatal: true });
const lenientDecoder = new TextDecoder('utf-8', { fatal: false });

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of the current over-long line seen so far (≥ 0 while discarding). */
  private discarding = -1;

  constructor(
    private readonly events: SplitterEvents,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer | Uint8Array | string): void {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    while (buf.length > 0) {
      const nl = buf.indexOf(NEWLINE);
      if (nl < 0) {
        this.hold(buf);
        return;
      }
      this.hold(buf.subarray(0, nl));
      this.endLine();
      buf = buf.subarray(nl + 1);
    }
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    if (this.pendingBytes > 0 || this.discarding >= 0) this.endLine();
  }

  private hold(part: Buffer): void {
    if (part.length === 0) return;
    if (this.discarding >= 0) {
      this.discarding += part.length;
      return;
    }
    if (this.pendingBytes + part.length > this.maxLineBytes) {
      this.discarding = this.pendingBytes + part.length;
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    // Copy: the caller may reuse its chunk buffer.
    this.pending.push(Buffer.from(part));
    this.pendingBytes += part.length;
  }

  private endLine(): void {
    if (this.discarding >= 0) {
      const bytes = this.discarding;
      this.discarding = -1;
      this.events.overflow(bytes);
      return;
    }
    let line = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    let text: string;
    let invalidUtf8 = false;
    try {
      text = strictDecoder.decode(line);
    } catch {
      invalidUtf8 = true;
      text = lenientDecoder.decode(line); // U+FFFD for each bad sequence
    }
    this.events.line(text, { invalidUtf8 });
  }
}

export type ParsedLine =
  | { kind: 'message'; message: RunnerMessage }
  | { kind: 'log'; text: string } // not JSON (library output): part of the log
  | { kind: 'unknown'; type: string; text: string } // a message type this app does not know: logged, ignored
  | { kind: 'invalid'; reason: string; text: string }; // JSON that claims to be protocol but breaks it

// Python's json.dumps writes NaN/Infinity as bare tokens, which JSON.parse refuses. The bundled
// runner maps them to null itself; an older/foreign runner may not, so retry with them nulled.
const BARE_NON_FINITE = /(?<=[:,[]\s*)-?(?:NaN|Infinity)(?=\s*[,\]}])/g;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (/NaN|Infinity/.test(text)) return JSON.parse(text.replace(BARE_NON_FINITE, 'null'));
    throw error;
  }
}

/**
 * pdsh (DeepSpeed's multi-node launcher) prefixes every line a host prints with `host: `; the
 * protocol object after it is read as if the host had printed it alone. Only a prefix followed by
 * '{' is taken off, so a library's `warning: …` line stays as it is.
 */
const PDSH_PREFIX = /^[A-Za-z0-9][A-Za-z0-9._-]*: (?=\{)/;

export function parseProtocolLine(text: string): ParsedLine {
  const trimmed = text.trim().replace(PDSH_PREFIX, '');
  if (!trimmed.startsWith('{')) return { kind: 'log', text };
  let value: unknown;
  try {
    value = parseJson(trimmed);
  } catch {
    return { kind: 'log', text };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { kind: 'log', text };
  const obj = value as Record<string, unknown>;
  // A JSON object without our markers is some library's output, not a broken protocol line.
  if (!('v' in obj) || typeof obj.type !== 'string') return { kind: 'log', text };
  if (obj.v !== 1) return { kind: 'invalid', reason: `protocol version ${JSON.stringify(obj.v)} (this app speaks 1)`, text };
  const schema = (runnerMessageSchemas as Record<string, (typeof runnerMessageSchemas)[keyof typeof runnerMessageSchemas]>)[obj.type];
  if (!schema) return { kind: 'unknown', type: obj.type, text };
  const parsed = schema.safeParse(obj);
  if (!parsed.success) {
    return { kind: 'invalid', reason: `'${obj.type}' message: ${describeIssue(parsed.error)}`, text };
  }
  return { kind: 'message', message: parsed.data as RunnerMessage };
}

export interface StdoutParserEvents {
  message(message: RunnerMessage): void;
  /** A line for the run's log (library output, unknown types, protocol problems, with a prefix saying which). */
  log(line: string): void;
  /** A protocol problem worth surfacing (counted; the run goes on). */
  protocolError?(reason: string): void;
}

const preview = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** Splitter + line parser: feed it stdout chunks. */
export function createStdoutParser(events: StdoutParserEvents, maxLineBytes = DEFAULT_MAX_LINE_BYTES): LineSplitter {
  return new LineSplitter(
    {
      line(text, { invalidUtf8 }) {
        if (invalidUtf8) {
          events.log(`[stdout, invalid UTF-8] ${text}`);
          events.protocolError?.('a stdout line was not valid UTF-8');
          return;
        }
        if (text.length === 0) return;
        const parsed = parseProtocolLine(text);
        switch (parsed.kind) {
          case 'message':
            events.message(parsed.message);
            break;
          case 'log':
            events.log(`[stdout] ${text}`);
            break;
          case 'unknown':
            events.log(`[protocol] ignored message of unknown type '${parsed.type}': ${preview(text)}`);
            break;
          case 'invalid':
            events.log(`[protocol] invalid line (${parsed.reason}): ${preview(text)}`);
            events.protocolError?.(parsed.reason);
            break;
        }
      },
      overflow(bytes) {
        const reason = `a stdout line of ${bytes} bytes exceeded the ${maxLineBytes}-byte limit and was dropped`;
        events.log(`[protocol] ${reason}`);
        events.protocolError?.(reason);
      },
    },
    maxLineBytes,
  );
}
