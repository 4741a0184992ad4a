// DNS rebinding. A page on attacker.example whose name is rebound to 127.0.0.1 talks to
// `serve` with `Host: attacker.example`. On top of the token, serve answers only to the loopback
// names and the host it was started with (plus this machine's names/addresses when bound to every
// interface): anything else gets 421 before the token is read, on HTTP and on the WebSocket upgrade.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedHostNames, hostAllowed, hostName } from '../../electron/server/auth';
import { allowHostName } from '../../electron/server/serve';
import { WsClient, rawHttp, repoRoot, spawnServe, tmpDir, until, type ServeProcess } from './helpers';

const get = (serve: ServeProcess, host: string | null, target = `/healthz?token=${serve.token}`) =>
  rawHttp(serve.port, [`GET ${target} HTTP/1.1`, ...(host === null ? [] : [`Host: ${host}`]), 'Connection: close', '', ''].join('\r\n'));
const upgrade = (serve: ServeProcess, host: string) =>
  rawHttp(
    serve.port,
    [
      `GET /ws?token=${serve.token} HTTP/1.1`,
      `Host: ${host}`,
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      '',
      '',
    ].join('\r\n'),
    3000,
  ).catch((e: Error) => ({ status: /timed out/.test(e.message) ? 101 : 0, text: '' })); // an accepted upgrade stays open

describe('serve answers only to its own Host names (DNS rebinding)', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await spawnServe(tmpDir('os-host-'));
  }, 60_000);
  afterAll(async () => serve?.stop());

  const foreign = [
    'attacker.example',
    'attacker.example:{port}',
    '127.0.0.1.nip.io',
    'localhost.attacker.example',
    '0.0.0.0',
    '[::ffff:7f00:1]',
    'localhost:80@evil',
    '',
    ' ',
  ];
  it.each(foreign)('foreign Host %j → 421, even with the token, nothing of the app served', async (h) => {
    const host = h.replace('{port}', String(serve.port));
    for (const target of [`/healthz?token=${serve.token}`, `/?token=${serve.token}`, '/']) {
      const r = await get(serve, host, target);
      expect([421, 400], `${target} with Host ${JSON.stringify(host)}: ${r.text.slice(0, 200)}`).toContain(r.status);
      expect(r.text).not.toMatch(/"ok":true|<html|set-cookie/i);
    }
    if (host.trim()) expect((await upgrade(serve, host)).status, 'WebSocket upgrade').toBe(421);
  });

  const loopback = [
    '127.0.0.1',
    '127.0.0.1:{port}',
    'localhost',
    'localhost:{port}',
    'LocalHost:{port}',
    'localhost.:{port}',
    '[::1]',
    '[::1]:{port}',
    '127.0.0.2:{port}',
  ];
  it.each(loopback)('loopback Host %j → answered (and the WebSocket opens)', async (h) => {
    const host = h.replace('{port}', String(serve.port));
    const r = await get(serve, host);
    expect(r.status, r.text.slice(0, 200)).toBe(200);
    expect(r.text).toMatch(/"ok":true/);
    expect((await upgrade(serve, host)).status).toBe(101);
  });

  it('without a Host header (HTTP/1.0: no browser sends that) the token decides', async () => {
    const r = await rawHttp(serve.port, `GET /healthz?token=${serve.token} HTTP/1.0\r\n\r\n`);
    expect(r.status).toBe(200);
  });

  it('the name parser', () => {
    expect(hostName('[::1]:8765')).toBe('::1');
    expect(hostName('Localhost.:80')).toBe('localhost');
    expect(hostName('a b')).toBeNull();
    expect(hostName('localhost:80@evil')).toBeNull();
    const named = allowedHostNames('gpu-box.lan');
    expect(hostAllowed('gpu-box.lan:8765', named)).toBe(true);
    expect(hostAllowed('evil.lan:8765', named)).toBe(false);
  });
});

describe('serve started with --host answers to that host too', () => {
  it(
    "--host 0.0.0.0 --allow-remote: this machine's hostname and addresses pass, a foreign name does not",
    { timeout: 60_000 },
    async () => {
      const serve = await spawnServe(tmpDir('os-host-'), {}, ['--host', '0.0.0.0', '--allow-remote']);
      try {
        const os = await import('node:os');
        const ownAddress = Object.values(os.networkInterfaces())
          .flat()
          .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
        expect((await get(serve, `${os.hostname()}:${serve.port}`)).status).toBe(200);
        if (ownAddress) expect((await get(serve, `${ownAddress}:${serve.port}`)).status).toBe(200);
        expect((await get(serve, `attacker.example:${serve.port}`)).status).toBe(421);
      } finally {
        await serve.stop();
      }
    },
  );
});

describe('--allow-host NAME (repeatable): the configured names answered too', () => {
  it(
    'serve --allow-host gpu-box.lan --allow-host Proxy.Example. → both answered (HTTP, upgrade, WebSocket from that Origin), a foreign name still 421',
    { timeout: 60_000 },
    async () => {
      const serve = await spawnServe(tmpDir('os-host-'), {}, ['--allow-host', 'gpu-box.lan', '--allow-host', 'Proxy.Example.']);
      try {
        for (const host of ['gpu-box.lan', `gpu-box.lan:${serve.port}`, 'GPU-BOX.LAN.', `proxy.example:${serve.port}`]) {
          const r = await get(serve, host);
          expect(r.status, `${host}: ${r.text.slice(0, 200)}`).toBe(200);
          expect((await upgrade(serve, host)).status, `${host} upgrade`).toBe(101);
        }
        // The page served under that name opens the WebSocket with its Origin.
        const ws = await WsClient.connect(serve.origin, serve.token, {
          Host: `gpu-box.lan:${serve.port}`,
          Origin: `http://gpu-box.lan:${serve.port}`,
        });
        expect((await ws.request('app/info', {})).ok).toBe(true);
        ws.close();
        for (const host of ['attacker.example', `gpu-box.lan.attacker.example:${serve.port}`, 'box.lan', 'lan'])
          expect((await get(serve, host)).status, host).toBe(421);
        expect((await upgrade(serve, 'attacker.example')).status).toBe(421);
      } finally {
        await serve.stop();
      }
    },
  );

  it("the CLI's serve takes it too; a name with a port or a wildcard is refused at start", { timeout: 60_000 }, async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'electron/cli/main.ts', 'serve', '--port', '0', '--data-dir', tmpDir('os-host-'), '--allow-host', 'gpu-box.lan'],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      await until(() => /Open: http:\/\/\S+/.test(out), 30_000, 'the CLI serve URL');
      const url = new URL(/Open: (http:\/\/\S+)/.exec(out)![1]);
      const r = await rawHttp(
        Number(url.port),
        [`GET /healthz?token=${url.searchParams.get('token')} HTTP/1.1`, `Host: gpu-box.lan:${url.port}`, 'Connection: close', '', ''].join(
          '\r\n',
        ),
      );
      expect(r.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    for (const bad of ['gpu-box.lan:8765', '*.lan', 'http://gpu-box.lan', '']) {
      const error = await spawnServe(tmpDir('os-host-'), {}, ['--allow-host', bad]).then(
        (s) => (void s.stop(), 'started'),
        (e: Error) => e.message,
      );
      expect(error, bad).toMatch(/--allow-host .*without port or wildcard/);
    }
    expect(allowHostName('[::1]')).toBe('::1');
    expect(allowHostName('Gpu-Box.')).toBe('gpu-box');
  });
});
