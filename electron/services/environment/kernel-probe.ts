// The workload's own kernels on this host's GPU: resources/engine/kernel_probe.py builds the config.json's
// model with transformers (the meta device, then one layer and the head for real on the GPU) in the engine
// environment and times a decoder layer's forward + backward and the embedding + LM head + fp32 loss at the
// candidate micro batches, with the GPU memory they allocate (contract/kernels.ts). Each micro batch's
// figures are cached in <dataDir>/kernel-probe/, keyed by the config's hash (with the transformers pin),
// the GPU's name, dtype, sequence length and checkpointing: a plan probes only the micro batches not yet
// measured there, and none past one that already ran out of memory. One probe at a time (two would time
// each other's kernels), one process per identical request. Argument vector only, shell: false (run.ts).
// Whatever goes wrong — no engine environment, no GPU, a timeout, an architecture transformers cannot
// build — is answered as a reason, never thrown: the plan then rests on the catalogue's constants.
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { KernelProbeFailureSchema, KernelProbeSchema, type KernelMicro, type KernelProbe } from '../../contract';
import { createGate, writeJsonAtomic } from '../../kernel';
import { enginePath } from '../resources';
import { modelConfigHash } from './model-probe';
import { run } from './run';

/** The child's wall-clock limit: the probe budgets its climb to KERNEL_PROBE_BUDGET_SECONDS from its start
 *  (importing torch and transformers included); this leaves room for a slow first import. */
export const KERNEL_PROBE_TIMEOUT_MS = 120_000;
export const KERNEL_PROBE_BUDGET_SECONDS = 50;
/** Bumped when what the probe measures changes: older cache files are then probed anew. */
const CACHE_VERSION = 1;

export interface KernelProbeRequest {
  /** The model's config.json: an import's file text as read (hfConfigText, handed to transformers byte for
   *  byte: `30.0` stays a float), else its object (an older import's hfConfig, or a preset's stored config:
   *  storedPresetConfig), written out as JSON. */
  config: string | Record<string, unknown>;
  /** The engine environment's interpreter. */
  python: string;
  dataDir: string;
  /** This host's GPU as detected (nvidia-smi's name): part of the cache key. */
  gpuName: string;
  dtype: 'bf16' | 'fp16' | 'fp32';
  seqLen: number;
  checkpointing: boolean;
  /** The micro batches wanted (tuner kernelProbeMicros); the probe climbs them smallest first. */
  micros: number[];
  timeoutMs?: number;
  budgetSeconds?: number;
  signal?: AbortSignal;
  /** The tests' switch: the probe on the CPU (tiny configs only). The app never sets it. */
  device?: 'cuda' | 'cpu';
}

/** Figures (merged from the cache and a new probe), or why there are none (contract KernelsInput). */
export type KernelProbeOutcome =
  { probe: KernelProbe; cachedMicros: number[]; probedMicros: number[]; warning?: string } | { reason: string; class: string };

type Failure = { reason: string; class: string };
type Parsed = { ok: true; probe: KernelProbe } | { ok: false; class: string; reason: string; oom?: KernelProbe['oom'] };

/** The script's last stdout line → its figures, or its refusal in words (the class kept). */
export function kernelProbeFromOutput(stdout: string): Parsed {
  const last = stdout.trim().split('\n').pop() ?? '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(last);
  } catch {
    return {
      ok: false,
      class: 'error',
      reason: `the kernel probe printed no JSON line (last line: ${JSON.stringify(last.slice(0, 200))})`,
    };
  }
  const ok = KernelProbeSchema.safeParse(parsed);
  if (ok.success) return { ok: true, probe: ok.data };
  const failed = KernelProbeFailureSchema.safeParse(parsed);
  if (!failed.success) return { ok: false, class: 'error', reason: 'the kernel probe answered in a shape this app does not read' };
  const f = failed.data;
  const partial = (parsed as { partial?: { oom?: unknown } }).partial;
  const oom = KernelProbeSchema.shape.oom.safeParse(partial?.oom);
  const reason = f.class === 'no_gpu' ? f.message : `the kernel probe failed (${f.class}): ${f.message}`;
  return { ok: false, class: f.class, reason, ...(oom.success && oom.data ? { oom: oom.data } : {}) };
}

