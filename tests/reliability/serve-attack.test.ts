// Defects an attack on a real `serve` found, each reproduced here exactly as sent
// (raw sockets, real SQLite, the real cluster service with a recording ssh). Every test failed
// on the code before its fix.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WsClient, rawHttp, repoRoot, seededRandom, spawnServe, tmpDir, type ServeProcess } from './helpers';

/** The real CLI (`node --import tsx electron/cli/main.ts …`), killed after `timeoutMs`. */
function cli(args: string[], timeoutMs = 60_000): Promise<{ code: number | null; out: string; timedOut: boolean; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'electron/cli/main.ts', ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let timedOut = false;
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), timeoutMs);
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, out, timedOut, ms: Date.now() - started })));
  });
}

/** A runs file with one finished run; `run` overrides columns of the run row. */
function runsFile(
  id: string,
  run: Record<string, unknown> = {},
  samples = {
    columns: ['step', 'warmup', 'step_seconds'],
    rows: [
      [1, 1, 0.6],
      [2, 0, 0.5],
    ] as (number | null)[][],
  },
) {
  return {
    format: 'offload-studio/runs',
    version: 1,
    schemaVersion: 3,
    exportedAt: '2026-12-01T00:00:00.000Z',
    source: null,
    runs: [
      {
        run: {
          id,
          created_at: '2026-12-01T00:00:00.000Z',
          status: 'completed',
          model: 'tiny-llama',
          strategy: 'zero3-offload',
          engine: 'deepspeed',
          repeat_index: 0,
          tags: '["imported"]',
          notes: '',
          tflops_per_gpu: 1.5,
          step_seconds: 0.5,
          steps: 1,
          warmup: 1,
          ...run,
        },
        details: null,
        snapshot: null,
        samples,
      },
    ],
  };
}

const SECRET = 'root:x:0:0:root:/root:/bin/bash SECRET-LINE-42';

/** Sends `request` raw and resolves with the status (0 when the socket closed without one). */
const status = async (port: number, request: string) => (await rawHttp(port, request)).status;

