// Per-session token for the headless server, compared in constant time.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_COOKIE = 'offload_studio_token';

export function newToken(): string {
  return crypto.randomBytes(24).toString('base64url');
}

/** Constant-time comparison; hashing first makes the lengths equal so length leaks nothing. */
export function tokensEqual(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

export function cookieToken(req: IncomingMessage): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === TOKEN_COOKIE) return decodeURIComponent(rest.join('='));
  }
  return null;
}

export function requestToken(req: IncomingMessage, url: URL): string | null {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice(7);
  return url.searchParams.get('token') ?? cookieToken(req);
}
