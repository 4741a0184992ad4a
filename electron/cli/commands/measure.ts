// `measure`: measure this host (CPU Adam rate per thread count, memory bandwidth, host<->GPU
// copies) and store the result for the tuner. --json prints the hardware/measure response.
import fs from 'node:fs';
import { formatDateTime, type Machine, type MeasureKind, type MeasurementChoice } from '../../contract';
import { readRegularText } from '../../services/files';
import { measurementFromFile, saveMeasurement } from '../../services/hardware';
import { parseMachine } from '../../services/tuner';
import type { Command } from '../command';
import { onInterrupt, UsageError } from '../../kernel';
import { INPUT_LIMITS } from '../user-files';
import { formatRate } from '../format';

const KINDS: MeasureKind[] = ['cpuAdam', 'memoryBandwidth', 'hostDevice', 'torchAdam'];
const gb = (bytesPerSecond: number) => formatRate(bytesPerSecond, 'B');

/** `measure --list`: this machine's measurements, newest first, the one plans use marked, the flagged ones said. */
function choiceLines(c: MeasurementChoice): string[] {
  return [
    `measurements of machine ${c.machineId}, newest first (* = the one plans use):`,
    ...c.measurements.map(
      (m, i) =>
        `${String(i + 1).padStart(3)} ${m.measuredAt === c.usedAt ? '*' : ' '} ${formatDateTime(m.measuredAt)}  CPU Adam ${
          m.cpuAdamParamsPerSecond !== null ? formatRate(m.cpuAdamParamsPerSecond, ' params', 3) : '—'
        }  triad ${m.memoryBandwidthBytesPerSecond ? gb(m.memoryBandwidthBytesPerSecond) : '—'}  took ${Math.round(m.durationMs / 1000)} s${
          m.flagged.length ? `  flagged: ${m.flagged.join('; ')}` : ''
        }`,
    ),
    c.words,
    `pick one: measure --use N (its number above) · back to the rule: measure --use auto`,
  ];
}

