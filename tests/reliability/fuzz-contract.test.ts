// Fuzzing every request channel of the contract (electron/contract/channels.ts) with random and
// mutated payloads — wrong types, huge strings, deep nesting, prototype-pollution keys — through
// backend.invoke and through the real WebSocket of a serve process. Every payload the contract's
// own schema refuses must be refused by the backend with code 'bad_request' and the field named,
// write nothing (row counts and data-folder files unchanged) and leave the server answering.
// Payloads the schema happens to accept are not sent (they would start real work: installs,
// measurements); they are counted. Seeded: the seed is printed, RELIABILITY_SEED reproduces.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { channels, requests, type Channel } from '../../electron/contract';
import { createBackend, type Backend } from '../../electron/services/backend';
import { WsClient, fileList, repoRoot, rowCounts, seededRandom, spawnServe, tmpDir, type ServeProcess } from './helpers';

type Rng = ReturnType<typeof seededRandom>;

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '/etc/shadow',
  '%2e%2e%2f',
  '<img src=x onerror=alert(1)>',
  '"><script>alert(1)</script>',
  '\u202egnp.exe',
  '\ud800',
  '💥'.repeat(50),
  'NaN',
  '1e309',
  '-1',
  '__proto__',
  'constructor',
  '${7*7}',
  "'; DROP TABLE runs; --",
];
const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype'];

function deep(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

function randomValue(rng: Rng, depth = 0): unknown {
  switch (rng.int(depth > 2 ? 9 : 12)) {
    case 0:
      return null;
    case 1:
      return rng.next() < 0.5;
    case 2:
      return rng.pick([0, -1, 1.5, 1e15, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31]);
    case 3:
      return rng.pick(HOSTILE_STRINGS);
    case 4:
      return 'x'.repeat(rng.pick([1, 100, 70_000]));
    case 5:
      return rng.int(1000);
    case 6:
      return rng.pick(['tiny-llama', 'zero3-offload', 'bf16', 'r-1', 'a']);
    case 7:
      return [];
    case 8:
      return {};
    case 9:
      return Array.from({ length: rng.int(4) }, () => randomValue(rng, depth + 1));
    case 10:
      return deep(rng.pick([50, 500]));
    default:
      return randomObject(rng, [], depth + 1);
  }
}

function randomObject(rng: Rng, knownKeys: string[], depth = 0): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  const n = rng.int(5);
  for (let i = 0; i < n; i++) {
    const key =
      rng.next() < 0.7 && knownKeys.length ? rng.pick(knownKeys) : rng.pick([...POLLUTION_KEYS, 'zz', 'id', 'ids', 'path', 'workload']);
    // defineProperty: '__proto__' becomes an own key, as JSON.parse makes it on the server.
    Object.defineProperty(obj, key, { value: randomValue(rng, depth), enumerable: true, configurable: true, writable: true });
  }
  return obj;
}

