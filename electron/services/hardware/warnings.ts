// Warnings that matter for offload, computed from a detected machine. Pure, so the setup
// wizard, the CLI and tests show the same list. Each has a stable id, a message and a fix.
import { formatBytes, type HardwareWarning, type Machine } from '../../contract';
import { formatCpuList } from './parse/util';

// Model states with CPU offload of the optimizer: fp32 master + Adam m, v (12 B/param) in host
// memory, plus fp16/bf16 params and gradients (4 B) and transfer buffers: ~18 B/param in all.
export const HOST_BYTES_PER_PARAM = 18;
export const REFERENCE_MODEL_PARAMS = 70e9;

export type MachineFacts = Omit<Machine, 'warnings' | 'detectionMs'>;

/** 'linux' | 'darwin' | 'win32' | other, from os.platform as detection stores it (systeminformation says "Windows"). */
export function platformOf(os: Machine['os']): string {
  const p = os.platform.toLowerCase();
  return p === 'windows' ? 'win32' : p;
}

/**
 * What the engine can do on this OS, said once for the Hardware page, the wizard and `detect`.
 * Kept in words beside environment/missing.ts's platform piece (the same facts, for the probe).
 */
export function platformWarnings(m: Pick<MachineFacts, 'os' | 'gpus'>): HardwareWarning[] {
  const platform = platformOf(m.os);
  if (platform === 'darwin')
    return [
      {
        id: 'platform-macos',
        severity: 'warning',
        message:
          'macOS has no CUDA: PyTorch cannot use an NVIDIA GPU here and DeepSpeed has no offload path for Apple GPUs (MPS), so no benchmark run of the offload strategies can start on this Mac. Planning for another machine, history, compare and reports work fully here.',
        fix: 'Plan here and run on a Linux NVIDIA host: start `npm run serve` in a clone of the app there and open it over SSH, or bring its runs here: `npm run cli -- export-runs --out runs.json` there, `npm run cli -- import-runs runs.json` here.',
      },
    ];
  if (platform === 'win32')
    return [
      {
        id: 'platform-windows',
        severity: 'warning',
        message: `Native Windows: DeepSpeed (≥ 0.14.5) runs single-GPU training with CPU offload, but has no NCCL (no multi-GPU runs), no async_io (no NVMe offload / ZeRO-Infinity) and no GDS, and builds its ops (CPU Adam) with MSVC via build_win.bat rather than from pip. ${m.gpus.length ? 'Single-GPU CPU-offload runs can work here; ' : ''}planning, history, compare and reports work fully.`,
        fix: 'For every strategy, run the engine under WSL2 (Ubuntu with the Windows NVIDIA driver; nvidia-smi works inside) or on a Linux host, and open the app there (`npm run serve` in a clone of the app).',
      },
    ];
  return [];
}