export const measureCommands: Record<string, Command> = {
  measure: {
    summary:
      "measure the host: CPU Adam by thread count, memory and host-GPU bandwidth, torch's CPU AdamW in the engine environment (--budget-seconds N, --only cpuAdam,hostDevice,torchAdam); --import FILE [--machine detect.json] stores another machine's measurements under its id; --list shows this machine's measurements and which one plans use, --use N|auto picks it",
    async run({ backend, flags, json, out }) {
      if (typeof flags.import === 'string') {
        // Another machine's measurements (its `measure --json`, or the native driver's output), stored
        // under that machine's id: plans for its `detect --json` file then use them.
        const read = (file: string, what: '--machine' | '--import'): unknown => {
          // Regular files only, bounded: a FIFO or /dev/zero is refused naming it (no hang).
          const text = readRegularText(file, {
            label: what,
            maxBytes: what === '--machine' ? INPUT_LIMITS.machine : INPUT_LIMITS.measurements,
          });
          try {
            return JSON.parse(text);
          } catch (error) {
            throw Object.assign(new UsageError(`${what} ${file}: cannot read it as JSON (${(error as Error).message})`), {
              field: what.replace(/^--/, ''),
            });
          }
        };
        // The file first: one that cannot be read is refused before detection runs.
        const imported = read(flags.import, '--import');
        const machine: Machine =
          typeof flags.machine === 'string'
            ? parseMachine(read(flags.machine, '--machine'), `--machine ${flags.machine}`)
            : await backend.invoke('hardware/detect', {});
        const at =
          typeof flags['measured-at'] === 'string' ? flags['measured-at'] : new Date(fs.statSync(flags.import).mtimeMs).toISOString();
        let m;
        try {
          m = measurementFromFile(imported, machine.machineId, at);
        } catch (error) {
          throw Object.assign(new UsageError(`--import ${flags.import}: ${(error as Error).message}`), { field: 'import' });
        }
        saveMeasurement(backend.dataDir, m, true);
        if (json) out(JSON.stringify(m, null, 2));
        else
          out(
            `stored the measurements of machine ${machine.machineId} (${machine.hostname}) from ${flags.import}: ${m.cpuAdam.length} CPU Adam points${m.hostDevice ? ', host↔GPU copies' : ''}${m.memoryBandwidthBytesPerSecond ? ', memory bandwidth' : ''}`,
          );
        return 0;
      }
      if (flags.list === true || typeof flags.use === 'string') {
        // Which measurement this machine's plans use: listed, or picked by its number or its measuredAt.
        let choice = await backend.invoke('hardware/measurements', {});
        if (!choice) throw new UsageError('no measurements of this machine are stored: measure it first (measure)');
        if (typeof flags.use === 'string') {
          const text = flags.use.trim();
          const n = /^\d+$/.test(text) ? Number(text) : null;
          const measuredAt = text === 'auto' ? null : n !== null ? (choice.measurements[n - 1]?.measuredAt ?? '') : text;
          if (measuredAt === '')
            throw new UsageError(
              `--use ${text}: there are ${choice.measurements.length} measurement(s); use 1 to ${choice.measurements.length}, a measuredAt, or auto (measure --list)`,
            );
          choice = await backend.invoke('hardware/measurement-use', { measuredAt });
        }
        if (json) out(JSON.stringify(choice, null, 2));
        else for (const line of choiceLines(choice)) out(line);
        return 0;
      }
      const request: { budgetSeconds?: number; include?: MeasureKind[] } = {};
      if (typeof flags['budget-seconds'] === 'string') {
        const text = flags['budget-seconds'];
        const seconds = Number(text);
        if (text.trim() === '' || !Number.isFinite(seconds) || seconds <= 0 || seconds > 3600)
          throw new UsageError(
            `--budget-seconds '${text}' is not a number of seconds from 1 to 3600: e.g. --budget-seconds 30 (10 is quick, 90 thorough)`,
          );
        request.budgetSeconds = seconds;
      }
      if (typeof flags.only === 'string') request.include = flags.only.split(',').map((s) => s.trim()) as MeasureKind[];
      for (const k of request.include ?? [])
        if (!KINDS.includes(k)) throw new UsageError(`--only: unknown measurement '${k}' (use ${KINDS.join(', ')})`);
      // Progress goes to stderr so --json output stays one parseable document.
      const off = backend.on('hardware/measure-progress', (p) => {
        process.stderr.write(
          `[${Math.round(p.fraction * 100)
            .toString()
            .padStart(3)}%] ${p.message}\n`,
        );
      });
      // First press: the measurement is aborted (hardware/measure-cancel); a second press ends
      // the CLI at once, as Ctrl-C twice always has.
      const offInterrupt = onInterrupt((press) => {
        if (press === 1) void backend.invoke('hardware/measure-cancel', {});
        else process.exit(130);
      });
      try {
        const m = await backend.invoke('hardware/measure', request);
        if (json) {
          out(JSON.stringify(m, null, 2));
          return 0;
        }
        out(`SIMD path   ${m.simdPath}`);
        for (const p of m.cpuAdam)
          out(`CPU Adam    ${String(p.threads).padStart(3)} threads  ${formatRate(p.paramsPerSecond, ' params', 3)}`);
        if (m.recommendedCoresPerc !== null)
          out(`recommended cpuadam_cores_perc ${m.recommendedCoresPerc} (${m.recommendedThreads} threads)`);
        if (m.memoryBandwidthBytesPerSecond !== null) out(`memory      ${gb(m.memoryBandwidthBytesPerSecond)} (triad)`);
        if (m.hostDevice)
          out(
            `host↔GPU    pinned H2D ${gb(m.hostDevice.pinned.h2dBytesPerSecond)}, D2H ${gb(m.hostDevice.pinned.d2hBytesPerSecond)}; pageable H2D ${gb(m.hostDevice.pageable.h2dBytesPerSecond)}, D2H ${gb(m.hostDevice.pageable.d2hBytesPerSecond)}`,
          );
        else out(`host↔GPU    ${m.hostDeviceReason}`);
        if (m.torchAdam) {
          const r = m.torchAdam.paramsPerSecond;
          const each = (['plain', 'foreach', 'fused'] as const)
            .filter((k) => r[k])
            .map((k) => `${k} ${formatRate(r[k] ?? 0, ' params', 3)}`);
          out(
            `torch AdamW ${String(m.torchAdam.threads).padStart(3)} threads  ${each.join(', ')} (torch ${m.torchAdam.torch}, FSDP2 offload's step)`,
          );
        } else if (m.torchAdamReason) out(`torch AdamW ${m.torchAdamReason}`);
        // kinds not asked for this time keep this machine's earlier figures (the tuner reads the latest)
        for (const [kind, at] of Object.entries(m.carried ?? {})) out(`kept        ${kind} from the measurement of ${at}`);
        out(`took        ${Math.round(m.durationMs / 1000)} s`);
        // beside this machine's earlier measurements: the spread, and a warning where this one is far off
        for (const sp of m.spread ?? []) out(`${sp.disagrees ? 'warning:' : 'spread: '}    ${sp.words}`);
        return 0;
      } finally {
        off();
        offInterrupt();
      }
    },
  },
};
