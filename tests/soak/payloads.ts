// The seeded payload generator of the fuzz soaks (fuzz-soak: backend.invoke; fuzz-ws-soak: a live
// serve's WebSocket): random values and objects built from each channel's own keys plus hostile
// ones (`__proto__`, `constructor`, huge and invalid strings, NaN/Infinity, 2^53+2).
import type { z } from 'zod';
import { requests, type Channel } from '../../electron/contract';
import type { seededRandom } from '../reliability/helpers';

export type Rng = ReturnType<typeof seededRandom>;

const HOSTILE = [
  '',
  '\u0000',
  '../../etc/passwd',
  '/dev/zero',
  '<script>x</script>',
  '\u202e',
  '\ud800',
  'NaN',
  '1e309',
  '__proto__',
  "'; DROP TABLE runs; --",
  'x'.repeat(70_000),
];
const NUMBERS = [0, -1, 1.5, 1e15, -1e308, 2 ** 53 + 2, Number.NaN, Number.POSITIVE_INFINITY];

export function value(rng: Rng, depth = 0): unknown {
  switch (rng.int(depth > 2 ? 7 : 9)) {
    case 0:
      return null;
    case 1:
      return rng.next() < 0.5;
    case 2:
      return rng.pick(NUMBERS);
    case 3:
      return rng.pick(HOSTILE);
    case 4:
      return rng.pick(['tiny-llama', 'zero3-offload', 'bf16', 'r-1', 'html', 'pdf']);
    case 5:
      return rng.int(100_000);
    case 6:
      return [];
    case 7:
      return Array.from({ length: rng.int(4) }, () => value(rng, depth + 1));
    default:
      return object(rng, [], depth + 1);
  }
}

export function object(rng: Rng, keys: string[], depth = 0): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let n = rng.int(6); n > 0; n--) {
    const key =
      rng.next() < 0.75 && keys.length ? rng.pick(keys) : rng.pick(['__proto__', 'constructor', 'prototype', 'id', 'ids', 'path', 'zz']);
    Object.defineProperty(o, key, { value: value(rng, depth), enumerable: true, configurable: true, writable: true });
  }
  return o;
}

export const keysOf = (schema: unknown) => Object.keys((schema as { shape?: Record<string, unknown> }).shape ?? {});

/** A payload for `channel`: 15 % any value, else an object of its keys and hostile ones. */
export function payloadFor(rng: Rng, channel: Channel): unknown {
  return rng.next() < 0.15 ? value(rng) : object(rng, keysOf(requests[channel].request));
}

/** Whether the contract's schema accepts it (such payloads would start real work: not sent). */
export function acceptedBySchema(channel: Channel, payload: unknown): boolean {
  return (requests[channel].request as z.ZodType).safeParse(payload ?? {}).success;
}
