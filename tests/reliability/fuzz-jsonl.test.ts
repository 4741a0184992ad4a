// Fuzzing the runner's JSON-lines parser (services/engine/jsonl.ts): random bytes, mutated
// protocol messages, huge lines, invalid UTF-8, cut at random chunk boundaries. It must never
// throw, must keep memory bounded (an endless line is dropped at the cap, not buffered), and
// every valid message fed whole must come out. Seeded; the seed is printed.
import { describe, expect, it } from 'vitest';
import { createStdoutParser, DEFAULT_MAX_LINE_BYTES } from '../../electron/services/engine';
import { seededRandom } from './helpers';

const step = (n: number) => ({
  v: 1,
  type: 'step',
  t: 1,
  step: n,
  warmup: false,
  stepSeconds: 0.1,
  tokensPerSecond: 1,
  tflopsPerGpu: 1,
  tflopsAggregate: 1,
  loss: 2,
  gpuAllocatedBytes: null,
  gpuReservedBytes: null,
  gpuPeakBytes: null,
  hostRssBytes: 1,
});

function mutate(rng: ReturnType<typeof seededRandom>, text: string): string {
  const chars = [...text];
  for (let k = rng.int(4); k >= 0; k--) {
    const i = rng.int(chars.length);
    switch (rng.int(4)) {
      case 0:
        chars.splice(i, 1);
        break;
      case 1:
        chars.splice(i, 0, rng.pick(['{', '}', '"', ',', 'NaN', '\u0000', '\\', ':', '9e999', '\ufffd']));
        break;
      case 2:
        chars[i] = String.fromCharCode(rng.int(128));
        break;
      default:
        chars.splice(i, chars.length);
        break;
    }
  }
  return chars.join('').replace(/\n/g, '');
}

describe('fuzz: runner JSON-lines parser', () => {
  it('random and mutated lines, random chunking, invalid UTF-8: no throw, valid messages all parsed', () => {
    const rng = seededRandom('fuzz-jsonl');
    const messages: unknown[] = [];
    let logs = 0;
    const parser = createStdoutParser({ message: (m) => messages.push(m), log: () => logs++, protocolError: () => undefined });
    const chunks: Buffer[] = [];
    let validSent = 0;
    for (let i = 0; i < 5000; i++) {
      const r = rng.next();
      let line: Buffer;
      if (r < 0.3) {
        line = Buffer.from(JSON.stringify(step(++validSent)));
      } else if (r < 0.7)
        line = Buffer.from(
          mutate(rng, JSON.stringify({ ...step(1), type: rng.pick(['step', 'hello', 'result', 'error', 'config', 'memory', 'x']) })),
        );
      else if (r < 0.85) line = Buffer.from(Array.from({ length: rng.int(200) }, () => rng.int(256)).filter((b) => b !== 0x0a));
      else line = Buffer.from([0x7b, 0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82, 0x7d]); // '{' + invalid UTF-8 + '}'
      chunks.push(line, Buffer.from(rng.next() < 0.2 ? '\r\n' : '\n'));
    }
    const stream = Buffer.concat(chunks);
    // Cut the stream at random places (inside multi-byte characters too).
    for (let at = 0; at < stream.length;) {
      const n = 1 + rng.int(300);
      expect(() => parser.push(stream.subarray(at, at + n))).not.toThrow();
      at += n;
    }
    parser.end();
    const steps = messages.filter(
      (m) =>
        (m as { type: string }).type === 'step' &&
        (m as { warmup: boolean }).warmup === false &&
        (m as { stepSeconds: number }).stepSeconds === 0.1,
    );
    expect(steps.length).toBeGreaterThanOrEqual(validSent);
    expect(logs).toBeGreaterThan(0);
  });

  it('a 64 MiB line without a newline is dropped at the cap with memory bounded, and the stream resynchronises', () => {
    const events: string[] = [];
    const messages: unknown[] = [];
    const parser = createStdoutParser({ message: (m) => messages.push(m), log: (l) => events.push(l.slice(0, 120)) });
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    global.gc?.();
    const before = process.memoryUsage().arrayBuffers + process.memoryUsage().heapUsed;
    let peak = 0;
    for (let i = 0; i < 64; i++) {
      parser.push(chunk);
      peak = Math.max(peak, process.memoryUsage().arrayBuffers + process.memoryUsage().heapUsed - before);
    }
    parser.push(`\n${JSON.stringify(step(7))}\n`);
    parser.end();
    expect(events.some((l) => /exceeded the \d+-byte limit/.test(l))).toBe(true);
    expect(messages).toHaveLength(1);
    // Held bytes never exceed the cap (plus one chunk in flight and GC slack).
    expect(peak, `peak extra memory ${(peak / 1e6).toFixed(1)} MB`).toBeLessThan(DEFAULT_MAX_LINE_BYTES * 2 + 48 * 1024 * 1024);
  });
});
