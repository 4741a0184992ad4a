// Per-session token for the headless server, compared in constant time.
//
// The token itself never goes into a cookie: cookies are not port-scoped, so a cookie for
// 127.0.0.1 reaches every other server on 127.0.0.1 (and a page there can plant one). The page
// keeps the token in memory (from its URL) and sends it with the WebSocket upgrade; the cookie
// carries a separate asset key that only lets the browser load the renderer's static files, under
// a name that is unique to this server (port + random), so two servers never share or shadow it.
import crypto from 'node:crypto';
import os from 'node:os';
import type { IncomingMessage } from 'node:http';

/** Every per-server cookie name starts with this. */
export const TOKEN_COOKIE_PREFIX = 'offload_studio_';

export function newToken(): string {
  return crypto.randomBytes(24).toString('base64url');
}

/** `offload_studio_<port>_<random>`: one name per server, so servers on other ports never see or shadow it. */
export function cookieNameFor(port: number): string {
  return `${TOKEN_COOKIE_PREFIX}${port}_${crypto.randomBytes(6).toString('hex')}`;
}

/** Constant-time comparison; hashing first makes the lengths equal so length leaks nothing. */
export function tokensEqual(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

/** The value of cookie `name`, or null. A value that is not valid percent-encoding counts as absent (never throws). */
export function cookieValue(req: IncomingMessage, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key !== name) continue;
    try {
      return decodeURIComponent(rest.join('='));
    } catch {
      return null;
    }
  }
  return null;
}

/** The session token from the Authorization header or the `token` query parameter (never a cookie). */
export function requestToken(req: IncomingMessage, url: URL): string | null {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice(7);
  return url.searchParams.get('token');
}

/** A request target as a URL, or null when it does not parse (`//[`, `http://%zz/`): the caller answers 400. */
export function parseTarget(target: string | undefined): URL | null {
  try {
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    return null;
  }
}

/**
 * The Host names this server answers to: the loopback names, the configured host, and, when it is
 * bound to every interface (0.0.0.0 / ::), this machine's hostname and interface addresses. Any
 * other Host is refused before the token is looked at: a page on attacker.example that rebinds its
 * name to 127.0.0.1 (DNS rebinding) sends `Host: attacker.example` and never reaches the contract.
 */
export function allowedHostNames(configuredHost: string, extra: readonly string[] = []): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '::1', ...extra].map((n) => n.toLowerCase()));
  names.add(configuredHost.toLowerCase().replace(/^\[|\]$/g, ''));
  if (configuredHost === '0.0.0.0' || configuredHost === '::' || configuredHost === '[::]') {
    names.add(os.hostname().toLowerCase());
    for (const list of Object.values(os.networkInterfaces()))
      for (const a of list ?? []) names.add(a.address.toLowerCase().replace(/%.*$/, ''));
  }
  return names;
}

/** The name part of a Host header (`[::1]:8765` → `::1`, `Localhost.:80` → `localhost`), or null when it is malformed. */
export function hostName(header: string): string | null {
  const h = header.trim().toLowerCase();
  const m = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(h) ?? /^([a-z0-9._-]+?)\.?(?::\d{1,5})?$/.exec(h);
  return m ? m[1] : null;
}

/** Whether a request's Host header names this server. A request without Host (HTTP/1.0, no browser sends that) passes. */
export function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (header === undefined) return true;
  const name = hostName(header);
  return name !== null && (allowed.has(name) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name));
}
