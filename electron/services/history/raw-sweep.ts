// Converts a folder of raw runner output into an importable runs file. A device sweep is the runner
// fed the app's specs (`plan --write-specs DIR` or scripts/device-specs.ts, then `bench.py --spec`
// per file): each `<name>.jsonl` (the runner's JSON lines on stdout) comes with the RunSpec it ran —
// `<name>.spec.json` beside it, or `<name>.json` beside it or in the specs folder — which says the
// strategy, model and config, so nothing is mapped from file names. The runs go through the store's own
// lifecycle (create → start → hello/config → samples → finish) in a throw-away database and are
// exported from there, so a converted run has exactly the rows a run measured by the app has.
// Timestamps come from the runner's messages (`t`, Unix seconds), not from the conversion.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  describeIssue,
  ApiError,
  RunnerMessageSchema,
  RunSpecSchema,
  runnerMessageSchemas,
  toRunSample,
  type RunnerMessage,
  type RunsFile,
  type RunSpec,
} from '../../contract';
import { openDatabase } from './database';
import { exportRuns } from './import-export';
import { createRun, finishRun, recordDocument, startRun } from './lifecycle';
import { insertSamples } from './samples';

export interface RawSweepSource {
  label: string; // "sample: 1× H200 SXM 141 GB, Xeon 16 cores, PCIe Gen5 — measured 2026-12-02"
  machine: string | null;
  measuredAt: string | null;
  note: string | null;
}

export interface RawSweepOptions {
  source: RawSweepSource;
  sweepId: string;
  /** The machine as `detect --json` printed it on the measuring host, if it was kept. */
  snapshot?: unknown;
  tags?: string[];
  /** Where the specs are when they are not beside the output (`<name>.json`). */
  specsDir?: string;
}

/** Protocol lines by type; a line of a type this version does not know (e.g. a newer runner's
 *  `preflight`) is counted in `otherTypes`, a line that is not valid JSON or fails its schema in `rejected`. */
export function parseRunnerLines(text: string): { messages: RunnerMessage[]; rejected: number; otherTypes: Record<string, number> } {
  const messages: RunnerMessage[] = [];
  const otherTypes: Record<string, number> = {};
  let rejected = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      rejected++;
      continue;
    }
    const type = (json as { type?: unknown } | null)?.type;
    if (typeof type === 'string' && !(type in runnerMessageSchemas)) {
      otherTypes[type] = (otherTypes[type] ?? 0) + 1;
      continue;
    }
    const parsed = RunnerMessageSchema.safeParse(json);
    if (parsed.success) messages.push(parsed.data);
    else rejected++;
  }
  return { messages, rejected, otherTypes };
}

const iso = (t: number | undefined) => (typeof t === 'number' ? new Date(t * 1000).toISOString() : null);

/** The spec a run's output was made with: `<name>.spec.json` beside `<name>.jsonl`, checked
 *  against the contract's RunSpec schema (a problem is named: file and field). */
function readSpec(dir: string, runId: string, specsDir?: string): { spec: RunSpec } | { problem: string } {
  const candidates = [
    path.join(dir, `${runId}.spec.json`),
    ...(specsDir ? [path.join(specsDir, `${runId}.json`)] : []),
    path.join(dir, `${runId}.json`),
  ];
  const file = candidates.find((f) => fs.existsSync(f));
  if (!file) return { problem: `${runId}.jsonl: no ${runId}.spec.json beside it (the RunSpec it ran)` };
  const shown = path.basename(file);
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    return { problem: `${shown}: not JSON (${(error as Error).message})` };
  }
  const parsed = RunSpecSchema.safeParse(json);
  if (!parsed.success) {
    return { problem: `${shown}: ${describeIssue(parsed.error)}` };
  }
  return { spec: parsed.data };
}