/** A preset's stored config.json (resources/engine/preset-configs.json, what the runner builds it from), or null. */
export function storedPresetConfig(id: string): Record<string, unknown> | null {
  try {
    const all = JSON.parse(readFileSync(enginePath('preset-configs.json'), 'utf8')) as {
      configs?: Record<string, { config?: Record<string, unknown> }>;
    };
    return all.configs?.[id]?.config ?? null;
  } catch {
    return null;
  }
}

function configText(config: string | Record<string, unknown>): string {
  return typeof config === 'string' ? config : JSON.stringify(config);
}

/** The cache file's stem for one workload on one GPU (the micro batches are entries inside it). */
export async function kernelCacheKey(r: Pick<KernelProbeRequest, 'config' | 'gpuName' | 'dtype' | 'seqLen' | 'checkpointing' | 'device'>) {
  const gpu = (r.device === 'cpu' ? 'cpu' : r.gpuName)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `${await modelConfigHash(configText(r.config))}-${gpu || 'gpu'}-${r.dtype}-s${r.seqLen}-${r.checkpointing ? 'ckpt' : 'full'}`;
}

interface CacheFile {
  version: number;
  /** The figures measured so far (micros ascending), or null where the smallest micro batch ran out. */
  probe: KernelProbe | null;
  /** The smallest micro batch known to run out of memory, from whichever probe found it. */
  oom: KernelProbe['oom'];
}

async function readCache(file: string): Promise<CacheFile | null> {
  try {
    const raw = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<CacheFile>;
    if (raw.version !== CACHE_VERSION) return null;
    const probe = raw.probe === null ? null : KernelProbeSchema.safeParse(raw.probe);
    if (probe && !probe.success) return null;
    const oom = KernelProbeSchema.shape.oom.safeParse(raw.oom ?? null);
    return { version: CACHE_VERSION, probe: probe ? probe.data : null, oom: oom.success ? oom.data : null };
  } catch {
    return null; // not probed yet, or unreadable: probe anew
  }
}

function smallerOom(a: KernelProbe['oom'], b: KernelProbe['oom']): KernelProbe['oom'] {
  if (!a) return b;
  if (!b) return a;
  return a.microBatch <= b.microBatch ? a : b;
}

/** The cached figures with a new probe's: its micro batches added, its architecture and versions taken. */
function merge(cached: KernelProbe | null, fresh: KernelProbe, oom: KernelProbe['oom']): KernelProbe {
  const byMicro = new Map<number, KernelMicro>();
  for (const m of cached?.micros ?? []) byMicro.set(m.microBatch, m);
  for (const m of fresh.micros) byMicro.set(m.microBatch, m);
  const micros = [...byMicro.values()].filter((m) => !oom || m.microBatch < oom.microBatch).sort((a, b) => a.microBatch - b.microBatch);
  return { ...fresh, micros, oom };
}

// One probe at a time on this host (two would share the GPU and time each other), one child per
// identical request, and a short queue: past it a plan goes on without the probe rather than wait.
const probes = createGate<KernelProbeOutcome>(
  1,
  8,
  (active, waiting) => `${active} kernel probe(s) running and ${waiting} waiting on this host`,
);

/** The workload's kernels on this GPU: from the cache where measured, else probed (and cached). Never throws. */
export async function probeKernels(req: KernelProbeRequest): Promise<KernelProbeOutcome> {
  const failed = (what: string, error: unknown): KernelProbeOutcome => ({
    class: 'error',
    reason: `${what} (${error instanceof Error ? error.message : String(error)})`,
  });
  let key: string;
  try {
    key = await kernelCacheKey(req);
  } catch (error) {
    return failed("the kernel probe's cache key could not be made", error);
  }
  const request = `${key}|${[...req.micros].sort((a, b) => a - b).join(',')}`;
  try {
    return await probes.run(request, () => probeOnce(req, key));
  } catch (error) {
    return failed('the kernel probe failed', error);
  }
}

