// The picture-ready topology: sockets, NUMA nodes, GPUs and NVMe drives as nodes; NVLink, PCIe,
// C2C and inter-node paths as edges with a bandwidth class. Pure: the UI and the report draw it
// as is, without re-deriving anything from raw tool output.
import type { Cpu, Disk, Gpu, Topology, TopologyEdge, TopologyNode } from '../../contract';
import { formatCpuList } from './parse/util';

export function buildTopology(cpu: Cpu, gpus: Gpu[], disks: Disk[], diskNuma: Record<string, number> = {}): Topology {
  const nodes: TopologyNode[] = [];
  const edges: TopologyEdge[] = [];
  const sockets = Math.max(1, cpu.sockets);
  for (let s = 0; s < sockets; s++)
    nodes.push({
      id: `socket${s}`,
      kind: 'socket',
      label: sockets > 1 ? `${cpu.model} (socket ${s})` : cpu.model,
      parent: null,
      memoryBytes: null,
    });

  // NUMA nodes without CPUs and without memory are placeholders (e.g. GH200 exposes 9 nodes:
  // node0 Grace, node1 the GPU's HBM, the rest empty MIG slots): skip the empty ones.
  const numa = cpu.numaNodes.length
    ? cpu.numaNodes.filter((n) => n.cpus.length > 0 || (n.memoryBytes ?? 0) > 0)
    : [{ id: 0, cpus: [...Array(cpu.logicalCores).keys()], memoryBytes: null }];
  const withCpus = numa.filter((n) => n.cpus.length > 0);
  // Socket of a node: nodes are numbered socket by socket on every x86 and Arm server we know.
  const socketOf = (id: number) => {
    const i = withCpus.findIndex((n) => n.id === id);
    return i < 0 ? null : Math.min(sockets - 1, Math.floor((i * sockets) / Math.max(1, withCpus.length)));
  };
  for (const n of numa) {
    const s = socketOf(n.id);
    nodes.push({
      id: `numa${n.id}`,
      kind: 'numa',
      label: n.cpus.length ? `NUMA ${n.id} (CPUs ${formatCpuList(n.cpus)})` : `NUMA ${n.id} (memory only)`,
      parent: s === null ? null : `socket${s}`,
      memoryBytes: n.memoryBytes,
    });
  }
  const hasNuma = (id: number | null) => id !== null && numa.some((n) => n.id === id);

  // Paths between NUMA nodes: same socket → NODE, across sockets → SYS (UPI / Infinity Fabric).
  for (let i = 0; i < withCpus.length; i++)
    for (let j = i + 1; j < withCpus.length; j++) {
      const cross = socketOf(withCpus[i].id) !== socketOf(withCpus[j].id);
      edges.push({
        from: `numa${withCpus[i].id}`,
        to: `numa${withCpus[j].id}`,
        kind: cross ? 'sys' : 'node',
        topo: cross ? 'SYS' : 'NODE',
        bandwidthClass: cross ? 'inter-socket link (UPI / Infinity Fabric)' : 'on-die interconnect between NUMA nodes',
        bytesPerSecond: null,
      });
    }

  for (const gpu of gpus) {
    const id = `gpu${gpu.index}`;
    const parent = hasNuma(gpu.numaNode) ? `numa${gpu.numaNode}` : numa.length === 1 ? `numa${numa[0].id}` : null;
    nodes.push({ id, kind: 'gpu', label: `GPU ${gpu.index}: ${gpu.name}`, parent, memoryBytes: gpu.memoryBytes });
    for (const link of gpu.links) {
      if (link.peer.startsWith('GPU')) {
        const peer = Number(link.peer.slice(3));
        if (peer < gpu.index) continue; // each pair once
        edges.push({
          from: id,
          to: `gpu${peer}`,
          kind: link.kind === 'nvlink' ? 'nvlink' : link.topo === 'SYS' ? 'sys' : link.topo === 'NODE' ? 'node' : 'pcie',
          topo: link.topo,
          bandwidthClass: link.bandwidthClass,
          bytesPerSecond: link.bytesPerSecond,
        });
      } else if (parent) {
        edges.push({
          from: id,
          to: parent,
          kind: link.kind === 'c2c' ? 'c2c' : link.kind === 'xgmi' ? 'xgmi' : 'pcie',
          topo: link.topo,
          bandwidthClass: link.bandwidthClass,
          bytesPerSecond: link.bytesPerSecond,
        });
      }
    }
  }

  for (const disk of disks.filter((d) => d.isNvme)) {
    const n = diskNuma[disk.name];
    const parent = n !== undefined && hasNuma(n) ? `numa${n}` : numa.length === 1 ? `numa${numa[0].id}` : null;
    const id = `nvme:${disk.name}`;
    nodes.push({ id, kind: 'nvme', label: `${disk.name}${disk.model ? ` (${disk.model})` : ''}`, parent, memoryBytes: disk.sizeBytes });
    if (parent) edges.push({ from: id, to: parent, kind: 'pcie', topo: null, bandwidthClass: 'NVMe over PCIe', bytesPerSecond: null });
  }
  return { nodes, edges };
}
