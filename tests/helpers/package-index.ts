// A local Python package index for install tests (PEP 503 "simple" pages over HTTP on
// 127.0.0.1), serving the wheels of one folder — and faults on demand: a file cut half way
// (the headers promise all of it, half comes, then the connection drops) or one that stalls half
// way (the connection stays open, nothing more comes). Offline; nothing leaves the machine.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export type Fault = 'cut' | 'stall';

export interface PackageIndex {
  /** `http://127.0.0.1:<port>/simple/` */
  url: string;
  /** Requests for a file, by file name (every attempt pip makes). */
  fileRequests: Map<string, number>;
  /** Faults by file-name prefix (`bigpkg-`): set or cleared at any time. */
  faults: Map<string, Fault>;
  /** Resolves at the next request for a file starting with `prefix`. */
  requested(prefix: string): Promise<void>;
  close(): Promise<void>;
}

const normalise = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

export async function startPackageIndex(dir: string): Promise<PackageIndex> {
  const fileRequests = new Map<string, number>();
  const faults = new Map<string, Fault>();
  const waiters: { prefix: string; resolve: () => void }[] = [];
  const stalled = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const target = decodeURIComponent((req.url ?? '/').split('?')[0]);
    const wheels = fs.readdirSync(dir).filter((f) => f.endsWith('.whl') || f.endsWith('.tar.gz'));
    let m = /^\/simple\/([^/]+)\/?$/.exec(target);
    if (m) {
      const project = normalise(m[1]);
      const mine = wheels.filter((f) => normalise(f.split('-')[0]) === project);
      if (mine.length === 0) return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': 'text/html' });
      return void res.end(
        `<!DOCTYPE html><html><body>\n${mine.map((f) => `<a href="/files/${f}">${f}</a>`).join('<br>\n')}\n</body></html>\n`,
      );
    }
    m = /^\/files\/([^/]+)$/.exec(target);
    if (m && wheels.includes(m[1])) {
      const name = m[1];
      fileRequests.set(name, (fileRequests.get(name) ?? 0) + 1);
      for (const w of waiters.splice(0))
        if (name.startsWith(w.prefix)) w.resolve();
        else waiters.push(w);
      const data = fs.readFileSync(path.join(dir, name));
      const fault = [...faults].find(([prefix]) => name.startsWith(prefix))?.[1];
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': data.length });
      if (!fault) return void res.end(data);
      // Half the bytes promised, then the connection drops (cut) or goes silent (stall).
      res.write(data.subarray(0, data.length >> 1), () => {
        if (fault === 'cut') setTimeout(() => res.socket?.destroy(), 20);
        else stalled.add(res);
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/simple/`,
    fileRequests,
    faults,
    requested: (prefix) => new Promise((resolve) => waiters.push({ prefix, resolve })),
    async close() {
      for (const res of stalled) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A pure-Python wheel `<name>-<version>-py3-none-any.whl` in `dir` carrying `bytes` of random data. */
export function makeWheel(dir: string, name: string, version: string, bytes: number): string {
  const script = `
import base64, hashlib, os, sys, zipfile
out, name, ver, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
files = {f"{name}/__init__.py": f"VALUE = {ver!r}\\n".encode(), f"{name}/blob.bin": os.urandom(size)}
di = f"{name}-{ver}.dist-info"
files[f"{di}/METADATA"] = f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {ver}\\n".encode()
files[f"{di}/WHEEL"] = b"Wheel-Version: 1.0\\nGenerator: offload-studio-tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
record = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}" for p, d in files.items()]
files[f"{di}/RECORD"] = ("\\n".join(record + [f"{di}/RECORD,,"]) + "\\n").encode()
path = os.path.join(out, f"{name}-{ver}-py3-none-any.whl")
with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
    for p, d in files.items():
        z.writestr(p, d)
print(path)
`;
  const r = spawnSync('python3', ['-c', script, dir, name, version, String(bytes)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`making the ${name} wheel failed: ${r.stderr}`);
  return r.stdout.trim();
}
