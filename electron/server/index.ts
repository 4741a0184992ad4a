// Headless transport of the contract: HTTP serves the built renderer, a WebSocket carries
// requests, answers and events. Loopback by default; every request needs the session token;
// WebSocket upgrades from a foreign Origin are refused. No request, however malformed (a target
// `new URL` cannot parse, a cookie that is not percent-encoding), may take the server down: each
// is answered 400/401 and the server stays up.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { ApiError, eventNames, isChannel, toWireError, WIRE_IMPORT_MAX_BYTES, WIRE_MESSAGE_MAX_BYTES, type WireResult } from '../contract';
import type { Backend } from '../services/backend';
import { allowedHostNames, cookieNameFor, cookieValue, hostAllowed, newToken, parseTarget, requestToken, tokensEqual } from './auth';
import { contentType, readStatic, resolveStatic } from './static-files';
import { attachFlow, EVENT_BATCH_MS, type Flow } from './ws-flow';

export interface ServerOptions {
  backend: Backend;
  rendererDir: string;
  host?: string;
  port?: number;
  token?: string;
  /** Extra Origins allowed to open the WebSocket (beside the server's own). */
  allowedOrigins?: string[];
  /** Extra Host names answered (beside the loopback names and `host`): DNS-rebinding defence. */
  allowedHosts?: string[];
}

export interface RunningServer {
  url: string; // with the token
  origin: string;
  token: string;
  port: number;
  /** This server's asset cookie name (`offload_studio_<port>_<random>`). */
  cookieName: string;
  close(): Promise<void>;
}

const ANSWER_END = Buffer.from('}}', 'utf8');

