// In the CLI, the machine a plan is for is explicit, and `plan` without --machine is a plan
// for THIS machine. It used to send the detected machine to plan/compute as if loaded from a file:
// the text said "(file)", the specs were stamped machineSource 'file', and this machine's own
// measurements and calibration were not used (the notes told you to import them from a file).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatFigure, type PlanResult } from '../../../electron/contract';
import { rowPrediction, strategyLabel, verdictWords } from '../../../electron/contract/charts';

const root = path.resolve(import.meta.dirname, '../../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-plan-machine-'));
const cli = (args: string[]) =>
  spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['electron/cli/main.ts', ...args, '--data-dir', dataDir], {
    cwd: root,
    encoding: 'utf8',
  });
const h200File = path.join(root, 'tests/fixtures/hosts/h200-sxm-x86/machine.json');

describe('plan says which machine it is for', () => {
  it('without --machine: this machine, detected, its specs stamped so, and its own measurements asked for', () => {
    const r = cli(['plan', '--model', 'tiny-llama', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as PlanResult;
    expect(plan.profile.machineSource).toBe('detected');
    for (const s of plan.strategies) if (s.spec.prediction) expect(s.spec.prediction.machineSource).toBe('detected');
    const hostNote = plan.notes.find((n) => n.startsWith('Host figures'));
    expect(hostNote).not.toMatch(/import its measurements/);
    const text = cli(['plan', '--model', 'tiny-llama']);
    expect(text.stdout.split('\n').find((l) => l.startsWith('machine: '))).toMatch(/^machine: .+ \(this machine\); /);
  });

  it('with --machine FILE: a loaded file, not this machine, and its plan does not run here', () => {
    const r = cli(['plan', '--model', 'tiny-llama', '--machine', h200File]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n').find((l) => l.startsWith('machine: '))).toMatch(
      /^machine: h200-sxm-x86 — 1× NVIDIA H200 \(a loaded file, not this machine: its plan does not run here\); /,
    );
  });
});

describe("plan's table is the Plan page's table (issue 49.4, 49.5)", () => {
  it('each row at the micro batch it runs with, in a column, with the verdict in the same three words', () => {
    const args = ['plan', '--model', 'llama-3.1-8b', '--seq', '4096', '--machine', h200File];
    const json = cli([...args, '--json']);
    expect(json.status, json.stderr).toBe(0);
    const plan = JSON.parse(json.stdout) as PlanResult;
    const text = cli(args).stdout.split('\n');
    for (const s of plan.strategies) {
      const row = text.find((l) => l.startsWith(`${strategyLabel(s.id)} (${s.id}) `))!;
      const cells = row.slice(44).split(/\s{2,}/);
      // verdict, GPU, host, NVMe, micro, step s, TFLOPS/GPU: what the Plan page reads (rowPrediction, verdictWords)
      expect(cells[0], s.id).toBe(verdictWords(s, plan.profile.gpuCount));
      const [micro, step, tflops] = cells.slice(4, 7);
      expect(Number(micro), s.id).toBe(s.spec.microBatch);
      const p = rowPrediction(s);
      expect([step, tflops], s.id).toEqual(
        s.fits ? [formatFigure(p.stepSeconds, 2, false), formatFigure(p.tflopsPerGpu, 1, false)] : ['—', '—'],
      );
    }
    // The pick runs at a searched micro batch, not the form's 1: its row says so, with that batch's speed.
    const pick = plan.strategies.find((s) => s.id === plan.recommended!.strategyId)!;
    expect(pick.spec.microBatch).toBeGreaterThan(1);
    // A row the recommendation names as the one trial to confirm reads "at the edge", not "needs more GPU memory".
    const edge = plan.recommended!.edgeTrial!;
    const edgeRow = text.find((l) => l.startsWith(`${strategyLabel(edge.strategyId)} (${edge.strategyId}) `))!;
    expect(edgeRow.slice(44)).toMatch(/^at the edge\s/);
    expect(text.some((l) => l.startsWith(`fastest: one trial to confirm — ${strategyLabel(edge.strategyId)}`))).toBe(true);
  });
});
