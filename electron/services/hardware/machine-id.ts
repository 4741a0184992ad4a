// A stable id per machine so history can group runs: hostname + CPU model + sorted GPU UUIDs.
// Not a secret and not a fingerprint beyond what a report already shows.
import { createHash } from 'node:crypto';

export function machineId(hostname: string, cpuModel: string, gpuUuids: (string | null)[]): string {
  const uuids = gpuUuids.filter((u): u is string => !!u).sort();
  return createHash('sha256')
    .update([hostname, cpuModel, ...uuids].join('\n'))
    .digest('hex')
    .slice(0, 16);
}
