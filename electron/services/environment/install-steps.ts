// The engine environment's install sequence, expanded from resources/engine/install-steps.json —
// the same file scripts/setup-engine-venv.sh runs through resources/engine/install_steps.py, so
// the script and the app's "create the engine environment" cannot drift (a unit test compares
// the two expansions). Each step is one `<venv python> -m pip install …` call.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { enginePath } from '../resources';

const stepsFileSchema = z.object({
  bootstrapVersion: z.number().int().positive(),
  steps: z
    .array(
      z.object({
        name: z.string().min(1),
        label: z.string().min(1),
        args: z.array(z.string()).default([]),
        /** Requirement files, relative to resources/engine. */
        files: z.array(z.string()).default([]),
        /** Which lines of the requirements list this step installs. */
        requirements: z.enum(['torch', 'rest']).optional(),
        env: z.record(z.string(), z.string()).default({}),
      }),
    )
    .min(1),
});

export type InstallStepsFile = z.infer<typeof stepsFileSchema>;

export interface InstallStep {
  name: string;
  label: string;
  /** Arguments after `pip install`. */
  args: string[];
  env: Record<string, string>;
}

export interface InstallPlan {
  bootstrapVersion: number;
  steps: InstallStep[];
}

/** torch's own line ("torch==2.11.0", "torch>=2.4"), not torchvision or torch-foo. */
export function isTorchRequirement(requirement: string): boolean {
  return /^torch\s*(?:$|[=<>!~\[;])/i.test(requirement.trim());
}

export function parseInstallStepsFile(text: string): InstallStepsFile {
  return stepsFileSchema.parse(JSON.parse(text));
}

/** Pure expansion: the steps file + the requirement lines → one pip argument vector per step. */
export function expandInstallSteps(file: InstallStepsFile, requirements: string[], engineDir: string): InstallPlan {
  const steps: InstallStep[] = [];
  for (const step of file.steps) {
    const reqs: string[] = [];
    for (const name of step.files) reqs.push('-r', path.join(engineDir, name));
    if (step.requirements === 'torch') reqs.push(...requirements.filter(isTorchRequirement));
    if (step.requirements === 'rest') reqs.push(...requirements.filter((r) => !isTorchRequirement(r)));
    if (reqs.length === 0) continue; // nothing for this step (e.g. no torch pin in a test's list)
    steps.push({ name: step.name, label: step.label, args: [...step.args, ...reqs], env: { ...step.env } });
  }
  return { bootstrapVersion: file.bootstrapVersion, steps };
}

export async function readInstallStepsFile(): Promise<InstallStepsFile> {
  return parseInstallStepsFile(await readFile(enginePath('install-steps.json'), 'utf8'));
}

export async function engineInstallPlan(requirements: string[]): Promise<InstallPlan> {
  return expandInstallSteps(await readInstallStepsFile(), requirements, enginePath());
}

/** What the marker file in a finished environment says (the script writes the same shape). */
export function markerText(hash: string, bootstrapVersion: number): string {
  return `${hash} bootstrap=${bootstrapVersion}`;
}

export function parseMarker(text: string): { hash: string; bootstrapVersion: number | null } {
  const m = /^(\S+)(?:\s+bootstrap=(\d+))?/.exec(text.trim());
  return { hash: m?.[1] ?? '', bootstrapVersion: m?.[2] ? Number(m[2]) : null };
}
