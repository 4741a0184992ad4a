// The contract fuzz over the wire (short CI version; SOAK_WS_FUZZ=100000 for the full one): seeded
// payloads spread over every request channel, sent to a live `serve` over its WebSocket (16 in
// flight, as a busy page would), plus a broken frame every 50 (not JSON, not an object, ids of
// every type, unknown and prototype channel names). Figures: crashes (serve exited, the socket
// closed, an answer missing or anything but `bad_request`/`unknown_channel`), writes (history.db
// row counts and data-folder files), and whether serve still answers (the same socket, a new one,
// /healthz). Payloads the contract's schema accepts are not sent (they would start real work) and
// are counted. RELIABILITY_SEED=<printed> replays.
import { afterAll, describe, expect, it } from 'vitest';
import { channels, type Channel } from '../../electron/contract';
import { WsClient, fileList, rowCounts, seededRandom, spawnServe, tmpDir, type ServeProcess } from '../reliability/helpers';
import { acceptedBySchema, payloadFor, value } from './payloads';

const N = Number(process.env.SOAK_WS_FUZZ ?? 2000);
const WINDOW = 16;

let serve: ServeProcess | null = null;
let ws: WsClient | null = null;
afterAll(async () => {
  ws?.close();
  await serve?.stop();
});

describe(`fuzz soak over the WebSocket of a live serve: ${N} payloads`, () => {
  it('every channel: 0 crashes, 0 writes, serve answers after', { timeout: 60_000 + N * 20 }, async () => {
    const rng = seededRandom('fuzz-ws-soak');
    serve = await spawnServe(tmpDir('os-fuzz-ws-soak-'));
    ws = await WsClient.connect(serve.origin, serve.token);
    await ws.value('app/info', {});
    await ws.value('runs/list', {});
    await new Promise((r) => setTimeout(r, 2000)); // start-up work (hardware detection) settles
    const before = { rows: rowCounts(serve.dataDir), files: fileList(serve.dataDir) };
    let sent = 0;
    let validSkipped = 0;
    let brokenSent = 0;
    const crashes: string[] = [];
    const codes = new Map<string, number>();
    const check = (answer: { ok: boolean; error?: { code: string } }, what: () => string) => {
      const code = answer.ok ? 'ok' : answer.error!.code;
      codes.set(code, (codes.get(code) ?? 0) + 1);
      if (code !== 'bad_request' && code !== 'unknown_channel') crashes.push(`${code}: ${what()}`);
    };
    const inFlight = new Set<Promise<void>>();
    const started = Date.now();
    for (let i = 0; i < N; i++) {
      if (i % 50 === 49) {
        // A broken frame, alone on the wire (its answer comes back with id null).
        await Promise.all(inFlight);
        const id = rng.int(3) === 0 ? 1e9 + i : -1;
        const text = rng.pick([
          '',
          '{',
          'null',
          '[]',
          '"x"',
          `{"id":${id}}`,
          `{"id":${JSON.stringify(value(rng))},"channel":"nope/x"}`,
          `{"id":${id},"channel":"__proto__"}`,
          `{"id":${id},"channel":"constructor"}`,
          `{"id":${id},"channel":"hasOwnProperty","payload":{}}`,
          `{"id":${id},"channel":${JSON.stringify(rng.pick(channels))},"payload":${JSON.stringify(value(rng))}`,
          Buffer.from([0x7b, 0xff, 0xfe, 0xc3, 0x28, 0x7d]).toString('latin1'),
        ]);
        // The answer carries the frame's id when it parses (any type; WsClient keys a non-number as -1).
        let realId = -1;
        try {
          const id = (JSON.parse(text) as { id?: unknown } | null)?.id;
          if (typeof id === 'number') realId = id;
        } catch {
          // not JSON: id null
        }
        brokenSent++;
        check(await ws.sendRaw(text, realId, 15_000), () => `broken frame ${JSON.stringify(text.slice(0, 120))}`);
        continue;
      }
      const channel = channels[i % channels.length] as Channel;
      // What the server receives: JSON turns NaN/Infinity into null (and `{dataDir: NaN}` into a valid reset).
      const generated = payloadFor(rng, channel);
      const text = JSON.stringify(generated);
      const payload: unknown = text === undefined ? undefined : JSON.parse(text);
      if (acceptedBySchema(channel, payload)) {
        validSkipped++;
        continue;
      }
      sent++;
      const p: Promise<void> = ws.request(channel, payload, 30_000).then((answer) => {
        check(answer, () => `${channel} ← ${JSON.stringify(payload)?.slice(0, 200)}`);
        inFlight.delete(p);
      });
      inFlight.add(p);
      if (inFlight.size >= WINDOW) await Promise.race(inFlight);
      if (!ws.open || serve.child.exitCode !== null) break;
    }
    await Promise.all(inFlight);
    const seconds = (Date.now() - started) / 1000;
    const socketOpen = ws.open;
    const alive = serve.child.exitCode === null && serve.child.signalCode === null;
    // Responsive after: the same socket, a fresh one, plain HTTP.
    const t = Date.now();
    const info = await ws.request('app/info', {}, 10_000);
    const fresh = await WsClient.connect(serve.origin, serve.token);
    const list = await fresh.request('runs/list', {}, 10_000);
    fresh.close();
    const health = await fetch(`${serve.origin}/healthz?token=${serve.token}`);
    const afterMs = Date.now() - t;
    const after = { rows: rowCounts(serve.dataDir), files: fileList(serve.dataDir) };
    const writes = JSON.stringify(after) === JSON.stringify(before) ? 0 : 'some';
    console.log(
      `[fuzz-ws-soak] ${sent} refused payloads over ${channels.length} channels + ${brokenSent} broken frames over one WebSocket in ${seconds.toFixed(1)} s ` +
        `(${Math.round((sent + brokenSent) / seconds)}/s; ${validSkipped} valid not sent): ${crashes.length} crashes, writes: ${writes}, ` +
        `answers ${JSON.stringify(Object.fromEntries(codes))}; serve ${alive ? 'alive' : 'DEAD'}, socket ${socketOpen ? 'open' : 'CLOSED'}, ` +
        `answered app/info + a new socket's runs/list + /healthz in ${afterMs} ms after`,
    );
    expect(alive, serve.output().slice(-2000)).toBe(true);
    expect(socketOpen).toBe(true);
    expect(crashes.slice(0, 5)).toEqual([]);
    expect(sent + validSkipped + brokenSent).toBe(N);
    expect(info.ok).toBe(true);
    expect(list.ok).toBe(true);
    expect(health.status).toBe(200);
    expect(after).toEqual(before);
  });
});
