// hardware/measure, hardware/measure-cancel and the hardware/measure-progress event. One
// measurement at a time: a second request while one runs is refused (both would fight over
// the same cores and memory bus and measure nothing useful).
import fs from 'node:fs';
import path from 'node:path';
import { ApiError, type Measurement } from '../../../contract';
import { measureTorchAdam, selectedInterpreter } from '../../environment';
import {
  detectMachine,
  loadMeasurementFor,
  loadMeasurementHistory,
  measureHost,
  measurementSpread,
  pickMeasurement,
  usedMeasurement,
} from '../../hardware';
import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import { enginePython } from './model-guard';

/**
 * PyPI's torch ships the CUDA runtime in its nvidia-* wheels; the copy test can dlopen that
 * libcudart when the system has none on its library path. <venv>/bin/python → the venv's
 * site-packages/nvidia/<pkg>/lib folders.
 */
export async function torchCudaLibraryPaths(dataDir: string): Promise<string[]> {
  const python = await selectedInterpreter(dataDir).catch(() => null);
  if (!python) return [];
  const venv = path.dirname(path.dirname(python));
  const out: string[] = [];
  for (const libDir of ['lib', 'lib64']) {
    let versions: string[] = [];
    try {
      versions = fs.readdirSync(path.join(venv, libDir)).filter((d) => d.startsWith('python'));
    } catch {
      continue;
    }
    for (const version of versions) {
      const nvidia = path.join(venv, libDir, version, 'site-packages', 'nvidia');
      let packages: string[] = [];
      try {
        packages = fs.readdirSync(nvidia);
      } catch {
        continue;
      }
      for (const pkg of packages) if (fs.existsSync(path.join(nvidia, pkg, 'lib'))) out.push(path.join(nvidia, pkg, 'lib'));
    }
  }
  return out;
}

/** The measurement with its spread against this machine's earlier ones (kept in the history, not stored with it). */
function withSpread(dataDir: string, m: Measurement): Measurement {
  const spread = measurementSpread(m, loadMeasurementHistory(dataDir));
  return spread.length ? { ...m, spread } : m;
}

export function measureHandlers(
  ctx: BackendContext,
): HandlerMap<
  'hardware/measure' | 'hardware/measure-cancel' | 'hardware/measurement' | 'hardware/measurements' | 'hardware/measurement-use'
> {
  let running: AbortController | null = null;
  ctx.onClose(() => running?.abort());
  return {
    'hardware/measure': async (request) => {
      if (running) throw new ApiError('busy', 'A host measurement is already running; cancel it or wait for it.');
      const controller = new AbortController();
      running = controller;
      try {
        const cudaLibraryPaths = await torchCudaLibraryPaths(ctx.dataDir);
        // The measurement describes this host: with --machine FILE the backend shows another
        // machine, so the host is detected here and the result is stored under its own machineId.
        const shown = await ctx.machine().catch(() => null);
        const host = shown && !shown.warnings.some((w) => w.id === 'machine-from-file') ? shown : await detectMachine().catch(() => null);
        const measured = await measureHost({
          machineId: host?.machineId ?? null,
          noGpu: host ? host.gpus.length === 0 : false,
          cudaLibraryPaths,
          // torch's CPU AdamW (FSDP2 offload's step) in the engine environment, the interpreter runs use
          torchAdamProbe: async (input) => measureTorchAdam(await enginePython(ctx.dataDir), input),
          budgetSeconds: request.budgetSeconds,
          include: request.include,
          signal: controller.signal,
          dataDir: ctx.dataDir,
          onProgress: (progress) => ctx.emit('hardware/measure-progress', progress),
        });
        return withSpread(ctx.dataDir, measured);
      } finally {
        if (running === controller) running = null;
      }
    },
    'hardware/measure-cancel': () => {
      if (!running) return { cancelled: false };
      running.abort();
      return { cancelled: true };
    },
    'hardware/measurement': async () => {
      const shown = await ctx.machine().catch(() => null);
      if (!shown) return null;
      // A machine loaded from a file (serve --machine) has only what was imported under its id.
      const stored = loadMeasurementFor(ctx.dataDir, shown.machineId, !shown.warnings.some((w) => w.id === 'machine-from-file'));
      return stored ? withSpread(ctx.dataDir, stored) : null;
    },
    'hardware/measurements': async () => {
      const shown = await ctx.machine().catch(() => null);
      if (!shown) return null;
      const { choice } = usedMeasurement(ctx.dataDir, shown.machineId, !shown.warnings.some((w) => w.id === 'machine-from-file'));
      return choice.measurements.length ? choice : null;
    },
    'hardware/measurement-use': async (request) => {
      const shown = await ctx.machine();
      const thisHost = !shown.warnings.some((w) => w.id === 'machine-from-file');
      const { choice } = usedMeasurement(ctx.dataDir, shown.machineId, thisHost);
      if (request.measuredAt !== null && !choice.measurements.some((m) => m.measuredAt === request.measuredAt))
        throw new ApiError(
          'not_found',
          `No measurement of ${shown.machineId} was measured at ${request.measuredAt}; its measurements: ${choice.measurements.map((m) => m.measuredAt).join(', ') || 'none'}.`,
          'measuredAt',
        );
      pickMeasurement(ctx.dataDir, shown.machineId, request.measuredAt);
      return usedMeasurement(ctx.dataDir, shown.machineId, thisHost).choice;
    },
  };
}
