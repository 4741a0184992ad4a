// The GPU lanes: two long-running nvidia-smi children (one process each for the whole run, rather
// than one per sample: starting nvidia-smi costs ~100 ms of CPU and NVML initialisation):
//   nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used,power.draw,clocks.sm
//              --format=csv,noheader,nounits -lms <interval>      → utilisation, memory, power, clock
//   nvidia-smi dmon -s t -d 1                                      → PCIe rx/tx MB/s (1 s is dmon's finest)
// Each keeps only its latest line per GPU; the monitor reads them at its own tick. Whatever goes
// wrong — no nvidia-smi, a child that hangs, prints garbage or dies — turns the lane into
// "not available: why" and ends that child; nothing here throws or waits on the run.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { LaneState } from '../../contract';
import { GPU_SAMPLE_FIELDS, parseDmonLine, parseGpuSampleLine, type DmonPcieLine, type GpuSampleLine } from '../hardware';

const MAX_LINE = 64 * 1024;

/** Lines of a child's stdout; a "line" longer than MAX_LINE (garbage without newlines) is dropped, so the buffer stays bounded. */
function lineReader(onLine: (line: string) => void): (chunk: Buffer) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString('utf8');
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      onLine(pending.slice(0, nl).replace(/\r$/, ''));
      pending = pending.slice(nl + 1);
    }
    if (pending.length > MAX_LINE) {
      onLine(''); // counted as a line that is no reading
      pending = '';
    }
  };
}

export interface GpuSamplerOptions {
  intervalMs: number;
  /** The nvidia-smi to run (tests point it at other programs to play a missing, hung or garbled one). */
  command?: string;
  /** Arguments replacing the real ones, per child (tests). */
  queryArgs?: string[];
  dmonArgs?: string[];
  /** Without a line that parses within this long, a child is taken as hung or garbled and ended. */
  hangMs?: number;
  /** Where to copy each child's raw stdout (for fixtures captured by the app's own code); null: not kept. */
  rawFilePrefix?: string | null;
}

interface Child {
  name: string;
  proc: ChildProcess | null;
  lines: number;
  parsed: number;
  lastParsedAt: number;
  stderr: string;
  raw: fs.WriteStream | null;
}

export const queryArgs = (intervalMs: number) => [
  `--query-gpu=${GPU_SAMPLE_FIELDS.join(',')}`,
  '--format=csv,noheader,nounits',
  '-lms',
  String(Math.round(intervalMs)),
];
export const DMON_ARGS = ['dmon', '-s', 't', '-d', '1'];

export class GpuSampler {
  readonly gpu: LaneState = { available: true, reason: null };
  readonly pcie: LaneState = { available: true, reason: null };
  private readonly latest = new Map<number, GpuSampleLine & { at: number }>();
  private readonly pcieLatest = new Map<number, DmonPcieLine & { at: number }>();
  private readonly children: Child[] = [];
  private watchdog: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly startedAt = Date.now();

  constructor(private readonly options: GpuSamplerOptions) {}

  start(): this {
    const command = this.options.command ?? 'nvidia-smi';
    const hangMs = this.options.hangMs ?? Math.max(5000, 6 * this.options.intervalMs);
    this.spawnChild('query', command, this.options.queryArgs ?? queryArgs(this.options.intervalMs), this.gpu, (line) => {
      const r = parseGpuSampleLine(line);
      if (r) this.latest.set(r.index, { ...r, at: Date.now() });
      return r !== null;
    });
    let columns: string[] | null = null;
    this.spawnChild('dmon', command, this.options.dmonArgs ?? DMON_ARGS, this.pcie, (line) => {
      const r = parseDmonLine(line, columns);
      columns = r.columns;
      if (r.row) this.pcieLatest.set(r.row.index, { ...r.row, at: Date.now() });
      // A header line is output nvidia-smi meant, not garbage: it does not count as a reading though.
      return r.row !== null;
    });
    // A child that prints nothing usable for hangMs (hung, or garbage) is ended and its lane says so.
    this.watchdog = setInterval(() => this.check(hangMs), Math.min(1000, hangMs / 2));
    this.watchdog.unref();
    return this;
  }

