// What a report says beside the comparison (which is the history's own, through its index):
// the name of the system a run ran on, and the warnings a reader must see.
import type { ReportRun } from './types';

/** "4× NVIDIA GH200 480GB" / "Intel Xeon … (CPU only)" / null when no snapshot was kept. */
export function systemName(run: ReportRun): string | null {
  const m = run.machine;
  if (!m) return null;
  if (m.gpus.length > 0) {
    const n = Math.min(run.workload.worldSize, m.gpus.length) || m.gpus.length;
    return `${n}× ${m.superchip?.kind ?? m.gpus[0].name}`;
  }
  return `${m.cpu.model} (CPU only)`;
}

/** Warnings the reader must see: runs from different systems, failed runs, missing samples. */
export function reportWarnings(runs: ReportRun[]): string[] {
  const warnings: string[] = [];
  const systems = new Map<string, string[]>();
  for (const r of runs) {
    const key = r.machine ? `${r.machine.hostname} · ${systemName(r) ?? ''}` : '(no snapshot)';
    systems.set(key, [...(systems.get(key) ?? []), r.summary.id]);
  }
  if (systems.size > 1)
    warnings.push(
      `These runs come from ${systems.size} different systems (${[...systems.keys()].join('; ')}): figures across systems are not like for like.`,
    );
  const notDone = runs.filter((r) => r.summary.status !== 'completed');
  if (notDone.length)
    warnings.push(
      `${notDone.length} run(s) did not complete (${notDone.map((r) => `${r.summary.id}: ${r.summary.status}`).join(', ')}); their figures are partial or absent.`,
    );
  const noSamples = runs.filter((r) => r.figures.source !== 'samples' && r.summary.status === 'completed');
  if (noSamples.length)
    warnings.push(`${noSamples.length} run(s) have no stored per-step samples; their spread comes from the runner's summary.`);
  return warnings;
}
