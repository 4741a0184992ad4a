// The host lanes' /proc readers on real files: this machine's /proc (what CI samples) and the
// H200 host's captured /proc/meminfo.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cpuBusyPercent, HostSampler, parseDiskstats, parseMeminfo, parseProcStat } from '../../../electron/services/monitor';

const linux = process.platform === 'linux';
const H200 = path.resolve(import.meta.dirname, '../../fixtures/hosts/h200-sxm-x86');

describe.skipIf(!linux)('/proc readers on this machine', () => {
  it('reads one busy share per logical CPU, between 0 and 100, that sees a busy loop', async () => {
    const before = parseProcStat(fs.readFileSync('/proc/stat', 'utf8'));
    expect(before.size).toBe(os.cpus().length);
    const until = Date.now() + 300;
    while (Date.now() < until); // keep one core busy for 0.3 s
    const busy = cpuBusyPercent(before, parseProcStat(fs.readFileSync('/proc/stat', 'utf8')));
    expect(busy).toHaveLength(before.size);
    for (const b of busy) (expect(b).toBeGreaterThanOrEqual(0), expect(b).toBeLessThanOrEqual(100));
    expect(Math.max(...busy)).toBeGreaterThanOrEqual(50); // the loop's core
  });

  it('reads memory, swap and whole-disk counters', () => {
    const m = parseMeminfo(fs.readFileSync('/proc/meminfo', 'utf8'))!;
    expect(m.totalBytes).toBe(os.totalmem());
    expect(m.usedBytes).toBeGreaterThan(0);
    expect(m.usedBytes).toBeLessThan(m.totalBytes);
    const d = parseDiskstats(fs.readFileSync('/proc/diskstats', 'utf8'));
    for (const dev of d.devices) expect(dev).toMatch(/^(nvme\d+n\d+|[shv]d[a-z]+|xvd[a-z]+)$/);
  });

  it('the host sampler gives CPU shares from its second reading on', async () => {
    const h = new HostSampler();
    expect((await h.read()).cpuBusyPct).toEqual([]); // a share is a difference
    await new Promise((r) => setTimeout(r, 100));
    const r = await h.read();
    expect(r.cpuBusyPct).toHaveLength(os.cpus().length);
    expect(h.cpu).toEqual({ available: true, reason: null });
    expect(r.memUsedBytes).toBeGreaterThan(0);
  });

  it('a /proc without the files says the lanes are not available instead of reading zeros', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'os-proc-'));
    const h = new HostSampler(empty);
    const r = await h.read();
    expect(r).toMatchObject({ cpuBusyPct: [], memUsedBytes: null, diskReadBps: null });
    expect(h.cpu.available).toBe(false);
    expect(h.cpu.reason).toMatch(/stat could not be read/);
    expect(h.memory.reason).toMatch(/meminfo/);
    expect(h.disk.reason).toMatch(/no whole disk/);
  });
});

describe('captured /proc of the H200 host', () => {
  it('reads its memory (126 GiB) and that it has no swap (null, not 0)', () => {
    const m = parseMeminfo(fs.readFileSync(path.join(H200, 'proc-meminfo.txt'), 'utf8'))!;
    expect(m.totalBytes).toBe(131961788 * 1024);
    expect(m.swapUsedBytes).toBeNull();
    expect(m.usedBytes).toBeGreaterThan(0);
    expect(m.usedBytes).toBeLessThan(m.totalBytes);
  });
});
