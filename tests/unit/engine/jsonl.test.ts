import { describe, expect, it } from 'vitest';
import { createStdoutParser, LineSplitter, parseProtocolLine } from '../../../electron/services/engine';
import type { RunnerMessage } from '../../../electron/contract';

const step = (n: number, extra = '') =>
  `{"v":1,"type":"step","t":1.5,"step":${n},"warmup":${n === 1},"stepSeconds":0.25,"tokensPerSecond":128,"tflopsPerGpu":0.5,"tflopsAggregate":0.5,"loss":5.5,"gpuAllocatedBytes":null,"gpuReservedBytes":null,"gpuPeakBytes":null,"hostRssBytes":1000${extra}}`;

// A sample stream with every kind of line the runner's stdout can carry.
const SAMPLE =
  [
    '{"v":1,"type":"hello","t":1,"runnerVersion":"0.1.0","python":"3.11","torch":"2.11","deepspeed":"0.19.8","cuda":null,"accelerator":"cpu","devices":[],"rank":0,"worldSize":1,"hostname":"h","pid":7}',
    'Using /root/.cache/torch_extensions as PyTorch extensions root… ✓ é 漢字',
    step(1),
    step(2, ',"hostRssChildrenBytes":5'),
    '{"v":1,"type":"telemetry","t":2}',
    '{"v":1,"type":"result","t":3,"status":"completed","measuredSteps":1,"stepSeconds":{"median":0.25,"min":0.25,"max":0.25,"mean":0.25},"tflopsPerGpu":{"median":0.5,"min":0.5,"max":0.5,"mean":0.5},"tflopsAggregate":null,"tokensPerSecond":{"median":128,"min":128,"max":128,"mean":128},"peakGpuBytes":null,"peakHostBytes":1000,"lossFirst":5.5,"lossLast":5.4,"overheadFraction":0.001}',
  ].join('\r\n') + '\n';

function collect(maxLineBytes?: number) {
  const messages: RunnerMessage[] = [];
  const logs: string[] = [];
  const problems: string[] = [];
  const parser = createStdoutParser(
    { message: (m) => messages.push(m), log: (l) => logs.push(l), protocolError: (p) => problems.push(p) },
    maxLineBytes,
  );
  return { parser, messages, logs, problems };
}

describe('JSON-lines parser', () => {
  it('gives the same messages and log for a chunk split at every byte boundary', () => {
    const bytes = Buffer.from(SAMPLE, 'utf8');
    const whole = collect();
    whole.parser.push(bytes);
    whole.parser.end();
    expect(whole.messages.map((m) => m.type)).toEqual(['hello', 'step', 'step', 'result']);
    expect(whole.logs).toHaveLength(2); // the library line and the unknown type
    expect(whole.logs[0]).toContain('漢字');
    expect(whole.problems).toEqual([]);
    for (let cut = 1; cut < bytes.length; cut++) {
      const split = collect();
      split.parser.push(bytes.subarray(0, cut));
      split.parser.push(bytes.subarray(cut));
      split.parser.end();
      expect(split.messages, `cut at ${cut}`).toEqual(whole.messages);
      expect(split.logs, `cut at ${cut}`).toEqual(whole.logs);
    }
  });

  it('survives one byte per chunk', () => {
    const bytes = Buffer.from(SAMPLE, 'utf8');
    const c = collect();
    for (const b of bytes) c.parser.push(Buffer.from([b]));
    c.parser.end();
    expect(c.messages.map((m) => m.type)).toEqual(['hello', 'step', 'step', 'result']);
  });

  it('keeps fields a newer runner adds (passthrough) and strips CR', () => {
    const c = collect();
    c.parser.push(step(2, ',"hostRssChildrenBytes":5') + '\r\n');
    expect((c.messages[0] as Record<string, unknown>).hostRssChildrenBytes).toBe(5);
  });

  it('drops a line over the cap with a clear protocol error and resynchronises', () => {
    const c = collect(1024);
    c.parser.push(`${'x'.repeat(700)}`);
    c.parser.push(`${'x'.repeat(700)}\n${step(3)}\n`);
    c.parser.end();
    expect(c.problems[0]).toMatch(/1400 bytes exceeded the 1024-byte limit/);
    expect(c.messages.map((m) => m.type)).toEqual(['step']);
  });

  it('handles a 1 MiB+ line at the default cap without holding it', () => {
    const c = collect();
    const huge = Buffer.alloc(3 * 1024 * 1024, 0x61);
    c.parser.push(huge);
    c.parser.push(Buffer.from(`\n${step(4)}\n`));
    expect(c.problems).toHaveLength(1);
    expect(c.messages).toHaveLength(1);
  });

  it('logs invalid UTF-8 (with replacement characters) instead of failing', () => {
    const c = collect();
    c.parser.push(
      Buffer.concat([Buffer.from('bad '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' bytes\n'), Buffer.from(step(5) + '\n')]),
    );
    expect(c.logs[0]).toContain('invalid UTF-8');
    expect(c.logs[0]).toContain('\uFFFD');
    expect(c.messages).toHaveLength(1);
  });

  it("reads a protocol line behind pdsh's `host: ` prefix, and leaves other prefixed lines as log", () => {
    const line = step(7);
    const plain = parseProtocolLine(line);
    const prefixed = parseProtocolLine(`node-2.cluster: ${line}`);
    expect(prefixed.kind).toBe('message');
    expect(prefixed).toMatchObject({ kind: 'message', message: (plain as { message: unknown }).message });
    expect(parseProtocolLine('warning: {not ours}').kind).toBe('log');
    expect(parseProtocolLine('gpu1: [rank1] starting').kind).toBe('log');
  });

  it('treats non-JSON and foreign JSON as log, bad protocol lines as invalid, and NaN as null', () => {
    expect(parseProtocolLine('hello world').kind).toBe('log');
    expect(parseProtocolLine('{"loss": 1}').kind).toBe('log');
    expect(parseProtocolLine('{broken').kind).toBe('log');
    expect(parseProtocolLine('{"v":1,"type":"mystery","t":0}')).toMatchObject({ kind: 'unknown', type: 'mystery' });
    expect(parseProtocolLine('{"v":2,"type":"step","t":0}')).toMatchObject({ kind: 'invalid' });
    const bad = parseProtocolLine('{"v":1,"type":"step","t":0,"step":"three"}');
    expect(bad.kind).toBe('invalid');
    expect(bad.kind === 'invalid' && bad.reason).toMatch(/field 'step'/);
    const nan = parseProtocolLine(step(6).replace('"loss":5.5', '"loss":NaN'));
    expect(nan.kind).toBe('message');
    expect(nan.kind === 'message' && nan.message.type === 'step' && nan.message.loss).toBeNull();
  });

  it('counts a last line without a newline at end of stream', () => {
    const lines: string[] = [];
    const s = new LineSplitter({ line: (t) => lines.push(t), overflow: () => {} });
    s.push('a\nb');
    s.end();
    expect(lines).toEqual(['a', 'b']);
  });
});