/** A raw WebSocket upgrade: the request line and headers exactly as written. */
function rawUpgrade(port: number, target: string, headers: string[] = []): Promise<{ status: number; text: string }> {
  const request = [
    `GET ${target} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    ...headers,
    '',
    '',
  ].join('\r\n');
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

describe('requests before authentication (bad cookies, bad request targets) cannot crash serve', () => {
  it('a cookie that is not percent-encoding (offload_studio_token=%) is 401, and serve stays up', async () => {
    for (const cookie of [
      'offload_studio_token=%',
      'offload_studio_token=%E0%A4%A',
      `offload_studio_${serve.port}_0123456789ab=%`,
      'a=%; offload_studio_token=%zz',
    ])
      expect(await status(serve.port, `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`), cookie).toBe(
        401,
      );
    await stillUp();
  });

  it.each(['//[', 'http://[::1/', 'http://%zz/', '//[?token=x', 'http://a:b@[/'])(
    'HTTP request target %s is 400, and serve stays up',
    async (target) => {
      expect(await status(serve.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)).toBe(400);
      await stillUp();
    },
  );

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

describe('fuzz of request lines, cookies and upgrades against one serve', () => {
  it(
    '400 random request targets, cookies and Authorization headers over HTTP and upgrade: every answer 400/401/404/405 or a closed socket, and serve stays up',
    { timeout: 120_000 },
    async () => {
      const rnd = seededRandom('serve request lines');
      const pieces = [
        '/',
        '//',
        '[',
        ']',
        '%',
        '%zz',
        '%E0%A4%A',
        '%00',
        '%2f',
        '..',
        '?',
        '#',
        '@',
        ':',
        'http://',
        'https://[::1',
        'ws://',
        '\\',
        '~',
        'token=',
        `token=${serve.token.slice(0, 5)}`,
        '\u00e9',
        '\u202e',
        'a'.repeat(300),
        '*',
        ';',
        '&',
        '=',
        '+',
      ];
      const target = () =>
        Array.from({ length: 1 + rnd.int(6) }, () => rnd.pick(pieces))
          .join('')
          .replace(/[\s]/g, '');
      const cookie = () =>
        Array.from(
          { length: 1 + rnd.int(3) },
          () =>
            `${rnd.pick(['offload_studio_token', `offload_studio_${serve.port}_abc`, 'x', ''])}=${rnd.pick(['%', '%%', '%zz', '', '=', serve.token.slice(1), '\u00ff'])}`,
        ).join('; ');
      const seen = new Map<number, number>();
      for (let i = 0; i < 400; i++) {
        const t = target() || '/';
        const headers = [`Cookie: ${cookie()}`];
        if (rnd.next() < 0.3) headers.push(`Authorization: ${rnd.pick(['Bearer', 'Bearer ', 'Bearer %', 'Basic x'])}`);
        let statusCode: number;
        if (rnd.next() < 0.3) statusCode = (await rawUpgrade(serve.port, t, [...headers, `Origin: ${serve.origin}`])).status;
        else
          statusCode = (
            await rawHttp(
              serve.port,
              `${rnd.pick(['GET', 'HEAD', 'POST', 'OPTIONS'])} ${t} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers.join('\r\n')}\r\nConnection: close\r\n\r\n`,
            ).catch(() => ({ status: 0 }))
          ).status;
        seen.set(statusCode, (seen.get(statusCode) ?? 0) + 1);
        expect([0, 400, 401, 404, 405], `${t} (seed ${rnd.seed})`).toContain(statusCode);
      }
      console.log(`[serve request lines] answers: ${JSON.stringify(Object.fromEntries(seen))}`);
      await stillUp();
    },
  );
});

describe('the session cookie is per server and is not the token', () => {
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
        const asset = await rawHttp(
          s.port,
          `GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${name}=${value}\r\nConnection: close\r\n\r\n`,
        );
        expect(asset.status).toBe(200);
        // ...but does not open the API (the WebSocket needs the token from the page's memory).
        const ws = await rawUpgrade(s.port, '/ws', [`Cookie: ${name}=${value}`, `Origin: ${s.origin}`]);
        expect(ws.status).toBe(401);
        // And it is no key to the other server.
        const peer = s === serve ? other : serve;
        expect(
          await status(peer.port, `GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${name}=${value}\r\nConnection: close\r\n\r\n`),
        ).toBe(401);
      }
      expect(names[0]).not.toBe(names[1]);
      // A cookie under the old fixed name, even holding the real token, opens nothing.
      expect(
        await status(
          serve.port,
          `GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: offload_studio_token=${serve.token}\r\nConnection: close\r\n\r\n`,
        ),
      ).toBe(401);
      const client = await WsClient.connect(serve.origin, serve.token);
      expect((await client.request('app/info', {})).ok).toBe(true);
      client.close();
    } finally {
      await other.stop();
    }
  });
});

describe('runs/import reads no server path, and the CLI reads regular files only', () => {
  it('over serve a path is refused the same way whether or not the file exists; nothing of it is echoed', async () => {
    const dir = tmpDir('os-attack-files-');
    const secret = path.join(dir, 'passwd');
    fs.writeFileSync(secret, SECRET + '\n');
    const client = await WsClient.connect(serve.origin, serve.token);
    try {
      const answers = [];
      for (const p of [secret, path.join(dir, 'missing.json'), '/etc/passwd', '/dev/zero']) {
        const r = await client.request('runs/import', { path: p }, 10_000);
        expect(r.ok, p).toBe(false);
        if (r.ok) continue;
        expect(r.error.code, p).toBe('bad_request');
        expect(r.error.field, p).toBe('path');
        expect(r.error.message).not.toMatch(/root:x|SECRET-LINE/);
        answers.push(r.error.message);
      }
      // No existence oracle: an existing file, a missing one and a device read the same.
      expect(new Set(answers).size).toBe(1);
      expect(answers[0]).toMatch(/send the file's text as 'content'/);
      await stillUp();
    } finally {
      client.close();
    }
  });

  it('over serve the content is imported, and content that is not JSON is refused without echoing it', async () => {
    const client = await WsClient.connect(serve.origin, serve.token);
    try {
      const ok = await client.value<{ imported: string[] }>('runs/import', {
        content: JSON.stringify(runsFile('r-content-1')),
        name: 'mine.runs.json',
      });
      expect(ok.imported).toEqual(['r-content-1']);
      const bad = await client.request('runs/import', { content: SECRET, name: 'passwd' });
      expect(bad.ok).toBe(false);
      if (!bad.ok) {
        expect(bad.error.code).toBe('bad_file');
        expect(bad.error.message).toMatch(/passwd is not JSON/);
        expect(bad.error.message).not.toMatch(/root:x|SECRET-LINE/);
      }
      const both = await client.request('runs/import', { content: '{}', path: '/etc/passwd' });
      expect(both.ok).toBe(false);
    } finally {
      client.close();
    }
  });

  // Issue 48: serve counted characters, the CLI bytes: a CJK file of 40M characters (119.5 MB) was
  // imported over serve though the CLI refuses anything over 64 MiB.
  it('over serve the 64 MiB limit is in bytes: 23M CJK characters (69 MB) are refused with the size', { timeout: 60_000 }, async () => {
    const client = await WsClient.connect(serve.origin, serve.token);
    try {
      const content = '漢'.repeat(23_000_000); // 3 bytes each in UTF-8: 69,000,000 bytes, 23M characters
      const r = await client.request('runs/import', { content, name: 'cjk.runs.json' }, 45_000);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('too_large');
        expect(r.error.field).toBe('content');
        expect(r.error.message).toBe('cjk.runs.json is 65.8 MiB; a runs file may be at most 64.0 MiB. Export fewer runs per file.');
      }
      expect(client.open).toBe(true);
    } finally {
      client.close();
    }
    await stillUp();
  });

  it(
    'the CLI refuses a FIFO at once (no hang), a device, an oversized file and a folder; never echoes content',
    { timeout: 120_000 },
    async () => {
      const dir = tmpDir('os-attack-cli-');
      const dataDir = path.join(dir, 'data');
      const fifo = path.join(dir, 'runs.fifo');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const big = path.join(dir, 'big.runs.json');
      fs.writeFileSync(big, '');
      fs.truncateSync(big, 65 * 1024 * 1024); // sparse: no disk used
      const secret = path.join(dir, 'shadow');
      fs.writeFileSync(secret, SECRET + '\n');
      const cases: [string, RegExp][] = [
        [fifo, /not a regular file/],
        ['/dev/zero', /not a regular file/],
        [big, /at most 64 MiB/],
        [dir, /is a folder/],
        [secret, /is not JSON/],
      ];
      for (const [file, why] of cases) {
        const r = await cli(['import-runs', file, '--data-dir', dataDir], 45_000);
        expect(r.timedOut, `${file}: ${r.out}`).toBe(false);
        expect(r.code, `${file}: ${r.out}`).not.toBe(0);
        expect(r.out, file).toMatch(why);
        expect(r.out, file).not.toMatch(/root:x|SECRET-LINE/);
      }
    },
  );
});

describe('imported runs are checked, logs are read only from <dataDir>/logs, stored-data errors say so', () => {
  it.each([
    ['tags', { tags: 'not-json' }, /runs\[0\]\.run\.tags must be a JSON array of strings/],
    ['tags', { tags: '{"a":1}' }, /runs\[0\]\.run\.tags must be a JSON array of strings/],
    ['tflops_per_gpu', { tflops_per_gpu: 'fast' }, /runs\[0\]\.run\.tflops_per_gpu must be a finite number \(got a string\)/],
    ['repeat_index', { repeat_index: 1.5 }, /runs\[0\]\.run\.repeat_index must be an integer/],
    ['notes', { notes: 7 }, /runs\[0\]\.run\.notes must be text \(got a number\)/],
    ['log_path', { log_path: 12 }, /runs\[0\]\.run\.log_path must be text/],
  ])('a wrong-typed %s is refused with the field named; runs/list and compare/runs keep working', async (_col, change, message) => {
    const client = await WsClient.connect(serve.origin, serve.token);
    try {
      const id = `r-bad-${Math.random().toString(36).slice(2, 8)}`;
      const r = await client.request('runs/import', { content: JSON.stringify(runsFile(id, change)), name: 'bad.runs.json' });
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('bad_file');
        expect(r.error.message).toMatch(message);
        expect(r.error.message).toMatch(/^bad\.runs\.json: .*Nothing was imported/);
      }
      const list = await client.value<{ runs: { id: string }[] }>('runs/list', {});
      expect(list.runs.map((x) => x.id)).not.toContain(id);
      const good = list.runs.map((x) => x.id).slice(0, 2);
      if (good.length) expect((await client.request('compare/runs', { ids: good })).ok).toBe(true);
    } finally {
      client.close();
    }
  });

  it('a sample row with the wrong width or a null step is refused, naming the row', async () => {
    const client = await WsClient.connect(serve.origin, serve.token);
    try {
      for (const [rows, message] of [
        [[[1, 0]], /runs\[0\]\.samples\.rows\[0\] has 2 values for 3 columns/],
        [[[null, 0, 0.5]], /runs\[0\]\.samples\.rows\[0\] \(step\) must not be null/],
        [[[1.5, 0, 0.5]], /runs\[0\]\.samples\.rows\[0\] \(step\) must be an integer/],
      ] as [(number | null)[][], RegExp][]) {
        const r = await client.request('runs/import', {
          content: JSON.stringify(runsFile('r-bad-samples', {}, { columns: ['step', 'warmup', 'step_seconds'], rows })),
          name: 'bad.runs.json',
        });
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error.message).toMatch(message);
      }
    } finally {
      client.close();
    }
  });

  it('runs/get reads no log outside <dataDir>/logs (absolute path, ../, symlink out), and still reads one inside', async () => {
    const outside = path.join(tmpDir('os-attack-log-'), 'secret.log');
    fs.writeFileSync(outside, SECRET + '\n');
    const logs = path.join(serve.dataDir, 'logs');
    fs.mkdirSync(logs, { recursive: true });
    fs.symlinkSync(outside, path.join(logs, 'link-out.log'));
    fs.writeFileSync(path.join(logs, 'r-log-inside.log'), 'inside line 1\ninside line 2\n');
    const client = await WsClient.connect(serve.origin, serve.token);
    try {
      const cases: [string, string][] = [
        ['r-log-abs', outside],
        ['r-log-passwd', '/etc/passwd'],
        ['r-log-dotdot', '../../../../../../../../etc/passwd'],
        ['r-log-link', path.join(logs, 'link-out.log')],
        ['r-log-dev', '/dev/zero'],
      ];
      for (const [id, logPath] of cases) {
        const imported = await client.value<{ imported: string[] }>('runs/import', {
          content: JSON.stringify(runsFile(id, { log_path: logPath })),
          name: 'logs.runs.json',
        });
        expect(imported.imported).toEqual([id]);
        const detail = await client.value<{ logTail: string[] }>('runs/get', { id }, 10_000);
        expect(detail.logTail, logPath).toEqual([]);
      }
      // A log inside the folder is read (also when the stored path is another machine's: by its name).
      for (const [id, logPath] of [
        ['r-log-inside', path.join(logs, 'r-log-inside.log')],
        ['r-log-moved', '/home/someone/.config/Offload Studio/logs/r-log-inside.log'],
      ]) {
        await client.value('runs/import', { content: JSON.stringify(runsFile(id, { log_path: logPath })), name: 'logs.runs.json' });
        expect((await client.value<{ logTail: string[] }>('runs/get', { id })).logTail).toEqual(['inside line 1', 'inside line 2']);
      }
    } finally {
      client.close();
    }
  });

  it('a damaged stored row (tags not JSON, a figure as text) is reported as a stored-data error naming the run and column', async () => {
    const dataDir = tmpDir('os-attack-stored-');
    const first = await spawnServe(dataDir);
    const client = await WsClient.connect(first.origin, first.token);
    await client.value('runs/import', { content: JSON.stringify(runsFile('r-stored-1')), name: 'ok.runs.json' });
    client.close();
    await first.stop();
    // Damage the row behind the server's back (a hand edit, or a row imported by an older version).
    const db = new DatabaseSync(path.join(dataDir, 'history.db'));
    db.prepare("UPDATE runs SET tags = 'not-json' WHERE id = 'r-stored-1'").run();
    db.close();
    const again = await spawnServe(dataDir);
    const c = await WsClient.connect(again.origin, again.token);
    try {
      for (const [channel, payload] of [
        ['runs/list', {}],
        ['runs/get', { id: 'r-stored-1' }],
        ['compare/runs', { ids: ['r-stored-1'] }],
      ] as const) {
        const r = await c.request(channel, payload);
        expect(r.ok, channel).toBe(false);
        if (r.ok) continue;
        expect(r.error.code, channel).toBe('stored_data');
        expect(r.error.message, channel).toMatch(/Stored data error in history\.db: run r-stored-1 has a bad 'tags' \(not JSON\)/);
        expect(r.error.message, channel).toMatch(/Delete the run/);
      }
      const db2 = new DatabaseSync(path.join(dataDir, 'history.db'));
      db2.prepare("UPDATE runs SET tags = '[]', tflops_per_gpu = 'fast' WHERE id = 'r-stored-1'").run();
      db2.close();
      const r = await c.request('runs/list', {});
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message).toMatch(/run r-stored-1 has a bad 'tflops_per_gpu' \(not a number\)/);
      await stillUp(again);
    } finally {
      c.close();
      await again.stop();
    }
  });
});
