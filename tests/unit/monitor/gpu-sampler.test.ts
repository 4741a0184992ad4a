// The GPU sampler against real child processes playing a broken nvidia-smi (missing, hung,
// printing garbage, dying), and replaying the raw output the app's own sampler recorded on a leased
// H100 host (scripts/device-resources.sh; tests/fixtures/hosts/h100-x86-lease) through its parsers.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDmonLine, parseGpuSampleLine } from '../../../electron/services/hardware';
import { GpuSampler } from '../../../electron/services/monitor';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CAPTURE = path.resolve(import.meta.dirname, '../../fixtures/hosts/h100-x86-lease');
const QUERY = path.join(CAPTURE, 'nvidia-smi-sampler-query.txt');
const DMON = path.join(CAPTURE, 'nvidia-smi-sampler-dmon.txt');

describe('a broken nvidia-smi makes the lanes say why, and the sampler goes on', () => {
  it('missing: not found', async () => {
    const s = new GpuSampler({ intervalMs: 100, command: '/nonexistent/nvidia-smi' }).start();
    await wait(300);
    expect(s.gpu).toEqual({ available: false, reason: expect.stringMatching(/nvidia-smi not found/) });
    expect(s.pcie.available).toBe(false);
    expect(s.readings()).toEqual([]);
    s.stop();
  });

  it('hung: no reading within the watchdog time ends the child', async () => {
    const s = new GpuSampler({ intervalMs: 100, command: 'sleep', queryArgs: ['60'], dmonArgs: ['60'], hangMs: 600 }).start();
    await wait(1500);
    expect(s.gpu.available).toBe(false);
    expect(s.gpu.reason).toMatch(/gave no reading for \d+ s \(hung\?\)/);
    expect(s.pcie.reason).toMatch(/hung/);
    s.stop();
  });

  it('garbage: lines it cannot read are counted, never taken for readings', async () => {
    const s = new GpuSampler({
      intervalMs: 100,
      command: 'cat',
      queryArgs: ['/proc/cpuinfo'],
      dmonArgs: ['/proc/meminfo'],
      hangMs: 600,
    }).start();
    await wait(1500);
    expect(s.readings()).toEqual([]);
    expect(s.gpu.available).toBe(false);
    // cat exits at the end of the file: either reason is the truth, neither is a zero reading.
    expect(s.gpu.reason).toMatch(/cannot read as GPU readings|exited with code 0 .*before giving a reading/);
    s.stop();
  });

  it('a child that fails says what it printed on stderr', async () => {
    const s = new GpuSampler({ intervalMs: 100, command: 'ls', queryArgs: ['/nonexistent-dir'], dmonArgs: ['/nonexistent-dir'] }).start();
    await wait(500);
    expect(s.gpu.reason).toMatch(/exited with code 2: ls: cannot access/);
    s.stop();
  });

  it('garbage lines parse to nothing', () => {
    for (const line of [
      '',
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
      '0, 45, 12345',
      'a, b, c, d, e, f',
      '\u0000\u0001',
    ])
      expect(parseGpuSampleLine(line)).toBeNull();
    expect(parseDmonLine('    0     5     7', null).row).toBeNull(); // a row before any header is not trusted
    // [N/A] fields are null, not 0
    expect(parseGpuSampleLine('2026/12/05 03:30:00.123, 1, [N/A], 512, [Not Supported], 1980')).toEqual({
      index: 1,
      utilPct: null,
      memUsedMiB: 512,
      powerW: null,
      smClockMHz: 1980,
    });
  });
});

describe('raw nvidia-smi output the sampler recorded on a leased H100 host', () => {
  it('every data line of the query parses to a reading', () => {
    const lines = fs
      .readFileSync(QUERY, 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    const parsed = lines.map(parseGpuSampleLine);
    expect(
      parsed.every((p) => p !== null),
      lines.find((_, i) => !parsed[i]),
    ).toBe(true);
    const gpus = new Set(parsed.map((p) => p!.index));
    expect(gpus.size).toBeGreaterThanOrEqual(1);
    for (const p of parsed) {
      expect(p!.memUsedMiB).toBeGreaterThanOrEqual(0);
      expect(p!.memUsedMiB).toBeLessThanOrEqual(81559); // the H100's 80 GB (gpus.csv)
      expect(p!.smClockMHz).toBeLessThanOrEqual(1980);
    }
    // A run happened: some GPU was busy and drew more than idle power.
    expect(Math.max(...parsed.map((p) => p!.utilPct ?? 0))).toBeGreaterThan(50);
  });

  it('dmon gives PCIe rx/tx of each GPU, and moved data during the offload run', () => {
    let columns: string[] | null = null;
    const rows = [];
    for (const line of fs.readFileSync(DMON, 'utf8').split('\n')) {
      if (line.startsWith('# argv')) continue;
      const r = parseDmonLine(line, columns);
      columns = r.columns;
      if (r.row) rows.push(r.row);
    }
    expect(columns).toContain('rxpci');
    expect(rows.length).toBeGreaterThan(3);
    expect(Math.max(...rows.map((r) => (r.rxMBps ?? 0) + (r.txMBps ?? 0)))).toBeGreaterThan(1000);
  });

  it('replayed through the sampler (cat as nvidia-smi) gives readings', async () => {
    const s = new GpuSampler({ intervalMs: 100, command: 'cat', queryArgs: [QUERY], dmonArgs: [DMON] }).start();
    await wait(400);
    const r = s.readings();
    s.stop();
    expect(r.length).toBeGreaterThanOrEqual(1);
    expect(r[0].memUsedMiB).not.toBeNull();
  });
});
