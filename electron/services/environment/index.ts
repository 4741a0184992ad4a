// The Python engine environment: find interpreters, probe them, remember the chosen one, and
// install the managed engine venv. The engine service calls selectedInterpreter() and
// probeInterpreter() from here.
import {
  ApiError,
  INTERPRETER_PATH_MESSAGE,
  INTERPRETER_PATH_PATTERN,
  type InterpreterCandidate,
  type InterpreterProbe,
} from '../../contract';
import { findCandidates } from './candidates';
import { probeInterpreter as probe, type ProbeOptions } from './probe';
import { rememberInterpreter, selectedInterpreter as readSelected } from './settings';
import type { ProbeCache } from './probe-cache';

export { startInstall, type InstallHandle, type InstallOptions } from './install';
export { engineRequirements, FALLBACK_REQUIREMENTS } from './requirements';
export { missingPieces } from './missing';
export { appVenvDir, findCandidates } from './candidates';
export { chooseInterpreter, engineVenvs, venvPython, type InterpreterChoice } from './choose';
export { createProbeCache, interpreterFingerprint, type ProbeCache, type ProbeCacheOptions } from './probe-cache';
export { archFromProbe, importProbedConfig } from './model-import';
export { measureTorchAdam, torchAdamFromOutput } from './torch-adam-probe';
export {
  kernelCacheKey,
  kernelProbeFromOutput,
  probeKernels,
  storedPresetConfig,
  KERNEL_PROBE_BUDGET_SECONDS,
  KERNEL_PROBE_TIMEOUT_MS,
  type KernelProbeOutcome,
  type KernelProbeRequest,
} from './kernel-probe';
export { modelConfigHash, probeModelConfig, type ModelProbeAnswer, type ModelProbeRefusal, type ModelProbeTable } from './model-probe';

/** The interpreter remembered in <dataDir>/settings.json (environment/select), or null. */
export function selectedInterpreter(dataDir: string): Promise<string | null> {
  return readSelected(dataDir);
}

export function probeInterpreter(path: string, options?: ProbeOptions): Promise<InterpreterProbe> {
  return probe(path, options);
}

/** Run async jobs with at most `limit` at once (probes import torch: 2 cores cannot take 12 at once). */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  });
  await Promise.all(workers);
  return out;
}

/**
 * Every interpreter found, each probed unless probe is false. With a cache, an interpreter whose
 * fingerprint (file, package folders, probe script) is unchanged answers from it, unless fresh;
 * checkedAt is then when the oldest answer shown was probed.
 */
export async function listInterpreters(
  dataDir: string,
  options: { probe?: boolean; extraPaths?: string[]; fresh?: boolean } = {},
  cache?: ProbeCache,
): Promise<{ candidates: InterpreterCandidate[]; selected: string | null; checkedAt?: string }> {
  const selected = await readSelected(dataDir);
  const found = await findCandidates({ dataDir, selected, extraPaths: options.extraPaths });
  const started = new Date().toISOString();
  const answers =
    options.probe === false
      ? found.map(() => null)
      : await mapLimit(found, 4, (c) => (cache ? cache.get(c.path, () => probe(c.path), { fresh: options.fresh }) : probe(c.path)));
  let checkedAt: string | undefined = options.probe === false ? undefined : started;
  const candidates = found.map((c, i) => {
    const answer = answers[i];
    if (!answer) return { ...c, probe: null };
    const { cachedAt, ...probed } = answer as InterpreterProbe & { cachedAt?: string };
    if (cachedAt && checkedAt && cachedAt < checkedAt) checkedAt = cachedAt;
    return { ...c, probe: probed };
  });
  return { candidates, selected, ...(checkedAt ? { checkedAt } : {}) };
}

export async function selectInterpreter(
  dataDir: string,
  path: string | null,
  cache?: ProbeCache,
): Promise<{ selected: string | null; probe: InterpreterProbe | null }> {
  if (path === null) {
    await rememberInterpreter(dataDir, null);
    return { selected: null, probe: null };
  }
  // The list's answer when the interpreter is unchanged since (selecting the ready one is instant).
  const { cachedAt: _cachedAt, ...result } = (cache ? await cache.get(path, () => probe(path)) : await probe(path)) as InterpreterProbe & {
    cachedAt?: string;
  };
  if (!INTERPRETER_PATH_PATTERN.test(result.path))
    throw new ApiError('bad_request', `field 'path': ${result.path} ${INTERPRETER_PATH_MESSAGE}`, 'path');
  // A file that does not run is refused; one that runs but lacks torch is remembered (the
  // wizard then shows what to install into it).
  if (!result.ok && !result.versionText) throw new Error(result.error ?? `${path} is not a usable Python interpreter`);
  await rememberInterpreter(dataDir, result.path);
  return { selected: result.path, probe: result };
}

/**
 * The interpreter the engine uses now: the selected one; else the app's own venv; else the
 * first found candidate that is ready (probing app-managed venvs first, then the rest in order).
 */
export async function currentInterpreter(
  dataDir: string,
): Promise<{ interpreter: string | null; selected: boolean; probe: InterpreterProbe | null }> {
  const selected = await readSelected(dataDir);
  if (selected) return { interpreter: selected, selected: true, probe: await probe(selected) };
  const found = await findCandidates({ dataDir });
  let fallback: InterpreterProbe | null = null;
  const ranked = [...found].sort((a, b) => rank(a.sources) - rank(b.sources));
  for (const c of ranked) {
    const p = await probe(c.path);
    if (p.ready) return { interpreter: p.path, selected: false, probe: p };
    if (!fallback && p.ok && (p.torch || p.deepspeed)) fallback = p;
    // Stop once plain interpreters are all that is left and one answered: they are quick but add up.
    if (rank(c.sources) >= rank(['path']) && (fallback || p.ok)) {
      fallback ??= p;
      break;
    }
  }
  return { interpreter: fallback?.path ?? null, selected: false, probe: fallback };
}

const ORDER = ['selected', 'app-venv', 'app-cache-venv', 'virtualenv', 'conda', 'user', 'pyenv', 'path'] as const;
function rank(sources: string[]): number {
  return Math.min(...sources.map((s) => ORDER.indexOf(s as (typeof ORDER)[number])).filter((i) => i >= 0), ORDER.length);
}
