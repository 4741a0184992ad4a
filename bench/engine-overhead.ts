// The orchestrator's own cost per training step: parse one protocol `step` line, validate it,
// store it as a sample (batched transactions, as a sweep does) and emit a validated
// `runs/progress` event. 10,000 step lines through the real parser and a real SQLite file.
// Goal: tiny against a step (a real step takes 0.1–30 s; 100 µs is < 0.1 % of the shortest).
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEvent, type RunSample } from '../electron/contract';
import { createStdoutParser } from '../electron/services/engine';
import { openHistory } from '../electron/services/history';
import { reportFigure, median } from './figure';

const STEPS = 10_000;
const BATCH = 64; // what the sweep flushes at (sweep.ts: sampleBatch)

function stepLine(step: number): string {
  return JSON.stringify({
    v: 1,
    type: 'step',
    t: 1_790_000_000 + step,
    step,
    warmup: step <= 3,
    stepSeconds: 1.234567,
    tokensPerSecond: 13275.4,
    tflopsPerGpu: 412.7,
    tflopsAggregate: 1650.8,
    loss: 10.5 - step * 1e-4,
    gpuAllocatedBytes: 61_234_567_890,
    gpuReservedBytes: 70_000_000_000,
    gpuPeakBytes: 75_123_456_789,
    hostRssBytes: 412_345_678_901,
    hostRssChildrenBytes: 0,
  });
}

function once(): { usPerStep: number; rows: number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'os-bench-engine-'));
  const history = openHistory(dir);
  history.createRun({
    id: 'bench',
    sweepId: 'sw',
    repeatIndex: 0,
    model: 'llama-3.1-70b',
    strategy: 'superoffload',
    engine: 'deepspeed',
    steps: STEPS,
    warmup: 3,
  });
  history.startRun('bench', {});
  const emitter = new EventEmitter();
  let events = 0;
  emitter.on('runs/progress', () => events++);
  // stdout arrives in pipe-sized chunks that cut lines anywhere.
  const stream = Buffer.from(Array.from({ length: STEPS }, (_, i) => stepLine(i + 1)).join('\n') + '\n');
  let pending: RunSample[] = [];
  const parser = createStdoutParser({
    message(m) {
      if (m.type !== 'step') return;
      pending.push({
        step: m.step,
        warmup: m.warmup,
        stepSeconds: m.stepSeconds,
        tflopsPerGpu: m.tflopsPerGpu,
        tokensPerSecond: m.tokensPerSecond,
        loss: m.loss,
        gpuAllocatedBytes: m.gpuAllocatedBytes,
        gpuReservedBytes: m.gpuReservedBytes,
        gpuPeakBytes: m.gpuPeakBytes,
        hostRssBytes: m.hostRssBytes,
      });
      if (pending.length >= BATCH) {
        history.appendSamples('bench', pending);
        pending = [];
      }
      emitter.emit(
        'runs/progress',
        parseEvent('runs/progress', {
          sweepId: 'sw',
          runId: 'bench',
          runIndex: 0,
          runCount: 1,
          strategy: 'superoffload',
          repeatIndex: 0,
          step: m.step,
          total: STEPS,
          warmup: m.warmup,
          stepSeconds: m.stepSeconds,
          tflopsPerGpu: m.tflopsPerGpu,
          tokensPerSecond: m.tokensPerSecond,
          loss: m.loss,
          gpuAllocatedBytes: m.gpuAllocatedBytes,
          gpuReservedBytes: m.gpuReservedBytes,
          gpuPeakBytes: m.gpuPeakBytes,
          hostRssBytes: m.hostRssBytes,
          elapsedSeconds: m.step,
          etaSeconds: STEPS - m.step,
        }),
      );
    },
    log() {},
  });
  const t0 = process.hrtime.bigint();
  for (let off = 0; off < stream.length; off += 65536) parser.push(stream.subarray(off, off + 65536));
  parser.end();
  history.appendSamples('bench', pending);
  const ns = Number(process.hrtime.bigint() - t0);
  const rows = history.samples('bench').length;
  if (events !== STEPS || rows !== STEPS) throw new Error(`expected ${STEPS} events and rows, got ${events} and ${rows}`);
  history.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { usPerStep: ns / 1000 / STEPS, rows };
}

once(); // warm-up: JIT, prepared statements, page cache
const runs = Array.from({ length: 5 }, () => once().usPerStep);
const us = median(runs);
reportFigure({
  id: 'engine-overhead-us-per-step',
  label: `orchestrator overhead per step (parse + validate + sample insert + progress event; ${STEPS} steps, median of ${runs.length})`,
  value: us,
  unit: 'µs/step',
  goal: '< 100 µs/step',
  ok: us < 100,
  note: `runs: ${runs.map((r) => r.toFixed(1)).join(', ')} µs`,
});
