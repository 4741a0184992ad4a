// Which machine the plan is for: this one, a saved `detect --json` (the file's content is read
// here and sent with the request), a machine seen in history (its snapshot at run time), or a
// catalogued machine (the scenarios'). The plan says which it used.
import { useEffect, useState } from 'react';
import type { Machine } from '../../../../electron/contract';
import { api } from '../../api/client';
import { formatBytes } from '../../format';
import { useHardware } from '../../stores/hardware';
import { machineFromText, machineLabel, usePlan, type MachineChoice as Choice } from '../../stores/plan';
import { useFileBackedSession } from './PlannedFor';

interface Option {
  key: string;
  label: string;
  choice: Choice;
}

/** One machine per machineId seen in history, from the snapshot of its latest run (at most 16: the bundled samples
 *  alone come from nine instances, and at 8 a new one pushed the oldest, the H200 reference host, out of the list). */
async function historyMachines(exclude: string | null): Promise<Option[]> {
  const { runs } = await api.invoke('runs/list', { limit: 100000 });
  const latest = new Map<string, string>();
  for (const r of runs) if (r.machineId && r.machineId !== exclude && !latest.has(r.machineId)) latest.set(r.machineId, r.id);
  const out: Option[] = [];
  for (const [machineId, runId] of [...latest].slice(0, 16)) {
    try {
      const detail = await api.invoke('runs/get', { id: runId, logLines: 0 });
      const m = detail.snapshot as Machine | null;
      if (m && typeof m === 'object' && Array.isArray(m.gpus))
        out.push({
          key: `history:${machineId}`,
          label: `${machineLabel(m)} (seen in history)`,
          choice: { kind: 'history', key: `history:${machineId}`, label: machineLabel(m), machine: m },
        });
    } catch {
      // a run without a snapshot: not offered
    }
  }
  return out;
}

export function MachineChoice() {
  const { machine: choice, setMachine, presets } = usePlan();
  const detected = useHardware((s) => s.machine);
  const [history, setHistory] = useState<Option[]>([]);
  const [loaded, setLoaded] = useState<Option | null>(choice.kind === 'file' ? { key: choice.key, label: choice.label, choice } : null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    void historyMachines(detected?.machineId ?? null)
      .then((o) => live && setHistory(o))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [detected?.machineId]);

  const catalogue: Option[] = (presets?.scenarios ?? [])
    .filter((s) => s.machine)
    .map((s) => ({
      key: `catalogue:${s.id}`,
      label: `${s.machine!.description} (catalogue)`,
      choice: { kind: 'catalogue', key: `catalogue:${s.id}`, label: s.machine!.description, machine: s.machine!.value },
    }));
  // Under serve --machine FILE the backend's machine is the file's: named so, never "this machine".
  const fileBacked = useFileBackedSession();
  const thisOne: Option = {
    key: 'this',
    label: detected
      ? fileBacked
        ? `${machineLabel(detected)} (loaded with --machine, not this machine)`
        : `This machine — ${machineLabel(detected)}`
      : 'This machine',
    choice: { kind: 'this' },
  };
  const options = [thisOne, ...(loaded ? [loaded] : []), ...history, ...catalogue];
  const current = choice.kind === 'this' ? 'this' : choice.key;
  const m = choice.kind === 'this' ? detected : choice.machine;

  return (
    <div className="machine-choice" data-testid="machine-choice">
      <label className="field wide">
        <span>Plan for</span>
        <select
          value={current}
          data-testid="machine-select"
          onChange={(e) => setMachine(options.find((o) => o.key === e.target.value)?.choice ?? { kind: 'this' })}
        >
          {options.map((o) => (
            <option key={o.key} value={o.key}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      <label className="field wide">
        <span>
          …or load a saved <code>detect --json</code>
        </span>
        <input
          type="file"
          accept=".json,application/json"
          data-testid="machine-file"
          onChange={async (e) => {
            const file = e.target.files?.[0];
            if (!file) return;
            try {
              const machine = machineFromText(await file.text());
              const key = `file:${file.name}`;
              const option: Option = {
                key,
                label: `${machineLabel(machine)} (from ${file.name})`,
                choice: { kind: 'file', key, label: `${machineLabel(machine)} (from ${file.name})`, machine },
              };
              setLoaded(option);
              setMachine(option.choice);
              setError(null);
            } catch (err) {
              setError((err as Error).message);
            }
          }}
        />
      </label>
      {error && (
        <p className="warn-text small" role="alert">
          {error}
        </p>
      )}
      {m && (
        <p className="muted small" data-testid="machine-summary">
          {m.gpus.length ? `${m.gpus.length} × ${m.gpus[0].name}, ${formatBytes(m.gpus[0].memoryBytes ?? 0)} each` : 'No GPU'} ·{' '}
          {m.cpu.physicalCores} cores · {formatBytes(m.memory.totalBytes)} memory
          {choice.kind !== 'this' ? ' · figures not measured on this machine are catalogued ones' : ''}
        </p>
      )}
    </div>
  );
}
