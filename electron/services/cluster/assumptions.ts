// What a multi-node plan must assume about the cluster, for the tuner: node count, ranks per node,
// and the inter-node bandwidth that ZeRO's cross-node gradient reduce-scatter / parameter
// all-gather traffic sees (it is far below NVLink and usually the bottleneck across nodes).
import type { Cluster, ClusterAssumptions } from '../../contract';

// With no configured figure: 25 Gbit/s Ethernet per node, a common floor for a lab cluster.
// Deliberately pessimistic so a plan does not promise multi-node speed-ups it cannot show.
export const DEFAULT_INTER_NODE_GBIT = 25;

export function clusterAssumptions(cluster: Cluster): ClusterAssumptions {
  const configured = cluster.interconnect?.gbitPerSecond ?? null;
  const gbit = configured ?? DEFAULT_INTER_NODE_GBIT;
  const slots = cluster.hosts.map((h) => h.slots);
  return {
    nodes: cluster.hosts.length,
    slotsPerNode: slots,
    totalRanks: slots.reduce((a, b) => a + b, 0),
    interNodeBytesPerSecond: (gbit * 1e9) / 8,
    interNodeSource: configured === null ? 'default' : 'configured',
    interconnect: cluster.interconnect?.kind ?? 'unknown',
    note:
      configured === null
        ? `inter-node bandwidth not configured: assuming ${DEFAULT_INTER_NODE_GBIT} Gbit/s per node`
        : `${cluster.interconnect?.kind ?? 'network'} at ${configured} Gbit/s per node (configured)`,
  };
}
