// What a report and a bundle hand the user's own training for a run: the launch lines and the
// accelerate config for its ds_config (the contract's launchExport), from the stored spec. A spec
// that does not parse (older, hand-written) gives nothing rather than a guess.
import { launchExport, RunSpecSchema, type LaunchExport, type SpecUserConfig } from '../../contract';
import type { ReportRun } from './types';

export function trainingLaunch(run: ReportRun): { files: LaunchExport; userConfig: SpecUserConfig | null } | null {
  const spec = RunSpecSchema.safeParse(run.spec);
  if (!spec.success || spec.data.engine !== 'deepspeed' || !spec.data.dsConfig) return null;
  return { files: launchExport(spec.data), userConfig: spec.data.userConfig ?? null };
}

/** launch.txt: one commented line per launcher, then the notes. */
export function launchText(files: LaunchExport): string {
  return [...files.launch.map((l) => `# ${l.launcher}\n${l.line}`), '', ...files.notes.map((n) => `# ${n}`)].join('\n') + '\n';
}
