// The topology picture's layout on real machines: GPUs sit under the NUMA node they hang off,
// NUMA nodes inside their socket, and nothing overlaps.
import { describe, expect, it } from 'vitest';
import { buildMachine } from '../../../electron/services/hardware';
import { layoutTopology } from '../../../renderer/src/components/TopologyView';
import { loadHost } from '../hardware/fixture-host';

describe('topology layout', () => {
  it('places the H200 under NUMA node 0, inside the socket', () => {
    const machine = buildMachine(loadHost('h200-sxm-x86'));
    const { placed } = layoutTopology(machine.topology);
    const gpu = [...placed.values()].find((p) => p.node.kind === 'gpu')!;
    const numa = placed.get(gpu.node.parent!)!;
    expect(numa.node.kind).toBe('numa');
    expect(gpu.y).toBeGreaterThan(numa.y);
    expect(gpu.x + gpu.w / 2).toBeGreaterThanOrEqual(numa.x);
    expect(gpu.x + gpu.w / 2).toBeLessThanOrEqual(numa.x + numa.w);
    const socket = placed.get(numa.node.parent!)!;
    expect(socket.x).toBeLessThanOrEqual(numa.x);
    expect(socket.x + socket.w).toBeGreaterThanOrEqual(numa.x + numa.w);
  });

  it('lays out a machine without GPUs (this CI VM) without overlaps', () => {
    const machine = buildMachine(loadHost('ci-vm-no-gpu'));
    const { placed, width } = layoutTopology(machine.topology);
    const boxes = [...placed.values()];
    expect(boxes.length).toBeGreaterThan(0);
    for (const a of boxes) for (const b of boxes) if (a !== b && a.y === b.y) expect(a.x + a.w <= b.x || b.x + b.w <= a.x).toBe(true);
    expect(Math.max(...boxes.map((b) => b.x + b.w))).toBeLessThanOrEqual(width);
  });
});