function rawLength(data: RawData): number {
  return Array.isArray(data) ? data.reduce((a, b) => a + b.length, 0) : data instanceof ArrayBuffer ? data.byteLength : data.length;
}
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

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

  // The asset cookie: a key of its own (not the token), under a per-server name set once the port is known.
  const assetKey = newToken();
  let cookieName = '';
  const plain = { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS };
  // Host names answered: loopback + the configured host (DNS rebinding: a foreign name is refused
  // before the token is even read, so a rebound page never talks to the contract).
  const hosts = allowedHostNames(host, options.allowedHosts);
  const MISDIRECTED =
    '421: this Offload Studio server answers only to its own address (localhost, 127.0.0.1, [::1] or the host it was started with).\n';

  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!hostAllowed(req.headers.host, hosts)) {
      res.writeHead(421, plain);
      res.end(MISDIRECTED);
      return;
    }
    const url = parseTarget(req.url);
    if (!url) {
      res.writeHead(400, plain);
      res.end('400: the request target is not a valid URL path.\n');
      return;
    }
    const given = requestToken(req, url);
    const viaToken = given !== null && tokensEqual(given, token);
    // The cookie only authorises what the page loads by itself (GET/HEAD of static files).
    const cookie = cookieName ? cookieValue(req, cookieName) : null;
    const viaCookie = !viaToken && cookie !== null && tokensEqual(cookie, assetKey);
    if (!viaToken && !viaCookie) {
      res.writeHead(401, plain);
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
    // The first page load carries ?token=; a strict, HttpOnly cookie with the asset key then
    // authorises its assets. The page keeps the token itself in memory for the WebSocket.
    if (viaToken && url.searchParams.has('token')) headers['Set-Cookie'] = `${cookieName}=${assetKey}; HttpOnly; SameSite=Strict; Path=/`;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  const server = http.createServer((req, res) => {
    try {
      handle(req, res);
    } catch {
      // Nothing a client sends may take the server down.
      if (!res.headersSent) res.writeHead(400, plain);
      res.end();
    }
  });
  // A request Node's parser refuses (bad request line, oversized headers): 400, and the server stays up.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });

  // The frame limit is runs/import's (a 64 MiB runs file as a JSON string); every other channel is
  // answered `too_large` above 1 MiB (answer below), so the limits the contract states are the wire's.
  const wss = new WebSocketServer({ noServer: true, maxPayload: WIRE_IMPORT_MAX_BYTES });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  cookieName = cookieNameFor(port);
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  const origin = `http://${hostForUrl}:${port}`;
  // The page of an extra Host name (--allow-host) opens the WebSocket from that name's Origin.
  const extraHostOrigins = (options.allowedHosts ?? []).map((h) => `http://${h.includes(':') ? `[${h}]` : h}:${port}`);
  const allowedOrigins = new Set([
    origin,
    `http://localhost:${port}`,
    `http://127.0.0.1:${port}`,
    ...extraHostOrigins,
    ...(options.allowedOrigins ?? []),
  ]);

  const upgradedSockets = new WeakMap<WebSocket, Duplex>();
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const refuse = (status: string) => {
      socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
    };
    try {
      if (!hostAllowed(req.headers.host, hosts)) return refuse('421 Misdirected Request');
      const url = parseTarget(req.url);
      if (!url) return refuse('400 Bad Request');
      // The WebSocket takes the token only from the query or the Authorization header (the page
      // holds it in memory), never from a cookie another port's page could have planted or read.
      const given = requestToken(req, url);
      const originHeader = req.headers.origin;
      if (url.pathname !== '/ws') return refuse('404 Not Found');
      if (!given || !tokensEqual(given, token)) return refuse('401 Unauthorized');
      if (originHeader && !allowedOrigins.has(originHeader)) return refuse('403 Forbidden');
      wss.handleUpgrade(req, socket, head, (ws) => {
        upgradedSockets.set(ws, socket);
        wss.emit('connection', ws, req);
      });
    } catch {
      refuse('400 Bad Request');
    }
  });

  const flows = new Map<WebSocket, Flow>();
  // An event is serialised and encoded once; every client's frame points at the same bytes. Events
  // leave in batches (ws-flow.ts): every EVENT_BATCH_MS, or before the client's next answer.
  let batch: NodeJS.Timeout | null = null;
  const flushEvents = () => {
    batch = null;
    for (const flow of flows.values()) flow.flushEvents();
  };
  const unsubscribers = eventNames.map((name) =>
    options.backend.on(name, (payload) => {
      if (flows.size === 0) return;
      const message = Buffer.from(JSON.stringify({ event: name, payload }), 'utf8');
      for (const flow of flows.values()) flow.queueEvent(message);
      batch ??= setTimeout(flushEvents, EVENT_BATCH_MS);
    }),
  );

  // Frozen answers (the history list kept between writes, backend/index.ts) are serialised and
  // encoded once, and the bytes reused for every client that asks the same thing until the data
  // changes: only the id around them is new; the answer goes out as three fragments of one
  // message (ws-flow.ts), so the shared bytes are neither encoded nor copied per answer.
  const serialised = new WeakMap<object, Buffer>();
  const answer = async (data: RawData): Promise<string | Buffer[]> => {
    let id: unknown = null;
    let result: WireResult<unknown>;
    try {
      const message = JSON.parse(data.toString('utf8')) as { id?: unknown; channel?: unknown; payload?: unknown };
      id = message?.id ?? null;
      if (!isChannel(message?.channel)) throw new ApiError('unknown_channel', `Unknown request '${String(message?.channel)}'.`);
      const size = rawLength(data);
      if (size > WIRE_MESSAGE_MAX_BYTES && message.channel !== 'runs/import')
        throw new ApiError(
          'too_large',
          `This ${message.channel} request is ${mib(size)}; serve takes at most ${mib(WIRE_MESSAGE_MAX_BYTES)} per request (runs/import: ${mib(WIRE_IMPORT_MAX_BYTES)}).`,
        );
      const value = await options.backend.invoke(message.channel, message.payload);
      if (value !== null && typeof value === 'object' && Object.isFrozen(value)) {
        let bytes = serialised.get(value);
        if (bytes === undefined) serialised.set(value, (bytes = Buffer.from(JSON.stringify(value), 'utf8')));
        return [Buffer.from(`{"id":${JSON.stringify(id)},"result":{"ok":true,"value":`, 'utf8'), bytes, ANSWER_END];
      }
      result = { ok: true, value };
    } catch (error) {
      result = { ok: false, error: toWireError(error) };
    }
    return JSON.stringify({ id, result });
  };

  wss.on('connection', (ws) => {
    sockets.add(ws);
    // Requests in flight per socket and unsent bytes are capped (ws-flow.ts): a client that stops
    // reading, or pipelines thousands of requests, cannot grow serve until it runs out of memory.
    flows.set(ws, attachFlow(ws, { handle: answer, socket: upgradedSockets.get(ws) }));
    upgradedSockets.delete(ws);
    ws.on('close', () => {
      sockets.delete(ws);
      flows.delete(ws);
    });
    // A frame over maxPayload (or a broken frame) errors the socket; without a listener that
    // 'error' event would crash the whole server. ws closes the socket (1009/1002) itself.
    ws.on('error', () => ws.terminate());
  });

  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    port,
    cookieName,
    async close() {
      unsubscribers.forEach((u) => u());
      if (batch) clearTimeout(batch);
      flushEvents(); // the last events still go to the clients being closed
      for (const ws of sockets) ws.terminate();
      wss.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections(); // idle keep-alive connections would hold close() open
      await closed;
    },
  };
}
