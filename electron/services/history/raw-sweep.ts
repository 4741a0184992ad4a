// Converts a folder of raw runner output (resources/engine/sweep.py: <runId>.jsonl per run, the
// runner's JSON lines on stdout) into an importable runs file. The runs go through the store's own
// lifecycle (create → start → hello/config → samples → finish) in a throw-away database and are
// exported from there, so a converted run has exactly the rows a run measured by the app has.
// Timestamps come from the runner's messages (`t`, Unix seconds), not from the conversion.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiError, RunnerMessageSchema, runnerMessageSchemas, type RunnerMessage, type RunsFile, type RunSample } from '../../contract';
import { openDatabase } from './database';
import { exportRuns } from './import-export';
import { createRun, finishRun, recordDocument, startRun } from './lifecycle';
import { insertSamples } from './samples';

/** sweep.py's strategy names → the preset ids (resources/presets/strategies.json). */
export const RUNNER_STRATEGY_IDS: Record<string, string> = {
  zero2: 'gpu-zero2',
  zero2_offload: 'zero2-offload',
  zero3_offload: 'zero3-offload',
  superoffload: 'superoffload',
  fsdp2_offload: 'fsdp2-cpu-offload',
};

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
}

const RUN_ID = /^(?<model>.+)-(?<strategy>zero2_offload|zero3_offload|fsdp2_offload|superoffload|zero2)-mb(?<micro>\d+)-r(?<repeat>\d+)$/;

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

export function convertRunnerSweep(dir: string, options: RawSweepOptions): { file: RunsFile; rejectedLines: number; otherTypes: Record<string, number>; skipped: string[] } {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort() : [];
  if (files.length === 0) throw new ApiError('not_found', `No runner output (*.jsonl) in ${dir}.`, 'path');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'offload-convert-'));
  const db = openDatabase(tmp);
  let rejectedLines = 0;
  const otherTypes: Record<string, number> = {};
  const skipped: string[] = [];
  try {
    for (const name of files) {
      const runId = name.replace(/\.jsonl$/, '');
      const m = RUN_ID.exec(runId)?.groups;
      if (!m) {
        skipped.push(`${name}: the name is not <model>-<strategy>-mb<N>-r<N>`);
        continue;
      }
      const { messages, rejected, otherTypes: other } = parseRunnerLines(fs.readFileSync(path.join(dir, name), 'utf8'));
      rejectedLines += rejected;
      for (const [k, n] of Object.entries(other)) otherTypes[k] = (otherTypes[k] ?? 0) + n;
      const of = <T extends RunnerMessage['type']>(type: T) => messages.find((x) => x.type === type) as Extract<RunnerMessage, { type: T }> | undefined;
      const hello = of('hello');
      const config = of('config');
      const result = of('result');
      const error = of('error');
      const steps = messages.filter((x): x is Extract<RunnerMessage, { type: 'step' }> => x.type === 'step');
      const stderr = path.join(dir, `${runId}.stderr.txt`);
      createRun(db, 'convert', {
        id: runId,
        sweepId: options.sweepId,
        repeatIndex: Number(m.repeat) - 1,
        model: m.model,
        strategy: RUNNER_STRATEGY_IDS[m.strategy],
        engine: config?.engine ?? (m.strategy === 'fsdp2_offload' ? 'fsdp2' : 'deepspeed'),
        steps: steps.filter((s) => !s.warmup).length,
        warmup: steps.filter((s) => s.warmup).length,
        tags: options.tags ?? ['sample'],
        notes: `${options.source.label}. Converted from the runner's raw output (${runId}.jsonl).`,
        // The runner was given its spec on stdin; what it reported back stands in for it.
        spec: config
          ? { engine: config.engine, model: { id: typeof config.modelId === 'string' ? config.modelId : m.model }, seqLen: config.seqLen, microBatch: config.microBatch, gradAccum: config.gradAccum, worldSize: config.worldSize, precision: config.precision, activationCheckpointing: config.activationCheckpointing, dsConfig: config.effectiveConfig ?? null }
          : undefined,
      });
      startRun(db, runId, { snapshot: options.snapshot, machineId: (options.snapshot as { machineId?: string } | undefined)?.machineId ?? null, logPath: fs.existsSync(stderr) ? path.basename(stderr) : null });
      if (hello) recordDocument(db, runId, 'hello', hello);
      if (config) recordDocument(db, runId, 'config', config);
      insertSamples(db, runId, steps.map((s): RunSample => ({ step: s.step, warmup: s.warmup, stepSeconds: s.stepSeconds, tflopsPerGpu: s.tflopsPerGpu, tokensPerSecond: s.tokensPerSecond, loss: s.loss, gpuAllocatedBytes: s.gpuAllocatedBytes, gpuReservedBytes: s.gpuReservedBytes, gpuPeakBytes: s.gpuPeakBytes, hostRssBytes: s.hostRssBytes })));
      finishRun(db, runId, result
        ? { status: 'completed', result }
        : { status: 'failed', errorClass: error?.class ?? 'crashed', errorMessage: error?.message ?? 'The runner stopped without a result or an error line.', errorFix: error?.fix ?? null, result: null });
      // When it really ran: the runner's own clock.
      const last = messages[messages.length - 1];
      db.prepare('UPDATE runs SET created_at = COALESCE(?, created_at), started_at = COALESCE(?, started_at), finished_at = COALESCE(?, finished_at), owner = NULL WHERE id = ?').run(
        iso(messages[0]?.t), iso(messages[0]?.t), iso(last?.t), runId,
      );
    }
    return { file: exportRuns(db, undefined, options.source), rejectedLines, otherTypes, skipped };
  } finally {
    db.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
