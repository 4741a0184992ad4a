// The Python the cluster service sends over ssh on stdin (`<python> - <args>`) is real files of the
// runner folder (resources/engine), where pytest reaches them (tests/engine/test_cluster_snippets.py):
//   cluster_versions.py — interpreter, torch and DeepSpeed versions, and a hash of the runner's files;
//   probe_fallback.py   — basic host facts, used only when the runner's probe.py is not there.
// Constants of ours, never user text.
import fs from 'node:fs';
import path from 'node:path';

export type SnippetName = 'cluster_versions.py' | 'probe_fallback.py';

/** The runner's own files (what is staged on every host and hashed to compare them): its modules
 *  and the data files they read (error-signatures.json, model-families.json, …). */
export const isRunnerFile = (name: string): boolean => /^[A-Za-z0-9._-]+\.(?:py|json)$/.test(name);

/** The text of a snippet from the bundled runner folder. */
export function readSnippet(bundledEngineDir: string, name: SnippetName): string {
  const file = path.join(bundledEngineDir, name);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `The bundled runner folder lacks ${name} (${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}); reinstall the app or point OFFLOAD_STUDIO_RESOURCES at a complete resources folder.`,
    );
  }
}
