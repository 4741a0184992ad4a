// A partition's node shape from Slurm itself: `scontrol show partition` names its nodes,
// `scontrol show node` gives each one's CPUs, memory, GPUs (gres) and features. The plan is for
// the smallest node of the partition (a job may land on any of them).
import { ApiError, type SlurmNodeShape, type SlurmTarget } from '../../../contract';
import { slurmMessage, type SlurmRunner } from './commands';
import { expandNodeList, parseGres, parseScontrolRecords } from './parse';

export async function detectPartition(run: SlurmRunner, target: SlurmTarget): Promise<SlurmNodeShape> {
  const part = await run('scontrol', ['-o', 'show', 'partition', target.partition]);
  if (part.code !== 0 || !part.stdout.includes('PartitionName='))
    throw new ApiError(
      part.missing ? 'not_found' : 'bad_request',
      part.missing
        ? 'scontrol is not installed here: run the app on a login node of the cluster (where sbatch works).'
        : `Slurm does not know partition '${target.partition}': ${slurmMessage(part)}. Partitions here: sinfo -s.`,
      'partition',
    );
  const partition = parseScontrolRecords(part.stdout)[0];
  const names = expandNodeList(partition.Nodes);
  const nodes = await run('scontrol', ['-o', 'show', 'node', partition.Nodes ?? '']);
  if (nodes.code !== 0) throw new ApiError('bad_request', `scontrol show node failed: ${slurmMessage(nodes)}`, 'partition');
  const records = parseScontrolRecords(nodes.stdout).filter((r) => names.length === 0 || names.includes(r.NodeName));
  return shapeOf(target.partition, partition.MaxTime ?? null, records);
}

/** Pure: the node records of a partition → the smallest node's shape. */
export function shapeOf(partition: string, maxTime: string | null, records: Record<string, string>[]): SlurmNodeShape {
  const min = (values: number[]) => (values.length ? Math.min(...values) : null);
  const gres = records.map((r) => parseGres(r.Gres));
  const features = records.map((r) => (r.AvailableFeatures && r.AvailableFeatures !== '(null)' ? r.AvailableFeatures.split(',') : []));
  return {
    partition,
    nodes: records.map((r) => r.NodeName),
    states: records.map((r) => r.State ?? 'UNKNOWN'),
    cpus: min(records.map((r) => Number(r.CPUTot)).filter(Number.isFinite)),
    // RealMemory is in MiB.
    memBytes: (() => {
      const m = min(records.map((r) => Number(r.RealMemory)).filter(Number.isFinite));
      return m === null ? null : m * 2 ** 20;
    })(),
    gpus: min(gres.map((g) => g.gpus)) ?? 0,
    gpuType: gres.find((g) => g.gpuType)?.gpuType ?? null,
    // Features every node has.
    features: features.length ? features[0].filter((f) => features.every((list) => list.includes(f))) : [],
    maxTime: maxTime === 'UNLIMITED' ? null : maxTime,
  };
}