function keysOf(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

/** One fuzz payload for a channel: random top-level values, or a mutated object of its keys. */
function payloadFor(rng: Rng, channel: Channel): unknown {
  const r = rng.next();
  if (r < 0.15) return randomValue(rng);
  if (r < 0.25) return JSON.parse(`{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}`);
  return randomObject(rng, keysOf(requests[channel].request));
}

const refusedLocally = (channel: Channel, payload: unknown) => !(requests[channel].request as z.ZodType).safeParse(payload ?? {}).success;

function assertNotPolluted() {
  expect(({} as Record<string, unknown>).polluted, 'Object.prototype polluted').toBeUndefined();
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
}

describe('fuzz: contract request schemas', () => {
  let backend: Backend;
  let dataDir: string;
  let serve: ServeProcess;
  let ws: WsClient;
  beforeAll(async () => {
    dataDir = tmpDir('os-fuzz-');
    backend = createBackend({ dataDir, transport: 'server' });
    serve = await spawnServe(tmpDir('os-fuzz-serve-'));
    ws = await WsClient.connect(serve.origin, serve.token);
  });
  afterAll(async () => {
    ws?.close();
    await serve?.stop();
    await backend?.close();
  });

  it(
    'backend.invoke: every refused payload → bad_request with the field, nothing written, no pollution',
    { timeout: 120_000 },
    async () => {
      const rng = seededRandom('fuzz-invoke');
      const before = { rows: rowCounts(dataDir), files: fileList(dataDir) };
      let sent = 0;
      let skippedValid = 0;
      for (const channel of channels)
        for (let i = 0; i < 60; i++) {
          const payload = payloadFor(rng, channel);
          if (!refusedLocally(channel, payload)) {
            skippedValid++;
            continue;
          }
          sent++;
          const error = await backend.invoke(channel, payload).then(
            () => null,
            (e: unknown) => e,
          );
          const context = `seed ${rng.seed}, ${channel}, payload ${JSON.stringify(payload)?.slice(0, 300)}`;
          expect(error, context).toMatchObject({ code: 'bad_request', field: expect.any(String) });
          expect((error as Error).message, context).toContain((error as { field: string }).field);
        }
      assertNotPolluted();
      expect({ rows: rowCounts(dataDir), files: fileList(dataDir) }).toEqual(before);
      console.log(`[fuzz-invoke] ${sent} refused payloads over ${channels.length} channels; ${skippedValid} valid ones not sent`);
      expect(sent).toBeGreaterThan(channels.length * 30);
    },
  );

  it('WebSocket of a real serve: refused with code + field, nothing written, the server still answers', { timeout: 180_000 }, async () => {
    const rng = seededRandom('fuzz-ws');
    await ws.value('app/info', {});
    const before = { rows: rowCounts(serve.dataDir), files: fileList(serve.dataDir) };
    let sent = 0;
    for (const channel of channels)
      for (let i = 0; i < 15; i++) {
        const payload = payloadFor(rng, channel);
        if (!refusedLocally(channel, payload)) continue;
        sent++;
        const answer = await ws.request(channel, payload);
        const context = `seed ${rng.seed}, ${channel}, payload ${JSON.stringify(payload)?.slice(0, 300)}`;
        expect(answer, context).toMatchObject({ ok: false, error: { code: 'bad_request', field: expect.any(String) } });
      }
    // Broken frames: not JSON, not an object, unknown channels, ids of every type.
    const broken = [
      '',
      '{',
      'null',
      '[]',
      '"x"',
      '{"id":1}',
      '{"id":{},"channel":"nope/x"}',
      '{"id":2,"channel":"__proto__"}',
      '{"id":3,"channel":"constructor"}',
      '{"id":4,"channel":"toString"}',
      `{"id":5,"channel":"app/info","payload":${JSON.stringify(deep(3000))}}`,
    ];
    for (const text of broken) {
      const id = Number(/"id":(\d+)/.exec(text)?.[1] ?? -1);
      const answer = await ws.sendRaw(text, id, 5000);
      expect(answer.ok, text.slice(0, 80)).toBe(false);
      expect((answer as { error: { code: string } }).error.code, text.slice(0, 80)).toMatch(/bad_request|unknown_channel/);
    }
    expect(ws.open).toBe(true);
    expect(await ws.value<{ name: string }>('app/info', {})).toMatchObject({ name: expect.any(String) });
    expect({ rows: rowCounts(serve.dataDir), files: fileList(serve.dataDir) }).toEqual(before);
    expect(serve.child.exitCode, serve.output().slice(-2000)).toBeNull();
    console.log(`[fuzz-ws] ${sent} refused payloads + ${broken.length} broken frames; server alive`);
  });

  it(
    'a request over 1 MiB is answered too_large with its size (the socket stays open); runs/import of a 2.7 MB file is taken',
    { timeout: 60_000 },
    async () => {
      expect(serve.child.exitCode, serve.output().slice(-2000)).toBeNull();
      const big = await WsClient.connect(serve.origin, serve.token);
      const answer = await big.sendRaw(
        JSON.stringify({ id: 1, channel: 'runs/list', payload: { model: 'x'.repeat(2 * 1024 * 1024) } }),
        1,
        10_000,
      );
      expect(answer).toMatchObject({
        ok: false,
        error: {
          code: 'too_large',
          message: expect.stringMatching(
            /runs\/list request is 2\.0 MiB; serve takes at most 1\.0 MiB per request \(runs\/import: 129\.0 MiB\)/,
          ),
        },
      });
      expect(big.open).toBe(true);
      // A runs file of 2.7 MB (one run, 40,000 sample rows): the 1 MiB frame limit closed the socket unanswered.
      const file = JSON.parse(fs.readFileSync(path.join(repoRoot, 'resources/samples/h200-llama-3.2-3b-tune.runs.json'), 'utf8'));
      const entry = file.runs[0];
      entry.run.id = 'r-big-import-1';
      const row = entry.samples.rows[entry.samples.rows.length - 1];
      entry.samples.rows = Array.from({ length: 40_000 }, (_, k) => {
        const r = [...row];
        r[0] = k + 1;
        return r;
      });
      file.runs = [entry];
      const content = JSON.stringify(file);
      expect(content.length).toBeGreaterThan(2.5e6);
      const imported = await big.request('runs/import', { content, name: 'big.runs.json' });
      expect(imported, JSON.stringify(imported).slice(0, 500)).toMatchObject({ ok: true });
      big.close();
      const fresh = await WsClient.connect(serve.origin, serve.token);
      expect((await fresh.request('app/info', {})).ok).toBe(true);
      fresh.close();
    },
  );
});