  /** The latest reading of each GPU, if fresh (taken within a few intervals); PCIe merged in by index. */
  readings(now = Date.now()) {
    const fresh = Math.max(3 * this.options.intervalMs, 2500); // dmon's period is 1 s
    const out = [];
    const indexes = new Set([...this.latest.keys(), ...this.pcieLatest.keys()]);
    for (const index of [...indexes].sort((a, b) => a - b)) {
      const g = this.latest.get(index);
      const p = this.pcieLatest.get(index);
      const gOk = g && now - g.at <= fresh;
      const pOk = p && now - p.at <= fresh;
      out.push({
        index,
        utilPct: gOk ? g.utilPct : null,
        memUsedMiB: gOk ? g.memUsedMiB : null,
        powerW: gOk ? g.powerW : null,
        smClockMHz: gOk ? g.smClockMHz : null,
        pcieRxMBps: pOk ? p.rxMBps : null,
        pcieTxMBps: pOk ? p.txMBps : null,
      });
    }
    return out;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    for (const c of this.children) this.end(c);
  }

  private spawnChild(name: string, command: string, args: string[], lane: LaneState, onLine: (line: string) => boolean): void {
    const child: Child = { name, proc: null, lines: 0, parsed: 0, lastParsedAt: 0, stderr: '', raw: null };
    this.children.push(child);
    if (this.options.rawFilePrefix) {
      try {
        fs.mkdirSync(path.dirname(this.options.rawFilePrefix), { recursive: true });
        child.raw = fs.createWriteStream(`${this.options.rawFilePrefix}.${name}.txt`);
        child.raw.on('error', () => (child.raw = null)); // a copy for fixtures must not cost the run anything
        child.raw.write(`# argv: ${JSON.stringify([command, ...args])}\n`);
      } catch {
        child.raw = null;
      }
    }
    let proc: ChildProcess;
    try {
      proc = spawn(command, args, { shell: false, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    } catch (error) {
      this.lose(lane, `${command} could not be started: ${(error as Error).message}`);
      return;
    }
    child.proc = proc;
    const push = lineReader((text) => {
      child.lines++;
      if (this.stopped) return;
      if (onLine(text)) {
        child.parsed++;
        child.lastParsedAt = Date.now();
      }
    });
    proc.stdout!.on('data', (chunk: Buffer) => {
      child.raw?.write(chunk);
      push(chunk);
    });
    proc.stderr!.on('data', (chunk: Buffer) => {
      if (child.stderr.length < 2000) child.stderr += chunk.toString('utf8');
    });
    proc.once('error', (error) => {
      const code = (error as NodeJS.ErrnoException).code;
      this.lose(
        lane,
        code === 'ENOENT'
          ? `${command} not found (no NVIDIA driver on this machine, or not on PATH)`
          : `${command} could not be started: ${error.message}`,
      );
      child.proc = null;
    });
    proc.once('exit', (code, signal) => {
      child.proc = null;
      if (this.stopped) return;
      const said = child.stderr.trim().split('\n')[0]?.slice(0, 200);
      const how = signal ? `was ended by ${signal}` : `exited with code ${code}`;
      this.lose(
        lane,
        `nvidia-smi ${name === 'dmon' ? 'dmon' : '--query-gpu'} ${how}${said ? `: ${said}` : ''}${child.parsed === 0 ? ' before giving a reading' : ''}`,
      );
    });
  }

  private check(hangMs: number): void {
    const now = Date.now();
    this.children.forEach((c, i) => {
      const lane = i === 0 ? this.gpu : this.pcie;
      if (!c.proc) return;
      const since = c.parsed ? now - c.lastParsedAt : now - this.startedAt;
      if (since < hangMs) return;
      const what =
        c.parsed === 0 && c.lines > 0
          ? `nvidia-smi printed ${c.lines} line(s) this version cannot read as ${c.name === 'dmon' ? 'PCIe throughput' : 'GPU readings'} in ${Math.round(hangMs / 1000)} s`
          : `nvidia-smi ${c.parsed ? 'stopped answering' : 'gave no reading'} for ${Math.round(since / 1000)} s (hung?)`;
      this.lose(lane, what);
      this.end(c);
    });
  }

  private lose(lane: LaneState, reason: string): void {
    if (!lane.available && lane.reason) return; // the first reason is the cause; what follows is its consequence
    lane.available = false;
    lane.reason = reason;
  }

  private end(c: Child): void {
    try {
      c.proc?.kill('SIGKILL'); // nvidia-smi holds nothing worth a graceful stop; a hung one ignores SIGTERM
    } catch {
      // already gone
    }
    c.proc = null;
    c.raw?.end();
    c.raw = null;
  }
}
