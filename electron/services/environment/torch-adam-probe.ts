// torch's CPU AdamW rate, measured in the engine environment: resources/engine/torch_adam_rate.py steps
// one fp32 tensor with torch.optim.AdamW three ways (plain: the per-tensor loop; foreach; fused) and
// prints one JSON line. FSDP2's CPU offload steps with torch's AdamW, not DeepSpeedCPUAdam, so the
// tuner needs this host's own figure for it rather than another host's ratio (docs/tuner-model.md).
// Argument vector only, shell: false (run.ts); a cancel kills the child.
import type { TorchAdam } from '../../contract';
import { enginePath } from '../resources';
import { run } from './run';

const IMPLS = ['plain', 'foreach', 'fused'] as const;

/** What the script's JSON line says → the contract's TorchAdam; throws an Error naming what is missing. */
export function torchAdamFromOutput(stdout: string, python: string): TorchAdam {
  const last = stdout.trim().split('\n').pop() ?? '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(last);
  } catch {
    throw new Error(`torch_adam_rate.py printed no JSON line (last line: ${JSON.stringify(last.slice(0, 200))})`);
  }
  const o = parsed as { torch?: unknown; results?: unknown };
  if (!Array.isArray(o.results) || typeof o.torch !== 'string')
    throw new Error('torch_adam_rate.py answered without results or torch version');
  const rates: TorchAdam['paramsPerSecond'] = {};
  let threads = 0;
  let params = 0;
  for (const r of o.results as { impl?: unknown; threads?: unknown; params?: unknown; paramsPerSecond?: unknown }[]) {
    const impl = IMPLS.find((i) => i === r.impl);
    if (!impl || typeof r.paramsPerSecond !== 'number' || !(r.paramsPerSecond > 0)) continue;
    rates[impl] = r.paramsPerSecond;
    threads = typeof r.threads === 'number' ? r.threads : threads;
    params = typeof r.params === 'number' ? r.params : params;
  }
  if (!Object.keys(rates).length || threads < 1 || params < 1) throw new Error('torch_adam_rate.py measured no implementation');
  return { threads, params, paramsPerSecond: rates, torch: o.torch, python };
}

/** Runs the measurement with `python`; rejects with the reason in words (no torch, a timeout, a crash). */
export async function measureTorchAdam(
  python: string,
  input: { params: number; threads: number; timeoutMs: number; signal?: AbortSignal },
): Promise<TorchAdam> {
  const args = [
    enginePath('torch_adam_rate.py'),
    '--single',
    String(input.params),
    '--threads',
    String(input.threads),
    '--impl',
    IMPLS.join(','),
    '--steps',
    '3',
  ];
  const result = await run(python, args, { timeoutMs: input.timeoutMs, signal: input.signal });
  if (input.signal?.aborted) throw new Error('cancelled');
  if (result.error) throw new Error(`${python} could not be started (${result.error})`);
  if (result.timedOut) throw new Error(`torch's AdamW did not finish in ${Math.round(input.timeoutMs / 1000)} s`);
  if (result.code !== 0) {
    const why = result.stderr.trim().split('\n').slice(-1)[0] || `exit ${result.code}`;
    if (/No module named 'torch'/.test(why))
      throw new Error(
        `${python} has no torch: create the engine environment (the app’s Setup, or: bash scripts/setup-engine-venv.sh), then measure again`,
      );
    throw new Error(`${python} failed to step torch's AdamW (${why.slice(0, 300)})`);
  }
  return torchAdamFromOutput(result.stdout, python);
}
