// Probe one interpreter the way JupyterLab Desktop does (src/main/env.ts): the file exists, it
// runs `--version`, then the bundled probe script prints one JSON line of facts.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { InterpreterProbe } from '../../contract';
import { enginePath } from '../resources';
import { MIN_PYTHON, missingPieces, versionAtLeast } from './missing';
import { engineRequirements } from './requirements';
import { run } from './run';

// Importing torch + deepspeed takes ~3–9 s on a cold disk; a minute covers slow network homes.
export const PROBE_TIMEOUT_MS = 90_000;
const VERSION_TIMEOUT_MS = 10_000;

/** "Python 3.11.7" (stdout on 3.x, stderr on 2.x) → "3.11.7". */
export function parseVersionOutput(text: string): string | null {
  const m = /Python\s+(\d+\.\d+(?:\.\d+)?\S*)/.exec(text);
  return m ? m[1] : null;
}

/** The probe prints one JSON line; anything a broken sitecustomize prints before it is skipped. */
export function parseProbeOutput(stdout: string): Record<string, unknown> | null {
  const lines = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('{'));
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const v: unknown = JSON.parse(lines[i]);
      if (v && typeof v === 'object') return v as Record<string, unknown>;
    } catch {
      /* not the line */
    }
  }
  return null;
}

function empty(pythonPath: string, error: string, versionText: string | null, started: number): InterpreterProbe {
  return {
    path: pythonPath,
    ok: false,
    error,
    versionText,
    pythonVersion: versionText ? parseVersionOutput(versionText) : null,
    executable: null,
    prefix: null,
    isVenv: null,
    torch: null,
    deepspeed: null,
    transformers: null,
    build: { ninja: null, cxx: null, libaio: null },
    missing: [],
    ready: false,
    probeMs: Math.round(performance.now() - started),
  };
}

export interface ProbeOptions {
  timeoutMs?: number;
  requirements?: string[];
  script?: string;
}

export async function probeInterpreter(pythonPath: string, options: ProbeOptions = {}): Promise<InterpreterProbe> {
  const started = performance.now();
  const file = path.resolve(pythonPath);
  try {
    await access(file, constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return empty(file, code === 'ENOENT' ? `${file} does not exist` : `${file} is not executable (${code})`, null, started);
  }
  const version = await run(file, ['--version'], { timeoutMs: VERSION_TIMEOUT_MS });
  const versionText = `${version.stdout}${version.stderr}`.trim() || null;
  if (version.code !== 0 || !versionText)
    return empty(
      file,
      `\`${file} --version\` failed: ${version.error ?? (version.timedOut ? 'timed out' : (versionText ?? `exit ${version.code}`))}`,
      versionText,
      started,
    );
  const pythonVersion = parseVersionOutput(versionText);
  const requirements = options.requirements ?? (await engineRequirements());
  if (!versionAtLeast(pythonVersion, MIN_PYTHON)) {
    const probe = empty(file, `Python ${pythonVersion ?? '?'} is older than ${MIN_PYTHON.join('.')}`, versionText, started);
    probe.missing = missingPieces(file, probe, requirements);
    return probe;
  }
  // Not -I/-s: the probe must see what the engine will see, user site-packages included.
  const result = await run(file, ['-u', options.script ?? enginePath('probe.py')], {
    timeoutMs: options.timeoutMs ?? PROBE_TIMEOUT_MS,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' },
  });
  const facts = parseProbeOutput(result.stdout);
  if (!facts || typeof facts.pythonVersion !== 'string') {
    const why = result.timedOut
      ? `the probe timed out after ${Math.round((options.timeoutMs ?? PROBE_TIMEOUT_MS) / 1000)} s`
      : ((facts?.error as string | undefined) ?? result.error ?? (result.stderr.trim().split('\n').pop() || `exit ${result.code}`));
    return empty(file, `probe failed: ${why}`, versionText, started);
  }
  const partial = {
    pythonVersion: facts.pythonVersion as string,
    torch: (facts.torch as InterpreterProbe['torch']) ?? null,
    deepspeed: (facts.deepspeed as InterpreterProbe['deepspeed']) ?? null,
    build: { ninja: null, cxx: null, libaio: null, ...(facts.build as object) } as InterpreterProbe['build'],
    isVenv: typeof facts.isVenv === 'boolean' ? facts.isVenv : null,
    externallyManaged: typeof facts.externallyManaged === 'boolean' ? facts.externallyManaged : null,
  };
  const missing = missingPieces(file, partial, requirements);
  return {
    path: file,
    ok: true,
    error: null,
    versionText,
    executable: typeof facts.executable === 'string' ? facts.executable : null,
    prefix: typeof facts.prefix === 'string' ? facts.prefix : null,
    transformers: typeof facts.transformers === 'string' ? facts.transformers : null,
    ...partial,
    missing,
    ready: !missing.some((m) => m.severity === 'required'),
    probeMs: Math.round(performance.now() - started),
  };
}
