// The pinned engine requirements (resources/engine/requirements.txt, written with the runner).
import { readFile } from 'node:fs/promises';
import { enginePath } from '../resources';

export const FALLBACK_REQUIREMENTS = ['torch==2.11.0', 'deepspeed==0.19.8'];

/** Requirement lines without comments/blank lines; the fallback pins when the file is absent. */
export function parseRequirements(text: string): string[] {
  return text
    .split('\n')
    .map((l) =>
      l
        .replace(/\s+#.*$/, '')
        .replace(/^#.*$/, '')
        .trim(),
    )
    .filter(Boolean);
}

/**
 * The pinned list the managed install uses. OFFLOAD_STUDIO_ENGINE_REQUIREMENTS names another
 * requirements file (a torch build for another CUDA, an internal mirror's pins, a local wheel set);
 * the bootstrap step of install-steps.json runs before it either way.
 */
export async function engineRequirements(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const override = env.OFFLOAD_STUDIO_ENGINE_REQUIREMENTS;
  if (override) {
    const text = await readFile(override, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new Error(
        `OFFLOAD_STUDIO_ENGINE_REQUIREMENTS=${override} cannot be read (${error.code ?? error.message}); point it at a requirements file or unset it`,
      );
    });
    const reqs = parseRequirements(text);
    if (!reqs.length) throw new Error(`OFFLOAD_STUDIO_ENGINE_REQUIREMENTS=${override} lists no requirement`);
    return reqs;
  }
  try {
    const reqs = parseRequirements(await readFile(enginePath('requirements.txt'), 'utf8'));
    return reqs.length ? reqs : FALLBACK_REQUIREMENTS;
  } catch {
    return FALLBACK_REQUIREMENTS;
  }
}

/** "deepspeed==0.19.8" → ["deepspeed", "0.19.8"]; no pin → version null. */
export function pinOf(requirements: string[], name: string): string | null {
  for (const r of requirements) {
    const m = /^([A-Za-z0-9_.-]+)\s*==\s*([^\s;]+)/.exec(r);
    if (m && m[1].toLowerCase() === name) return m[2];
  }
  return null;
}
