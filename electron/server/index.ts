// Headless transport of the contract: HTTP serves the built renderer, a WebSocket carries
// requests, answers and events. Loopback by default; every request needs the session token;
// WebSocket upgrades from a foreign Origin are refused.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { ApiError, eventNames, isChannel, type WireResult } from '../contract';
import type { Backend } from '../services/backend';
import { TOKEN_COOKIE, newToken, requestToken, tokensEqual } from './auth';
import { toWireError } from './wire-error';
import { contentType, readStatic, resolveStatic } from './static-files';

export interface ServerOptions {
  backend: Backend;
  rendererDir: string;
  host?: string;
  port?: number;
  token?: string;
  /** Extra Origins allowed to open the WebSocket (beside the server's own). */
  allowedOrigins?: string[];
}

export interface RunningServer {
  url: string; // with the token
  origin: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 1024 * 1024;

const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ws://127.0.0.1:* ws://localhost:*; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? newToken();
  const sockets = new Set<WebSocket>();

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const given = requestToken(req, url);
    if (!given || !tokensEqual(given, token)) {
      res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
      res.end('401: this Offload Studio server needs its session token. Open the URL printed by `serve` (it ends in ?token=…).\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, SECURITY_HEADERS);
      res.end();
      return;
    }
    if (url.pathname === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'application/json', ...SECURITY_HEADERS });
      res.end(JSON.stringify({ ok: true }));
      return;
    }
    const file = resolveStatic(options.rendererDir, url.pathname);
    if (!file) {
      res.writeHead(400, SECURITY_HEADERS);
      res.end('400: bad path\n');
      return;
    }
    // Single-page app: unknown paths without an extension fall back to index.html.
    let body = readStatic(file);
    let served = file;
    if (!body && !/\.[a-z0-9]+$/i.test(url.pathname)) {
      served = resolveStatic(options.rendererDir, '/index.html')!;
      body = readStatic(served);
    }
    if (!body) {
      res.writeHead(404, SECURITY_HEADERS);
      res.end(url.pathname === '/' ? '404: the renderer is not built. Run `npm run build`.\n' : '404\n');
      return;
    }
    const headers: Record<string, string> = { 'Content-Type': contentType(served), ...SECURITY_HEADERS };
    // The first page load carries ?token=; a strict, HttpOnly cookie then authorises its assets.
    if (url.searchParams.has('token'))
      headers['Set-Cookie'] = `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  const origin = `http://${hostForUrl}:${port}`;
  const allowedOrigins = new Set([origin, `http://localhost:${port}`, `http://127.0.0.1:${port}`, ...(options.allowedOrigins ?? [])]);

  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const given = requestToken(req, url);
    const originHeader = req.headers.origin;
    const refuse = (status: string) => {
      socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
    };
    if (url.pathname !== '/ws') return refuse('404 Not Found');
    if (!given || !tokensEqual(given, token)) return refuse('401 Unauthorized');
    if (originHeader && !allowedOrigins.has(originHeader)) return refuse('403 Forbidden');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  const unsubscribers = eventNames.map((name) =>
    options.backend.on(name, (payload) => {
      const message = JSON.stringify({ event: name, payload });
      for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(message);
    }),
  );

  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    // A frame over maxPayload (or a broken frame) errors the socket; without a listener that
    // 'error' event would crash the whole server. ws closes the socket (1009/1002) itself.
    ws.on('error', () => ws.terminate());
    ws.on('message', async (data) => {
      let id: unknown = null;
      let result: WireResult<unknown>;
      try {
        const message = JSON.parse(data.toString('utf8')) as { id?: unknown; channel?: unknown; payload?: unknown };
        id = message?.id ?? null;
        if (!isChannel(message?.channel)) throw new ApiError('unknown_channel', `Unknown request '${String(message?.channel)}'.`);
        result = { ok: true, value: await options.backend.invoke(message.channel, message.payload) };
      } catch (error) {
        result = { ok: false, error: toWireError(error) };
      }
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id, result }));
    });
  });

  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    port,
    async close() {
      unsubscribers.forEach((u) => u());
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
