// What is missing from an interpreter for the engine, each with the command that fixes it.
// Pure: facts from probe.py in, a list out — the setup wizard and the CLI show the same list.
import type { InterpreterProbe, MissingPiece } from '../../contract';
import { pinOf } from './requirements';

export const MIN_PYTHON: [number, number] = [3, 9];

export function versionAtLeast(version: string | null, min: [number, number]): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a > min[0] || (a === min[0] && b >= min[1]);
}

/** The oldest Python a torch release installs on: torch 2.9 and later need Python ≥ 3.10. */
export function minPythonForTorch(torchPin: string | null): [number, number] {
  const m = /^(\d+)\.(\d+)/.exec(torchPin ?? '');
  if (m && (Number(m[1]) > 2 || (Number(m[1]) === 2 && Number(m[2]) >= 9))) return [3, 10];
  return MIN_PYTHON;
}

/** Quote a path for a copy-pasteable shell command. */
function sh(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

type Facts = Pick<InterpreterProbe, 'pythonVersion' | 'torch' | 'deepspeed' | 'build' | 'isVenv' | 'externallyManaged'>;

/**
 * An interpreter the OS manages (PEP 668) refuses `pip install` ("externally-managed-environment",
 * Debian 12's /usr/bin/python3): every pip fix for it becomes one piece that says so and points to
 * an environment pip can install into. Before, Setup suggested `/usr/bin/python3 -m pip install
 * torch==…`, which Debian refuses.
 */
function managedByTheSystem(python: string, pieces: MissingPiece[]): MissingPiece[] {
  const pipFix = (m: MissingPiece) => m.fix.includes(' -m pip install');
  const blocked = pieces.filter(pipFix);
  if (blocked.length === 0) return pieces;
  const merged: MissingPiece = {
    id: 'externally-managed',
    severity: blocked.some((m) => m.severity === 'required') ? 'required' : 'optional',
    what: `${blocked.map((m) => m.what).join('; ')} — and pip cannot install into ${python}: the system manages it (PEP 668, "externally-managed-environment")`,
    fix: "Create the app's own environment (Setup → Create environment, or bash scripts/setup-engine-venv.sh), or choose a virtual environment that has torch and DeepSpeed",
  };
  const at = pieces.indexOf(blocked[0]);
  const rest = pieces.filter((m) => !pipFix(m));
  return [...rest.slice(0, at), merged, ...rest.slice(at)];
}

/**
 * What the engine can do on this OS at all, whatever is installed: first in the list, so the
 * wizard and `engine probe` say it before any pip command. (The Hardware page says the same in
 * hardware/warnings.ts platformWarnings.) Linux: nothing to say.
 */
export function platformPieces(platform: NodeJS.Platform): MissingPiece[] {
  if (platform === 'darwin')
    return [
      {
        id: 'platform-macos',
        severity: 'required',
        what: 'macOS has no CUDA: PyTorch cannot drive an NVIDIA GPU here and DeepSpeed has no offload path for Apple GPUs (MPS), so the engine cannot benchmark the offload strategies on this Mac. Planning for another machine, history, compare and reports work fully without it.',
        fix: 'Run the engine on a Linux NVIDIA host (`npm run serve` in a clone of the app there, opened over SSH), or bring its runs here: `npm run cli -- export-runs --out runs.json` there, `npm run cli -- import-runs runs.json` here.',
      },
    ];
  if (platform === 'win32')
    return [
      {
        id: 'platform-windows',
        severity: 'optional',
        what: "Native Windows: DeepSpeed (≥ 0.14.5) runs single-GPU training with CPU offload, but has no NCCL (no multi-GPU runs), no async_io (no NVMe offload / ZeRO-Infinity) and no GDS, builds its ops with MSVC (build_win.bat) rather than from pip, and its 'deepspeed' launcher does not run; strategies that need those are refused here.",
        fix: 'For every strategy, run the engine under WSL2 (Ubuntu with the Windows NVIDIA driver; nvidia-smi works inside) or on a Linux host.',
      },
    ];
  return [];
}

export function missingPieces(
  python: string,
  facts: Facts,
  requirements: string[],
  platform: NodeJS.Platform = process.platform,
): MissingPiece[] {
  const pieces = pipPieces(python, facts, requirements, platform);
  return facts.externallyManaged && !facts.isVenv ? managedByTheSystem(python, pieces) : pieces;
}

function pipPieces(python: string, facts: Facts, requirements: string[], platform: NodeJS.Platform): MissingPiece[] {
  const out: MissingPiece[] = platformPieces(platform);
  const pip = `${sh(python)} -m pip install`;
  const torchPin = pinOf(requirements, 'torch');
  const dsPin = pinOf(requirements, 'deepspeed');
  const torchReq = torchPin ? `torch==${torchPin}` : 'torch';
  const dsReq = dsPin ? `deepspeed==${dsPin}` : 'deepspeed';
  const apt = platform === 'linux';

  if (!versionAtLeast(facts.pythonVersion, MIN_PYTHON)) {
    out.push({
      id: 'python-version',
      severity: 'required',
      what: `Python ${facts.pythonVersion ?? '?'} is too old: torch ${torchPin ?? ''} and DeepSpeed need Python ≥ ${MIN_PYTHON.join('.')}`.replace(
        '  ',
        ' ',
      ),
      fix: 'Choose a newer interpreter, or let Offload Studio create its own environment (Setup → Create environment).',
    });
    return out; // nothing else can be installed into it
  }
  // Only suggest what can work: the pinned torch has no wheel for an older Python.
  const torchPython = minPythonForTorch(torchPin);
  if (!facts.torch && !versionAtLeast(facts.pythonVersion, torchPython)) {
    out.push({
      id: 'python-version',
      severity: 'required',
      what: `Python ${facts.pythonVersion ?? '?'} cannot install torch ${torchPin}: it needs Python ≥ ${torchPython.join('.')}`,
      fix: `Choose a Python ≥ ${torchPython.join('.')} interpreter, or let Offload Studio create its own environment (Setup → Create environment).`,
    });
    return out;
  }
  if (!facts.torch) out.push({ id: 'torch', severity: 'required', what: 'PyTorch is not installed', fix: `${pip} ${torchReq}` });
  else if (facts.torch.error)
    out.push({
      id: 'torch-broken',
      severity: 'required',
      what: `PyTorch ${facts.torch.version} does not import: ${facts.torch.error}`,
      fix: `${pip} --force-reinstall ${torchReq}`,
    });
  else if (torchPin && !facts.torch.version.startsWith(torchPin))
    out.push({
      id: 'torch-version',
      severity: 'optional',
      what: `PyTorch ${facts.torch.version} is not the tested ${torchPin}`,
      fix: `${pip} ${torchReq}`,
    });

  // DeepSpeed is an sdist built without isolation, so the interpreter needs setuptools (with
  // bdist_wheel) and wheel first: Python 3.12+ venvs ship no setuptools, 3.11's an old one. The
  // same pins as resources/engine/bootstrap-requirements.txt's ceiling (torch needs setuptools<82).
  const buildTools = `${pip} ${sh('setuptools<82')} wheel && `;
  if (!facts.deepspeed)
    out.push({
      id: 'deepspeed',
      severity: 'required',
      what: 'DeepSpeed is not installed',
      // DeepSpeed's setup imports torch: install it after torch, without build isolation.
      fix: facts.torch
        ? `${buildTools}${pip} --no-build-isolation ${dsReq}`
        : `${pip} ${torchReq} && ${buildTools}${pip} --no-build-isolation ${dsReq}`,
    });
  else {
    const ds = facts.deepspeed;
    if (ds.error && !ds.cpuAdam.compatible)
      out.push({
        id: 'deepspeed-broken',
        severity: 'required',
        what: `DeepSpeed ${ds.version} does not import: ${ds.error}`,
        fix: `${buildTools}${pip} --force-reinstall --no-build-isolation ${dsReq}`,
      });
    if (dsPin && ds.version !== dsPin)
      out.push({
        id: 'deepspeed-version',
        severity: 'optional',
        what: `DeepSpeed ${ds.version} is not the tested ${dsPin}`,
        fix: `${buildTools}${pip} --no-build-isolation ${dsReq}`,
      });
    // CPU Adam (every offload strategy) is either prebuilt or JIT-built: JIT needs a compiler and ninja.
    if (!ds.cpuAdam.prebuilt) {
      if (!facts.build.cxx)
        out.push({
          id: 'cxx',
          severity: 'required',
          what: 'No C++ compiler: DeepSpeed JIT-builds its CPU Adam op on first use',
          fix: apt
            ? 'Install a C++ compiler (build-essential): sudo apt-get install build-essential'
            : 'Install a C++ compiler (Xcode command line tools / MSVC build tools)',
        });
      if (!facts.build.ninja)
        out.push({ id: 'ninja', severity: 'required', what: 'ninja is missing: torch builds DeepSpeed ops with it', fix: `${pip} ninja` });
      if (!ds.cpuAdam.compatible && facts.build.cxx)
        out.push({
          id: 'cpu-adam',
          severity: 'required',
          what: `DeepSpeed's CPU Adam op is not compatible here${ds.cpuAdam.error ? ` (${ds.cpuAdam.error})` : ''}`,
          fix: `Run ${sh(python)} -m deepspeed.env_report (ds_report) to see why; reinstall with: ${pip} --force-reinstall --no-build-isolation ${dsReq}`,
        });
    }
    // async_io (ZeRO-Infinity, NVMe offload) needs libaio headers for its JIT build.
    if (!ds.asyncIo.compatible && !ds.asyncIo.prebuilt)
      out.push({
        id: 'async-io',
        severity: 'optional',
        what: `DeepSpeed's async_io op is unavailable${facts.build.libaio ? '' : ' (libaio not found)'}: ZeRO-Infinity (NVMe offload) cannot run`,
        fix: apt ? 'sudo apt-get install libaio-dev' : 'Install libaio (Linux only); NVMe offload is not supported on this OS',
      });
  }
  if (facts.torch && !facts.torch.error && !facts.torch.cudaAvailable)
    out.push({
      id: 'no-cuda-device',
      severity: 'optional',
      what: facts.torch.cuda
        ? `torch is a CUDA ${facts.torch.cuda} build but sees no GPU: only CPU runs (gloo) are possible`
        : 'torch is a CPU-only build: only CPU runs (gloo) are possible',
      fix: facts.torch.cuda
        ? 'Install or fix the NVIDIA driver (nvidia-smi must work), then probe again'
        : `${pip} --force-reinstall ${torchReq} (the PyPI wheel is a CUDA build)`,
    });
  return out;
}