export function convertRunnerSweep(
  dir: string,
  options: RawSweepOptions,
): { file: RunsFile; rejectedLines: number; otherTypes: Record<string, number>; skipped: string[] } {
  const files = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()
    : [];
  if (files.length === 0) throw new ApiError('not_found', `No runner output (*.jsonl) in ${dir}.`, 'path');
  let rejectedLines = 0;
  const otherTypes: Record<string, number> = {};
  const skipped: string[] = [];
  const runs: { runId: string; spec: RunSpec; messages: RunnerMessage[] }[] = [];
  for (const name of files) {
    const runId = name.replace(/\.jsonl$/, '');
    const found = readSpec(dir, runId, options.specsDir);
    if ('problem' in found) {
      skipped.push(found.problem);
      continue;
    }
    const { messages, rejected, otherTypes: other } = parseRunnerLines(fs.readFileSync(path.join(dir, name), 'utf8'));
    // A runner that names the spec it ran (config.configHash) must have run this one.
    const ran = (messages.find((m) => m.type === 'config') as { configHash?: unknown } | undefined)?.configHash;
    if (typeof ran === 'string' && ran !== found.spec.configHash) {
      skipped.push(`${runId}.jsonl: ran config ${ran}, but the spec beside it is ${found.spec.configHash}`);
      continue;
    }
    rejectedLines += rejected;
    for (const [k, n] of Object.entries(other)) otherTypes[k] = (otherTypes[k] ?? 0) + n;
    runs.push({ runId, spec: { ...found.spec, runId }, messages });
  }
  // Repeats: runs of one config (its hash), in the order the runner's clock says they ran.
  const startOf = (r: (typeof runs)[number]) => r.messages[0]?.t ?? 0;
  const repeatIndex = new Map<string, number>();
  for (const hash of new Set(runs.map((r) => r.spec.configHash)))
    runs
      .filter((r) => r.spec.configHash === hash)
      .sort((a, b) => startOf(a) - startOf(b))
      .forEach((r, i) => repeatIndex.set(r.runId, i));

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'offload-convert-'));
  const db = openDatabase(tmp);
  try {
    for (const { runId, spec, messages } of runs) {
      const of = <T extends RunnerMessage['type']>(type: T) =>
        messages.find((x) => x.type === type) as Extract<RunnerMessage, { type: T }> | undefined;
      const hello = of('hello');
      const config = of('config');
      const result = of('result');
      const error = of('error');
      const steps = messages.filter((x): x is Extract<RunnerMessage, { type: 'step' }> => x.type === 'step');
      const stderr =
        [path.join(dir, `${runId}.stderr.txt`), path.join(dir, `${runId}.log`)].find((f) => fs.existsSync(f)) ??
        path.join(dir, `${runId}.stderr.txt`);
      createRun(db, 'convert', {
        id: runId,
        sweepId: options.sweepId,
        repeatIndex: repeatIndex.get(runId) ?? 0,
        model: spec.model.id,
        strategy: spec.strategy,
        engine: spec.engine,
        steps: steps.filter((s) => !s.warmup).length,
        warmup: steps.filter((s) => s.warmup).length,
        tags: options.tags ?? ['sample'],
        notes: `${options.source.label}. Converted from the runner's raw output (${runId}.jsonl) and the spec it ran.`,
        spec,
        predicted: spec.prediction ? { ...spec.prediction } : undefined,
      });
      startRun(db, runId, {
        snapshot: options.snapshot,
        machineId: (options.snapshot as { machineId?: string } | undefined)?.machineId ?? null,
        logPath: fs.existsSync(stderr) ? path.basename(stderr) : null,
      });
      if (hello) recordDocument(db, runId, 'hello', hello);
      if (config) recordDocument(db, runId, 'config', config);
      insertSamples(db, runId, steps.map(toRunSample));
      finishRun(
        db,
        runId,
        result
          ? { status: 'completed', result }
          : {
              status: 'failed',
              errorClass: error?.class ?? 'crashed',
              errorMessage: error?.message ?? 'The runner stopped without a result or an error line.',
              errorFix: error?.fix ?? null,
              result: null,
            },
      );
      // When it really ran: the runner's own clock.
      const last = messages[messages.length - 1];
      db.prepare(
        'UPDATE runs SET created_at = COALESCE(?, created_at), started_at = COALESCE(?, started_at), finished_at = COALESCE(?, finished_at), owner = NULL WHERE id = ?',
      ).run(iso(messages[0]?.t), iso(messages[0]?.t), iso(last?.t), runId);
    }
    return { file: exportRuns(db, undefined, options.source), rejectedLines, otherTypes, skipped };
  } finally {
    db.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
