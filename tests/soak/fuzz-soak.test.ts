// The contract fuzz (short CI version; SOAK_FUZZ=100000 for the full one): seeded payloads spread over
// every request channel through backend.invoke, and as many runner protocol lines through the
// JSON-lines parser. Figures: crashes (anything but a named ApiError, or a throw from the parser),
// writes (row counts and data-folder files changed), prototype pollution. Payloads the contract's
// schema accepts are not sent (they would start real work) and are counted.
// RELIABILITY_SEED=<printed> replays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ApiError, channels, requests, type Channel } from '../../electron/contract';
import { createBackend, type Backend } from '../../electron/services/backend';
import { createStdoutParser } from '../../electron/services/engine';
import { fileList, rowCounts, seededRandom, tmpDir } from '../reliability/helpers';
import { keysOf, object, value } from './payloads';

const N = Number(process.env.SOAK_FUZZ ?? 5000);

describe(`fuzz soak: ${N} contract payloads + ${N} runner lines`, () => {
  let backend: Backend;
  let dataDir: string;
  beforeAll(() => {
    dataDir = tmpDir('os-fuzz-soak-');
    backend = createBackend({ dataDir, transport: 'server' });
  });
  afterAll(async () => backend?.close());

  it('every channel: 0 crashes, 0 writes, no pollution', { timeout: 590_000 }, async () => {
    const rng = seededRandom('fuzz-soak-contract');
    await backend.invoke('app/info', {});
    const before = { rows: rowCounts(dataDir), files: fileList(dataDir) };
    let sent = 0;
    let validSkipped = 0;
    const crashes: string[] = [];
    const started = Date.now();
    for (let i = 0; i < N; i++) {
      const channel = channels[i % channels.length] as Channel;
      const payload = rng.next() < 0.15 ? value(rng) : object(rng, keysOf(requests[channel].request));
      if ((requests[channel].request as z.ZodType).safeParse(payload ?? {}).success) {
        validSkipped++;
        continue;
      }
      sent++;
      const error = await backend.invoke(channel, payload).then(
        () => null,
        (e: unknown) => e,
      );
      if (!(error instanceof ApiError) || error.code !== 'bad_request')
        crashes.push(`${channel}: ${String(error).slice(0, 200)} ← ${JSON.stringify(payload)?.slice(0, 200)}`);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const after = { rows: rowCounts(dataDir), files: fileList(dataDir) };
    console.log(
      `[fuzz-soak] contract: ${sent} refused payloads over ${channels.length} channels in ${((Date.now() - started) / 1000).toFixed(1)} s (${validSkipped} valid not sent): ` +
        `${crashes.length} crashes, writes: ${JSON.stringify(after) === JSON.stringify(before) ? 0 : 'some'}`,
    );
    expect(crashes.slice(0, 5)).toEqual([]);
    expect(after).toEqual(before);
  });

  it(
    'runner protocol: random/mutated/invalid-UTF-8 lines in random chunks → 0 throws, every valid step parsed',
    { timeout: 590_000 },
    () => {
      const rng = seededRandom('fuzz-soak-jsonl');
      const step = (n: number) =>
        JSON.stringify({
          v: 1,
          type: 'step',
          t: 1,
          step: n,
          warmup: false,
          stepSeconds: 0.25,
          tokensPerSecond: 1,
          tflopsPerGpu: 1,
          tflopsAggregate: 1,
          loss: 2,
          gpuAllocatedBytes: null,
          gpuReservedBytes: null,
          gpuPeakBytes: null,
          hostRssBytes: 1,
        });
      const messages: { type: string; stepSeconds?: number }[] = [];
      const parser = createStdoutParser({
        message: (m) => messages.push(m as never),
        log: () => undefined,
        protocolError: () => undefined,
      });
      let valid = 0;
      let throws = 0;
      for (let i = 0; i < N; i++) {
        const r = rng.next();
        let line: Buffer;
        if (r < 0.3) line = Buffer.from(step(++valid));
        else if (r < 0.7) {
          const chars = [...step(1).replace('"step"', `"${rng.pick(['step', 'hello', 'result', 'error', 'config', 'memory', 'x'])}"`)];
          for (let k = rng.int(4); k >= 0; k--)
            chars.splice(rng.int(chars.length), rng.int(3), rng.pick(['{', '"', 'NaN', '\u0000', '9e999', '\ufffd', '']));
          line = Buffer.from(chars.join('').replace(/\n/g, ''));
        } else if (r < 0.9) line = Buffer.from(Array.from({ length: rng.int(300) }, () => rng.int(256)).filter((b) => b !== 0x0a));
        else line = Buffer.from([0x7b, 0xff, 0xfe, 0xc3, 0x28, 0x7d]);
        const bytes = Buffer.concat([line, Buffer.from('\n')]);
        for (let at = 0; at < bytes.length;) {
          const n = 1 + rng.int(200);
          try {
            parser.push(bytes.subarray(at, at + n));
          } catch {
            throws++;
          }
          at += n;
        }
      }
      parser.end();
      const parsed = messages.filter((m) => m.type === 'step' && m.stepSeconds === 0.25).length;
      console.log(`[fuzz-soak] runner protocol: ${N} lines, ${throws} throws, ${parsed}/${valid} valid steps parsed`);
      expect(throws).toBe(0);
      expect(parsed).toBeGreaterThanOrEqual(valid);
    },
  );
});
