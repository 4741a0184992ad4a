// Bandwidth classes of the links that matter for offload, and the per-GPU link lists derived
// from `nvidia-smi topo -m` (+ `nvlink -s` where it ran). Pure.
import type { Gpu, GpuLink } from '../../contract';
import type { NvlinkStatus, TopoMatrix } from './parse/nvidia-smi';

// PCIe payload bandwidth per lane and direction in GB/s (after 8b/10b or 128b/130b encoding).
const PCIE_LANE_GBPS: Record<number, number> = { 1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563 };

export function pcieBytesPerSecond(gen: number | null, width: number | null): number | null {
  if (!gen || !width || !PCIE_LANE_GBPS[gen]) return null;
  return PCIE_LANE_GBPS[gen] * width * 1e9;
}

export function pcieClass(gen: number | null, width: number | null): string {
  const bw = pcieBytesPerSecond(gen, width);
  const what = `PCIe${gen ? ` Gen${gen}` : ''}${width ? ` x${width}` : ''}`;
  return bw ? `${what} (≈${Math.round(bw / 1e9)} GB/s each way)` : what;
}

/** NVLink per link and direction: 25 GB/s for NVLink 2–4 (V100/A100/H100/H200), 50 for NVLink 5. */
export function nvlinkLinkGBps(architecture: string | null | undefined, measured: number | null): number {
  if (measured && measured > 0) return measured;
  return /blackwell/i.test(architecture ?? '') ? 50 : 25;
}

export function nvlinkClass(count: number, perLinkGBps: number): { label: string; bytesPerSecond: number } {
  const each = count * perLinkGBps;
  return { label: `NVLink ×${count} (≈${Math.round(each * 2)} GB/s bidirectional)`, bytesPerSecond: each * 1e9 };
}

// NVLink-C2C between Grace and Hopper: 900 GB/s total, 450 GB/s each way.
export const C2C_BYTES_PER_SECOND = 450e9;
export const C2C_CLASS = 'NVLink-C2C (≈900 GB/s bidirectional)';

const TOPO_MEANING: Record<string, string> = {
  PIX: 'PCIe through one switch (PIX)',
  PXB: 'PCIe through several switches (PXB)',
  PHB: 'PCIe through the host bridge (PHB)',
  NODE: 'PCIe across host bridges in one NUMA node (NODE)',
  SYS: 'PCIe + inter-socket link (SYS)',
};

export function hostLinkBytes(gpu: Gpu): number | null {
  // Max gen: the current gen drops while a GPU idles; width does not.
  return pcieBytesPerSecond(gpu.pcie.maxGen ?? gpu.pcie.gen, gpu.pcie.width ?? gpu.pcie.maxWidth);
}

/**
 * Fill each GPU's links[], numaNode and cpuAffinity from the topo matrix. GPU↔GPU cells give
 * NVLink (NV#) or a PCIe path class; every GPU also gets its host link (PCIe, or C2C on a superchip).
 */
export function attachLinks(gpus: Gpu[], topo: TopoMatrix | null, nvlink: NvlinkStatus[], superchip: boolean): Gpu[] {
  return gpus.map((gpu) => {
    const row = topo?.rows.find((r) => r.name === `GPU${gpu.index}`);
    const links: GpuLink[] = [];
    const measured = nvlink.find((n) => n.gpu === gpu.index)?.linkGBps ?? null;
    for (const other of gpus) {
      if (other.index === gpu.index || !row) continue;
      const cls = row.cells[`GPU${other.index}`];
      if (!cls) continue;
      const nv = /^NV(\d+)$/.exec(cls);
      if (nv) {
        const count = Number(nv[1]);
        const c = nvlinkClass(count, nvlinkLinkGBps(gpu.architecture, measured));
        links.push({
          kind: 'nvlink',
          peer: `GPU${other.index}`,
          topo: cls,
          count,
          bandwidthClass: c.label,
          bytesPerSecond: c.bytesPerSecond,
        });
      } else {
        const a = hostLinkBytes(gpu);
        const b = hostLinkBytes(other);
        links.push({
          kind: 'pcie',
          peer: `GPU${other.index}`,
          topo: cls,
          count: null,
          bandwidthClass: TOPO_MEANING[cls] ?? cls,
          bytesPerSecond: a && b ? Math.min(a, b) : (a ?? b),
        });
      }
    }
    const numaText = row?.numaAffinity ?? null;
    const numaNode = gpu.numaNode ?? (numaText !== null && /^\d+$/.test(numaText) ? Number(numaText) : null);
    if (superchip && gpu.c2cMode !== false) {
      links.push({ kind: 'c2c', peer: 'CPU', topo: null, count: null, bandwidthClass: C2C_CLASS, bytesPerSecond: C2C_BYTES_PER_SECOND });
    } else {
      const gen = gpu.pcie.maxGen ?? gpu.pcie.gen;
      const width = gpu.pcie.width ?? gpu.pcie.maxWidth;
      links.push({
        kind: 'pcie',
        peer: numaNode !== null ? `NUMA${numaNode}` : 'CPU',
        topo: null,
        count: null,
        bandwidthClass: pcieClass(gen, width),
        bytesPerSecond: hostLinkBytes(gpu),
      });
    }
    return { ...gpu, links, numaNode, cpuAffinity: gpu.cpuAffinity ?? row?.cpuAffinity ?? null };
  });
}
