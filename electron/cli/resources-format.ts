// The CLI's words for the resource view: `run --watch`'s live line and `runs show ID
// --resources`'s attribution. A lane that was not measured prints "n/a (why)", never 0.
import type { LaneAvailability, ResourceLiveEvent, RunResources } from '../contract';
import { formatBytes, formatFigureCli } from './format';

/** One line per second: GPU busy and memory, PCIe both ways, CPU cores busy, the machine's memory in use and swap. */
export function liveLine(e: ResourceLiveEvent): string {
  const a: LaneAvailability = e.availability;
  const s = e.sample;
  const parts: string[] = [];
  if (!a.gpu.available) parts.push(`GPU n/a (${a.gpu.reason})`);
  else if (s.gpus.length === 0) parts.push('GPU waiting for nvidia-smi');
  else {
    const util = s.gpus.map((g) => g.utilPct).filter((x): x is number => x !== null);
    const mem = s.gpus.reduce((t, g) => t + (g.memUsedMiB ?? 0), 0) * 2 ** 20;
    parts.push(
      `GPU ${util.length ? Math.round(util.reduce((x, y) => x + y, 0) / util.length) : '—'}% ×${s.gpus.length} mem ${formatBytes(mem)}`,
    );
  }
  if (a.pcie.available) {
    const rx = s.gpus.reduce((t, g) => t + (g.pcieRxMBps ?? 0), 0) / 1000;
    const tx = s.gpus.reduce((t, g) => t + (g.pcieTxMBps ?? 0), 0) / 1000;
    parts.push(`PCIe ↓${rx.toFixed(1)} ↑${tx.toFixed(1)} GB/s`);
  } else if (a.gpu.available) parts.push(`PCIe n/a (${a.pcie.reason})`);
  if (!a.cpu.available) parts.push(`CPU n/a (${a.cpu.reason})`);
  else if (s.cpuBusyPct.length) parts.push(`CPU ${s.cpuBusyPct.filter((p) => p >= 90).length}/${s.cpuBusyPct.length} cores busy`);
  // The whole machine's memory in use (every process), not this run's: the step lines say "run RSS" for that.
  if (a.memory.available && s.memUsedBytes !== null)
    parts.push(
      `machine RAM used ${formatBytes(s.memUsedBytes)}${s.memTotalBytes !== null ? ` of ${formatBytes(s.memTotalBytes)}` : ''}${s.swapUsedBytes !== null ? ` swap ${formatBytes(s.swapUsedBytes)}` : ''}`,
    );
  return `[resources] ${parts.join('  ')}`;
}

/** `runs show ID --resources`: what the lanes said over the measured steps and each step, beside the tuner's terms. */
export function printResources(r: RunResources, out: (line: string) => void): void {
  if (!r.record || !r.attribution) {
    out(`${r.runId}: resources not available: ${r.missing}`);
    return;
  }
  const { record, attribution: a } = r;
  out(
    `${r.runId}: ${record.samples.length} sample(s) every ${record.intervalMs / 1000} s${record.downsampled ? ` (halved ${record.downsampled}× to stay bounded)` : ''}${record.dropped ? `, ${record.dropped} dropped (the sampler fell behind)` : ''}`,
  );
  for (const u of a.unavailable) out(`  ${u}`);
  out('');
  out(
    `measured steps (median ${a.measuredStepSeconds === null ? '—' : `${formatFigureCli(a.measuredStepSeconds, 3)} s`}): ${a.overall ? a.overall.text : 'no measured step'}`,
  );
  for (const s of a.steps) out(`  ${s.label}: ${s.text}`);
  out('');
  out(
    `predicted${a.predicted.stepSeconds !== null ? ` ${formatFigureCli(a.predicted.stepSeconds, 3)} s/step` : ''}${a.predicted.note ? ` — ${a.predicted.note}` : ''}`,
  );
  if (a.predicted.terms.length === 0) out('  (no predicted term above 0)');
  const width = Math.max(8, ...a.predicted.terms.map((t) => t.term.length));
  for (const t of a.predicted.terms)
    out(`  ${t.term.padEnd(width)} ${formatFigureCli(t.seconds, 3).padStart(8)} s   ${t.lane.padEnd(6)} measured: ${t.measured}`);
}