async function probeOnce(req: KernelProbeRequest, key: string): Promise<KernelProbeOutcome> {
  const dir = path.join(req.dataDir, 'kernel-probe');
  const file = path.join(dir, `${key}.json`);
  const cached = await readCache(file);
  const known = new Set((cached?.probe?.micros ?? []).map((m) => m.microBatch));
  const oomAt = cached?.oom?.microBatch ?? Infinity;
  const wanted = [...new Set(req.micros)].filter((m) => m >= 1 && !known.has(m) && m < oomAt).sort((a, b) => a - b);
  const fromCache = (failure?: Failure): KernelProbeOutcome => {
    if (cached?.probe)
      return {
        probe: cached.probe,
        cachedMicros: cached.probe.micros.map((m) => m.microBatch),
        probedMicros: [],
        ...(failure ? { warning: failure.reason } : {}),
      };
    if (failure) return failure;
    const oom = cached?.oom;
    return {
      class: 'oom',
      reason: `the kernel probe ran out of GPU memory at micro ${oom?.microBatch ?? '?'} already (${oom?.part ?? 'layer'}; cached): nothing measured`,
    };
  };
  if (!wanted.length) return fromCache();

  await fs.mkdir(dir, { recursive: true });
  const input = path.join(dir, `${key}.config.json`);
  await fs.writeFile(input, configText(req.config));
  const timeoutMs = req.timeoutMs ?? KERNEL_PROBE_TIMEOUT_MS;
  const args = [
    enginePath('kernel_probe.py'),
    '--config',
    input,
    '--seq',
    String(req.seqLen),
    '--micro',
    wanted.join(','),
    '--dtype',
    req.dtype,
    req.checkpointing ? '--checkpointing' : '--no-checkpointing',
    '--budget-seconds',
    String(req.budgetSeconds ?? KERNEL_PROBE_BUDGET_SECONDS),
    ...(req.device ? ['--device', req.device] : []),
  ];
  const result = await run(req.python, args, { timeoutMs, signal: req.signal });
  await fs.rm(input, { force: true });
  if (req.signal?.aborted) return fromCache({ class: 'cancelled', reason: 'the kernel probe was cancelled' });
  if (result.error)
    return fromCache({ class: 'unavailable', reason: `the engine environment (${req.python}) could not be started (${result.error})` });
  if (result.timedOut)
    return fromCache({
      class: 'timeout',
      reason: `the kernel probe timed out after ${timeoutMs >= 10_000 ? Math.round(timeoutMs / 1000) : (timeoutMs / 1000).toFixed(1)} s (micro ${wanted.join(', ')})`,
    });
  const parsed = kernelProbeFromOutput(result.stdout);
  if (!parsed.ok) {
    // torch or transformers missing (the script's own answer, or an import before it could answer):
    // the interpreter is not the engine environment, and the words say the command that makes one
    const why = /printed no JSON/.test(parsed.reason)
      ? result.stderr.trim().split('\n').slice(-1)[0] || `exit ${result.code}`
      : parsed.reason;
    const missing = parsed.class === 'error' ? /No module named '(torch|transformers)/.exec(why) : null;
    if (missing)
      return fromCache({
        class: 'unavailable',
        reason: `${req.python} has no ${missing[1]}: create the engine environment (the app’s Setup, or: bash scripts/setup-engine-venv.sh)`,
      });
    if (parsed.class === 'error' && result.code !== 0 && /printed no JSON/.test(parsed.reason))
      return fromCache({ class: 'error', reason: `the kernel probe failed (${why.slice(0, 300)})` });
    if (parsed.class === 'oom' && parsed.oom) {
      // the smallest micro batch wanted ran out: kept, so no plan climbs there again
      const oom = smallerOom(cached?.oom ?? null, parsed.oom);
      writeCache(file, { version: CACHE_VERSION, probe: cached?.probe ? merge(cached.probe, cached.probe, oom) : null, oom });
      return fromCache({ class: 'oom', reason: parsed.reason });
    }
    return fromCache({ class: parsed.class, reason: parsed.reason });
  }
  const oom = smallerOom(cached?.oom ?? null, parsed.probe.oom);
  const probe = merge(cached?.probe ?? null, parsed.probe, oom);
  writeCache(file, { version: CACHE_VERSION, probe, oom });
  return {
    probe,
    cachedMicros: [...known].filter((m) => m < (oom?.microBatch ?? Infinity)),
    probedMicros: parsed.probe.micros.map((m) => m.microBatch),
  };
}

function writeCache(file: string, value: CacheFile): void {
  try {
    writeJsonAtomic(file, value);
  } catch {
    // a read-only or full data folder: the figures serve this plan only
  }
}
