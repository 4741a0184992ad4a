// The machine as a picture: sockets and NUMA nodes on top, the GPUs and NVMe drives that hang
// off each NUMA node below them, and the links between them with their bandwidth class.
// Input is the detected Machine's `topology` (nodes + edges), drawn without re-deriving anything.
import type { Topology, TopologyEdge, TopologyNode } from '../../../electron/contract';
// the one byte format of the app: 23.5 GiB here as on every other page
import { formatBytes } from '../../../electron/contract/format';

const COL_W = 220;
const MAX_LABEL = 30; // characters that fit a box at 12px
const BOX_H = 44;
const ROW = { socket: 16, numa: 76, gpu: 210, nvme: 320 } as const;
/** Below the NUMA row of a host with nothing attached: one line saying so. */
const NOTE_H = 40;

interface Placed {
  node: TopologyNode;
  x: number;
  y: number;
  w: number;
}

function childrenOf(topology: Topology, parentId: string | null, kinds: TopologyNode['kind'][]): TopologyNode[] {
  return topology.nodes.filter((n) => kinds.includes(n.kind) && n.parent === parentId);
}

export function layoutTopology(topology: Topology): { placed: Map<string, Placed>; width: number; height: number } {
  const placed = new Map<string, Placed>();
  const numas = topology.nodes.filter((n) => n.kind === 'numa');
  const sockets = topology.nodes.filter((n) => n.kind === 'socket');
  const columns: { numa: TopologyNode | null; devices: TopologyNode[] }[] = numas.map((numa) => ({
    numa,
    devices: childrenOf(topology, numa.id, ['gpu', 'nvme']),
  }));
  const orphans = topology.nodes.filter((n) => (n.kind === 'gpu' || n.kind === 'nvme') && !columns.some((c) => c.devices.includes(n)));
  if (orphans.length || columns.length === 0) columns.push({ numa: null, devices: orphans });

  let x = 10;
  for (const column of columns) {
    const gpus = column.devices.filter((d) => d.kind === 'gpu');
    const nvmes = column.devices.filter((d) => d.kind === 'nvme');
    const slots = Math.max(1, gpus.length, nvmes.length);
    const width = slots * COL_W;
    if (column.numa) placed.set(column.numa.id, { node: column.numa, x: x + 4, y: ROW.numa, w: width - 8 });
    gpus.forEach((g, i) => placed.set(g.id, { node: g, x: x + i * COL_W + 8, y: ROW.gpu, w: COL_W - 16 }));
    nvmes.forEach((d, i) => placed.set(d.id, { node: d, x: x + i * COL_W + 8, y: ROW.nvme, w: COL_W - 16 }));
    x += width + 10;
  }
  for (const socket of sockets) {
    const members = [...placed.values()].filter((p) => p.node.kind === 'numa' && p.node.parent === socket.id);
    if (members.length === 0) {
      placed.set(socket.id, { node: socket, x: 10, y: ROW.socket, w: Math.max(COL_W, x - 20) });
      continue;
    }
    const left = Math.min(...members.map((m) => m.x)) - 4;
    const right = Math.max(...members.map((m) => m.x + m.w)) + 4;
    placed.set(socket.id, { node: socket, x: left, y: ROW.socket, w: right - left });
  }
  const hasNvme = topology.nodes.some((n) => n.kind === 'nvme');
  const hasGpu = topology.nodes.some((n) => n.kind === 'gpu');
  // As tall as the rows it draws: a host without GPUs or NVMe drives (a CPU VM) kept the empty GPU
  // row's height, a panel mostly blank below two boxes. Room on the right for the last edge label.
  const bottom = hasNvme ? ROW.nvme : hasGpu ? ROW.gpu : ROW.numa;
  return { placed, width: Math.max(x, 320) + 160, height: bottom + BOX_H + (hasGpu || hasNvme ? 24 : NOTE_H) };
}

function edgeClass(edge: TopologyEdge): string {
  return `topo-edge topo-edge-${edge.kind}`;
}

