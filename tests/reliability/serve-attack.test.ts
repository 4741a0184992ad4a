// Issue 20: defects an attack on a real `serve` found, each reproduced here exactly as sent
// (raw sockets, real SQLite, the real cluster service with a recording ssh). Every test failed
// on the code before its fix.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WsClient, rawHttp, spawnServe, tmpDir, type ServeProcess } from './helpers';

/** Sends `request` raw and resolves with the status (0 when the socket closed without one). */
const status = async (port: number, request: string) => (await rawHttp(port, request)).status;

/** A raw WebSocket upgrade: the request line and headers exactly as written. */
function rawUpgrade(port: number, target: string, headers: string[] = []): Promise<{ status: number; text: string }> {
  const request = [`GET ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', ...headers, '', ''].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => (socket.destroy(), resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text })), 3000);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (/\r\n\r\n/.test(text)) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
      }
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
  });
}

let serve: ServeProcess;
beforeAll(async () => {
  serve = await spawnServe(tmpDir('os-attack-'));
});
afterAll(async () => serve?.stop());

/** The server answers a valid request after the attack: it is still up. */
async function stillUp(s: ServeProcess = serve): Promise<void> {
  expect(s.child.exitCode, s.output()).toBeNull();
  expect(await status(s.port, `GET /healthz?token=${s.token} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)).toBe(200);
}

describe('issue 20.1: unauthenticated crashes', () => {
  it('a cookie that is not percent-encoding (offload_studio_token=%) is 401, and serve stays up', async () => {
    for (const cookie of ['offload_studio_token=%', 'offload_studio_token=%E0%A4%A', `offload_studio_${serve.port}_0123456789ab=%`, 'a=%; offload_studio_token=%zz'])
      expect(await status(serve.port, `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`), cookie).toBe(401);
    await stillUp();
  });

  it.each(['//[', 'http://[::1/', 'http://%zz/', '//[?token=x', 'http://a:b@[/'])('HTTP request target %s is 400, and serve stays up', async (target) => {
    expect(await status(serve.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)).toBe(400);
    await stillUp();
  });

  it.each(['//[', 'http://[::1/', 'http://%zz/'])('WebSocket upgrade to %s is 400, and serve stays up', async (target) => {
    const r = await rawUpgrade(serve.port, target, [`Origin: ${serve.origin}`]);
    expect(r.status).toBe(400);
    await stillUp();
  });

  it('an upgrade with a bad cookie and no token is 401, and serve stays up', async () => {
    const r = await rawUpgrade(serve.port, '/ws', ['Cookie: offload_studio_token=%', `Origin: ${serve.origin}`]);
    expect(r.status).toBe(401);
    await stillUp();
  });
});

describe('issue 20.4: the session cookie is per server and is not the token', () => {
  it('the cookie is named for this server (port + random), and two servers never share a name', async () => {
    const other = await spawnServe(tmpDir('os-attack-2-'));
    try {
      const names: string[] = [];
      for (const s of [serve, other]) {
        const r = await rawHttp(s.port, `GET /?token=${s.token} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
        expect(r.status).toBe(200);
        const set = /^Set-Cookie: ([^=]+)=([^;]*);(.*)$/im.exec(r.text);
        expect(set, r.text.slice(0, 400)).not.toBeNull();
        const [, name, value, attributes] = set!;
        expect(name).toMatch(new RegExp(`^offload_studio_${s.port}_[0-9a-f]{8,}$`));
        expect(attributes).toMatch(/HttpOnly/);
        expect(attributes).toMatch(/SameSite=Strict/);
        // The token itself never rides in a cookie (cookies reach every port of 127.0.0.1).
        expect(decodeURIComponent(value)).not.toBe(s.token);
        expect(r.text).not.toContain(`=${encodeURIComponent(s.token)};`);
        names.push(name);
        // The cookie loads the page's assets...
        const asset = await rawHttp(s.port, `GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${name}=${value}\r\nConnection: close\r\n\r\n`);
        expect(asset.status).toBe(200);
        // ...but does not open the API (the WebSocket needs the token from the page's memory).
        const ws = await rawUpgrade(s.port, '/ws', [`Cookie: ${name}=${value}`, `Origin: ${s.origin}`]);
        expect(ws.status).toBe(401);
        // And it is no key to the other server.
        const peer = s === serve ? other : serve;
        expect(await status(peer.port, `GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${name}=${value}\r\nConnection: close\r\n\r\n`)).toBe(401);
      }
      expect(names[0]).not.toBe(names[1]);
      // A cookie under the old fixed name, even holding the real token, opens nothing.
      expect(await status(serve.port, `GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: offload_studio_token=${serve.token}\r\nConnection: close\r\n\r\n`)).toBe(401);
      const client = await WsClient.connect(serve.origin, serve.token);
      expect((await client.request('app/info', {})).ok).toBe(true);
      client.close();
    } finally {
      await other.stop();
    }
  });
});
