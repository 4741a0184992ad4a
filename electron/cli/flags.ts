// The flags every CLI command accepts, declared in one table so the parser (kernel/argv.ts,
// node:util parseArgs) can refuse a mistyped flag before a command runs with a default instead
// (`run --stpes 4` would otherwise run 10 steps). A command without an entry here runs with a
// warning and its flags unchecked, and fails tests/unit/cli/flags.test.ts, which also checks each
// command's source reads no flag missing from its entry. The workload's flags of plan, run and tune
// are not listed here: they come from the contract's declaration of each option
// (contract/workload-options.ts, through cli/workload-flags.ts).
import type { FlagSpec } from '../kernel';
import { workloadFlagSpec } from './workload-flags';

/** Accepted by every command. */
export const COMMON_FLAGS: FlagSpec = { 'data-dir': 'string', json: 'boolean', help: 'boolean' };

export const COMMAND_FLAGS: Record<string, FlagSpec> = {
  detect: { 'no-env': 'boolean', env: 'string' },
  runs: {
    model: 'string',
    strategy: 'string',
    status: 'string',
    tag: 'string',
    since: 'string',
    until: 'string',
    limit: 'string',
    machine: 'string',
    resources: 'boolean',
  },
  export: {
    runs: 'string',
    format: 'string',
    out: 'string',
    overwrite: 'boolean',
    samples: 'boolean',
    baseline: 'string',
    'page-size': 'string',
  },
  compare: { baseline: 'string' },
  'export-runs': { out: 'string', overwrite: 'boolean' },
  'import-runs': {},
  'convert-sweep': {
    out: 'string',
    label: 'string',
    specs: 'string',
    machine: 'string',
    'measured-at': 'string',
    snapshot: 'string',
    note: 'string',
    'sweep-id': 'string',
  },
  'load-samples': {},
  settings: {},
  cluster: { spec: 'string', export: 'string', overwrite: 'boolean' },
  measure: {
    import: 'string',
    machine: 'string',
    'measured-at': 'string',
    'budget-seconds': 'string',
    only: 'string',
    list: 'boolean',
    use: 'string',
  },
  run: {
    specs: 'string',
    model: 'string',
    strategy: 'string',
    ...workloadFlagSpec('run'),
    steps: 'string',
    warmup: 'string',
    repeats: 'string',
    'max-seconds': 'string',
    python: 'string',
    'ds-config': 'string',
    machine: 'string',
    force: 'boolean',
    watch: 'boolean',
    slurm: 'string',
  },
  plan: {
    model: 'string',
    ...workloadFlagSpec('plan'),
    scenario: 'string',
    machine: 'string',
    'write-configs': 'string',
    'write-specs': 'string',
    steps: 'string',
    warmup: 'string',
    slurm: 'string',
    'all-strategies': 'boolean',
    'ds-config': 'string',
    export: 'string',
  },
  tune: {
    model: 'string',
    ...workloadFlagSpec('tune'),
    'budget-minutes': 'string',
    'max-trials': 'string',
    strategies: 'string',
    steps: 'string',
    warmup: 'string',
    noise: 'string',
    'no-baseline': 'boolean',
    python: 'string',
    slurm: 'string',
  },
};

/** The flags of one command (its own and the common ones), or null when it has no entry. */
export function flagsOf(command: string): FlagSpec | null {
  const own = COMMAND_FLAGS[command];
  return own ? { ...own, ...COMMON_FLAGS } : null;
}