export function TopologyView({ topology }: { topology: Topology }) {
  const { placed, width, height } = layoutTopology(topology);
  const gpuPairs = topology.edges.filter((e) => placed.get(e.from)?.node.kind === 'gpu' && placed.get(e.to)?.node.kind === 'gpu');
  const hostEdges = topology.edges.filter((e) => !gpuPairs.includes(e));
  // With many GPUs a full NVLink mesh is unreadable: when every pair shares one class, draw one fabric bar.
  const gpuCount = topology.nodes.filter((n) => n.kind === 'gpu').length;
  const classes = new Set(gpuPairs.map((e) => e.bandwidthClass));
  const fabric = gpuCount > 2 && gpuPairs.length >= (gpuCount * (gpuCount - 1)) / 2 && classes.size === 1 ? [...classes][0] : null;
  const gpuBoxes = [...placed.values()].filter((p) => p.node.kind === 'gpu');
  const fabricY = ROW.gpu + BOX_H + 14;

  return (
    <svg
      className="topology"
      viewBox={`0 0 ${width} ${height + (fabric ? 24 : 0)}`}
      // Natural size, shrunk to fit when narrow: stretching a small picture would blow the text up.
      style={{ width, maxWidth: '100%', height: 'auto' }}
      role="img"
      aria-label="Machine topology"
      data-testid="topology"
    >
      {hostEdges.map((edge, i) => {
        const a = placed.get(edge.from);
        const b = placed.get(edge.to);
        if (!a || !b) return null;
        const [top, bottom] = a.y < b.y ? [a, b] : [b, a];
        const x1 = top.x + top.w / 2;
        const x2 = bottom.x + bottom.w / 2;
        const y1 = top.y + BOX_H;
        const y2 = bottom.y;
        return (
          <g key={`h${i}`}>
            <line className={edgeClass(edge)} x1={x1} y1={y1} x2={x2} y2={y2} />
            <text className="topo-edge-label" x={(x1 + x2) / 2 + 4} y={(y1 + y2) / 2}>
              {edge.bandwidthClass}
            </text>
          </g>
        );
      })}
      {!fabric &&
        gpuPairs.map((edge, i) => {
          const a = placed.get(edge.from)!;
          const b = placed.get(edge.to)!;
          const x1 = a.x + a.w / 2;
          const x2 = b.x + b.w / 2;
          const y = ROW.gpu + BOX_H;
          const dip = 18 + Math.abs(x2 - x1) / 8;
          return (
            <g key={`g${i}`}>
              <path className={edgeClass(edge)} d={`M ${x1} ${y} Q ${(x1 + x2) / 2} ${y + dip} ${x2} ${y}`} fill="none" />
              <text className="topo-edge-label" x={(x1 + x2) / 2} y={y + dip / 2 + 12} textAnchor="middle">
                {edge.bandwidthClass}
              </text>
            </g>
          );
        })}
      {fabric && gpuBoxes.length > 0 && (
        <g>
          <line
            className="topo-edge topo-edge-nvlink"
            x1={Math.min(...gpuBoxes.map((g) => g.x))}
            x2={Math.max(...gpuBoxes.map((g) => g.x + g.w))}
            y1={fabricY}
            y2={fabricY}
          />
          {gpuBoxes.map((g) => (
            <line
              key={g.node.id}
              className="topo-edge topo-edge-nvlink"
              x1={g.x + g.w / 2}
              x2={g.x + g.w / 2}
              y1={ROW.gpu + BOX_H}
              y2={fabricY}
            />
          ))}
          <text className="topo-edge-label" x={Math.min(...gpuBoxes.map((g) => g.x))} y={fabricY + 16}>
            {fabric} between every GPU pair
          </text>
        </g>
      )}
      {gpuCount === 0 && !topology.nodes.some((n) => n.kind === 'nvme') && (
        <text className="topo-edge-label" x={10} y={ROW.numa + BOX_H + 26} data-testid="topology-nothing-attached">
          No GPU and no NVMe drive attached: CPU runs only.
        </text>
      )}
      {[...placed.values()].map((p) => (
        <g key={p.node.id} className={`topo-node topo-${p.node.kind}`}>
          <title>{p.node.label}</title>
          <rect x={p.x} y={p.y} width={p.w} height={BOX_H} rx={6} />
          <text x={p.x + 8} y={p.y + 18}>
            {p.node.label.length > MAX_LABEL ? `${p.node.label.slice(0, MAX_LABEL - 1)}…` : p.node.label}
          </text>
          {p.node.memoryBytes !== null && (
            <text className="topo-sub" x={p.x + 8} y={p.y + 34}>
              {formatBytes(p.node.memoryBytes)}
            </text>
          )}
        </g>
      ))}
    </svg>
  );
}
