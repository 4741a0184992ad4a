// How a bench script reports a figure: one human line and one machine line
// (`BENCH {"id":…}`) that bench/run-all.ts collects into the stable table.
export interface Figure {
  id: string; // stable, kebab-case: "tuner-plan-all-ms"
  label: string; // what it measures, for people
  value: number;
  unit: string; // "ms", "GB/s", "%", …
  goal: string; // "< 50 ms", "≥ 90 %"
  ok: boolean | null; // null where the goal does not apply on this machine
  note?: string;
}

export function reportFigure(figure: Figure): void {
  const verdict = figure.ok === null ? 'n/a' : figure.ok ? 'ok' : 'MISSED';
  console.log(
    `${figure.label}: ${formatValue(figure.value)} ${figure.unit} (goal ${figure.goal}) ${verdict}${figure.note ? ` — ${figure.note}` : ''}`,
  );
  console.log(`BENCH ${JSON.stringify(figure)}`);
}

export function formatValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
