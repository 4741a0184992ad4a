// What the user's own training takes out of the app: the ds_config.json (as DeepSpeed runs it: every
// "auto" filled, the keys HF Trainer's `--deepspeed` and deepspeed.initialize read), an accelerate
// config file pointing at it, and the launch line for the spec's GPUs and nodes with each launcher.
// argv is given beside each line: what a program should run (no shell); the line is for a terminal.
// Pure over the RunSpec: the contract's, so a report turns a stored spec into these lines without the tuner.
import type { RunSpec } from './run-spec';
import { worldSize } from './ran-workload';
import type { LaunchExport } from './user-config';

export interface LaunchOptions {
  /** The user's training script (default train.py). */
  script?: string;
  /** Arguments for the script after `--deepspeed ds_config.json`. */
  scriptArgs?: string[];
  /** The names the files are saved under (the lines refer to them). */
  dsConfigFile?: string;
  accelerateFile?: string;
}

/** POSIX shell quoting for the printed line only (argv is what runs). */
function quote(arg: string): string {
  return /^[A-Za-z0-9_./=:,@+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function yaml(lines: [string, string | number | boolean][], indent = ''): string {
  return lines
    .map(([k, v]) => `${indent}${k}: ${typeof v === 'string' && !/^[A-Za-z0-9_./-]+$/.test(v) ? JSON.stringify(v) : v}`)
    .join('\n');
}

export function launchExport(spec: RunSpec, options: LaunchOptions = {}): LaunchExport {
  const notes: string[] = [];
  if (spec.engine !== 'deepspeed' || !spec.dsConfig) {
    notes.push(
      `${spec.strategy} runs on FSDP2, not DeepSpeed: there is no ds_config; its settings are ${JSON.stringify(spec.fsdp)} (fully_shard with CPUOffloadPolicy${spec.fsdp?.reshardAfterForward === false ? ', reshard_after_forward=False' : ''})`,
    );
  }
  const script = options.script ?? 'train.py';
  const dsFile = options.dsConfigFile ?? 'ds_config.json';
  const accFile = options.accelerateFile ?? 'accelerate_config.yaml';
  const scriptArgs = ['--deepspeed', dsFile, ...(options.scriptArgs ?? [])];
  const gpus = spec.gpus;
  const nodes = spec.nodes;
  const multi = nodes > 1;
  const deepspeedArgv = [
    'deepspeed',
    ...(multi ? ['--hostfile', 'hostfile', '--num_nodes', String(nodes)] : []),
    '--num_gpus',
    String(gpus),
    script,
    ...scriptArgs,
  ];
  const torchrunArgv = [
    'torchrun',
    '--nproc_per_node',
    String(gpus),
    ...(multi ? ['--nnodes', String(nodes), '--node_rank', '$NODE_RANK', '--master_addr', '$MASTER_ADDR', '--master_port', '29500'] : []),
    script,
    ...scriptArgs,
  ];
  // accelerate takes the ds_config from its own config file; the script gets no --deepspeed
  const accelerateArgv = [
    'accelerate',
    'launch',
    '--config_file',
    accFile,
    ...(multi ? ['--machine_rank', '$NODE_RANK', '--main_process_ip', '$MASTER_ADDR', '--main_process_port', '29500'] : []),
    script,
    ...(options.scriptArgs ?? []),
  ];
  if (multi)
    notes.push(
      `${nodes} nodes: deepspeed reads the nodes from a hostfile (one "host slots=${gpus}" line per node); torchrun and accelerate run once per node with NODE_RANK and MASTER_ADDR set`,
    );
  const stage = Number((spec.dsConfig?.zero_optimization as { stage?: unknown } | undefined)?.stage ?? 0);
  const accelerateYaml =
    [
      yaml([
        ['compute_environment', 'LOCAL_MACHINE'],
        ['distributed_type', 'DEEPSPEED'],
      ]),
      'deepspeed_config:',
      yaml(
        [
          ['deepspeed_config_file', dsFile],
          // ZeRO-3 partitions parameters as the model is built (deepspeed.zero.Init), as the benchmark does
          ['zero3_init_flag', stage === 3],
        ],
        '  ',
      ),
      yaml([
        ['machine_rank', 0],
        ['main_training_function', 'main'],
        ['num_machines', nodes],
        ['num_processes', worldSize({ gpus, nodes })],
        ['rdzv_backend', 'static'],
        ['same_network', true],
        ['use_cpu', false],
      ]),
    ].join('\n') + '\n';
  notes.push(
    "With deepspeed_config_file, accelerate takes the batch, precision and offload settings from the ds_config: leave mixed_precision and gradient_accumulation_steps out of accelerate's own config.",
  );
  if (spec.userConfig?.resolved.length)
    notes.push(
      `The ds_config has its ${spec.userConfig.resolved.length} "auto" value(s) filled as the benchmark ran them (${spec.userConfig.resolved.map((r) => r.key).join(', ')}); keep your original file with HF Trainer if you want it to fill them from your TrainingArguments.`,
    );
  const line = (argv: string[]) => argv.map((a) => (a.startsWith('$') ? a : quote(a))).join(' ');
  return {
    dsConfigJson: JSON.stringify(spec.dsConfig ?? {}, null, 2) + '\n',
    accelerateYaml,
    launch: [
      { launcher: 'deepspeed', line: line(deepspeedArgv), argv: deepspeedArgv },
      { launcher: 'torchrun', line: line(torchrunArgv), argv: torchrunArgv },
      { launcher: 'accelerate', line: line(accelerateArgv), argv: accelerateArgv },
    ],
    notes,
  };
}