export function computeWarnings(m: MachineFacts): HardwareWarning[] {
  const out: HardwareWarning[] = [...platformWarnings(m)];
  const { cpu, memory, gpus } = m;
  // macOS / Windows: facts that only Linux exposes (NUMA, ulimit -l) are unknown there.
  const nonLinux = ['darwin', 'win32'].includes(platformOf(m.os));

  if (gpus.length === 0)
    out.push({
      id: 'no-gpu',
      severity: 'warning',
      message: `No GPU found: ${m.gpuStatus.message}. Only CPU runs (ZeRO with CPU offload on gloo) are possible; SuperOffload needs CUDA.`,
      fix: 'Install the NVIDIA driver (nvidia-smi must work) or run on a GPU host: `npm run serve` there and open it over SSH.',
    });

  // Pinned (page-locked) host buffers back DeepSpeed's offload copies. Half the RAM is a rough
  // floor for what a big CPU-offload run pins; container defaults (64 KiB / 8 MiB) are far below.
  if (!memory.lockedMemoryUnlimited && memory.lockedMemoryLimitBytes !== null && memory.lockedMemoryLimitBytes < memory.totalBytes / 2)
    out.push({
      id: 'pinned-memory-limit',
      severity: 'warning',
      message: `Locked-memory limit (ulimit -l) is ${formatBytes(memory.lockedMemoryLimitBytes)}: pinned host buffers for offload and RDMA may fail to register or fall back to slow pageable copies.`,
      fix: 'Raise it: add "* - memlock unlimited" to /etc/security/limits.conf and log in again (Docker: --ulimit memlock=-1; systemd: LimitMEMLOCK=infinity).',
    });

  for (const g of gpus) {
    const { gen, width, maxGen, maxWidth } = g.pcie;
    if (g.links.some((l) => l.kind === 'c2c')) continue; // the host path is C2C, not PCIe
    if (width !== null && maxWidth !== null && width < maxWidth)
      out.push({
        id: `pcie-width:${g.index}`,
        severity: 'warning',
        message: `GPU ${g.index} (${g.name}) runs its PCIe link at x${width} of x${maxWidth}: host↔GPU copies (the offload path) get ${Math.round((100 * width) / maxWidth)}% of the bandwidth.`,
        fix: 'Reseat the card or move it to a full x16 slot; check the BIOS lane bifurcation and riser cables.',
      });
    else if (maxWidth !== null && maxWidth < 16)
      out.push({
        id: `pcie-width:${g.index}`,
        severity: 'warning',
        message: `GPU ${g.index} (${g.name}) sits on an x${maxWidth} PCIe link: offload copies get at most half the bandwidth of x16.`,
        fix: 'Use an x16 slot for GPUs that offload to the CPU.',
      });
    // The current gen drops while a GPU idles to save power, so a lower gen here is a hint only.
    if (gen !== null && maxGen !== null && gen < maxGen)
      out.push({
        id: `pcie-gen:${g.index}`,
        severity: 'info',
        message: `GPU ${g.index} (${g.name}) reports PCIe Gen${gen} of Gen${maxGen}. GPUs drop the link speed while idle, so this may be power saving.`,
        fix: 'Check again under load (nvidia-smi -q -d PCIE while a run is active); if it stays low, check the slot and BIOS PCIe speed setting.',
      });
  }

  const cpuNodes = cpu.numaNodes.filter((n) => n.cpus.length > 0);
  if (cpuNodes.length > 1 && gpus.length > 0) {
    const unknown = gpus.filter((g) => g.numaNode === null);
    if (unknown.length)
      out.push({
        id: 'gpu-numa-unknown',
        severity: 'warning',
        message: `The NUMA node of GPU ${unknown.map((g) => g.index).join(', ')} is unknown on a ${cpuNodes.length}-node host: CPU Adam threads may run on the far socket and copy across the inter-socket link.`,
        fix: 'Bind each rank to the cores of its GPU: `deepspeed --bind_cores_to_rank`, or `numactl --cpunodebind=N --membind=N`.',
      });
    const local = gpus.filter((g) => g.numaNode !== null);
    const nodes = [...new Set(local.map((g) => g.numaNode))];
    if (local.length)
      out.push({
        id: 'gpu-numa-binding',
        severity: 'info',
        message: `GPUs are local to NUMA node(s) ${nodes.join(', ')} (${local.map((g) => `GPU ${g.index} → node ${g.numaNode}`).join(', ')}). Host buffers and CPU Adam threads on another node cross the SYS link.`,
        fix: `Run with \`deepspeed --bind_cores_to_rank\` so each rank's threads and memory stay on its GPU's node${nodes.length === 1 ? ` (node ${nodes[0]}: CPUs ${formatCpuList(cpuNodes.find((n) => n.id === nodes[0])?.cpus ?? [])})` : ''}.`,
      });
  }

  if (!m.disks.some((d) => d.isNvme))
    out.push({
      id: 'no-nvme',
      severity: 'info',
      message: 'No NVMe drive found: ZeRO-Infinity (offload to NVMe) would use slower storage or is not worth running here.',
      fix: 'Add a local NVMe SSD and point nvme_path at a folder on it (`df -h FOLDER` shows its free space).',
    });

  // Said about this machine, not about a model nobody chose yet (not "a 70B warning before any
  // model is chosen"): how large a model its memory holds with CPU offload. Shown while that is below
  // the largest preset; the Plan page checks the chosen model itself. The id is kept for old readers.
  const needed = HOST_BYTES_PER_PARAM * REFERENCE_MODEL_PARAMS;
  if (memory.totalBytes < needed) {
    const fits = memory.totalBytes / HOST_BYTES_PER_PARAM / 1e9;
    const size = fits < 1 ? `${Math.round(fits * 1000)} million` : `${fits < 10 ? fits.toFixed(1) : Math.round(fits)} billion`;
    out.push({
      id: 'host-ram-70b',
      severity: 'info',
      message: `With CPU offload, training keeps about ${HOST_BYTES_PER_PARAM} bytes per model parameter in host memory (optimizer state, weights, gradients and copy buffers): this machine's ${formatBytes(memory.totalBytes)} holds a model of up to about ${size} parameters that way.`,
      fix: 'For a larger model, offload to NVMe as well (ZeRO-Infinity) or spread it over more machines; the Plan page checks each model you choose.',
    });
  }

  if (cpu.smt)
    out.push({
      id: 'smt-on',
      severity: 'info',
      message: `SMT is on (${cpu.threadsPerCore} threads per core): CPU Adam is bound by FPU and memory bandwidth, so sibling threads add little and can slow each other.`,
      fix: `Give CPU Adam one thread per physical core (${cpu.physicalCores}), e.g. OMP_NUM_THREADS / --bind_cores_to_rank, or turn SMT off in the BIOS.`,
    });

  if (nonLinux)
    out.push({
      id: 'numa-pinned-unknown',
      severity: 'info',
      message:
        'NUMA placement and the locked (pinned) memory limit are not readable on this OS: they are shown as unknown, and plans assume one memory domain.',
      fix: 'Nothing to change here; on the Linux host that runs the engine, detection reads both from sysfs and /proc/self/limits.',
    });

  if (cpu.architecture === 'x86_64' && cpu.adamSimd === 'unknown')
    out.push({
      id: 'cpu-simd-unknown',
      severity: 'info',
      message:
        "This OS does not report the CPU's AVX/AVX-512 flags to detection, so the CPU Adam code path (avx512 / avx256 / scalar) is unknown.",
      fix: 'Measure CPU Adam in the setup wizard; the measured rate is what plans use.',
    });
  else if (cpu.architecture === 'x86_64' && !cpu.simd.includes('avx512f'))
    out.push({
      id: 'cpu-adam-no-avx512',
      severity: 'info',
      message: `No AVX-512: DeepSpeed's CPU Adam builds its ${cpu.simd.includes('avx2') ? 'AVX2' : 'scalar'} path, slower per core than AVX-512.`,
      fix: 'Nothing to change in software; expect a lower CPU Adam rate (measure it in the setup wizard).',
    });
  if (/^(aarch64|arm64)$/.test(cpu.architecture))
    out.push({
      id: 'cpu-adam-scalar-arm',
      severity: 'info',
      message:
        'On aarch64 DeepSpeed builds CPU Adam without SVE/NEON kernels (GraceAdam is not in the DeepSpeed repository), so the optimizer step is slower per core than on AVX-512.',
      fix: 'Measure CPU Adam in the setup wizard; SuperOffload overlaps it with backward, which hides part of the cost.',
    });

  if (m.superchip)
    out.push({
      id: 'superchip',
      severity: 'info',
      message: `${m.superchip.description}. SuperOffload is designed for this machine.`,
      fix: 'Plan SuperOffload with gradient_clipping 0.0 to keep its overlap, and bind cores to ranks (NUMA/MPAM matter on GH200).',
    });

  if (cpu.hypervisor)
    out.push({
      id: 'virtual-machine',
      severity: 'info',
      message: `Running under a hypervisor (${cpu.hypervisor}): NUMA, PCIe and NVLink topology are what the VM is shown, which may differ from the host.`,
      fix: 'Compare against bare-metal numbers before drawing conclusions about topology effects.',
    });

  return out;
}
