// The cluster's files and DeepSpeed launch argument vector, and the strict patterns that keep
// user text away from ssh options and the remote shell line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClusterSchema, type Cluster } from '../../../electron/contract';
import {
  buildMultiNodeLaunch,
  clusterAssumptions,
  createClusterService,
  DEFAULT_INTER_NODE_GBIT,
  clusterWorkDir,
  defaultEngineDir,
} from '../../../electron/services/cluster';

const cluster: Cluster = ClusterSchema.parse({
  name: 'gh200-pair',
  hosts: [
    { host: 'gh-a', slots: 4, sshUser: 'ml', sshPort: 2200, pythonPath: '/opt/venv/bin/python' },
    { host: 'gh-b', slots: 4, sshUser: 'ml', sshPort: 2200, pythonPath: '/opt/venv/bin/python' },
  ],
  masterAddr: 'gh-a',
  masterPort: 29500,
  identityFile: '/home/ml/.ssh/id_ed25519',
  env: { NCCL_SOCKET_IFNAME: 'eth0' },
});
const opts = { workDir: '/w', python: '/opt/venv/bin/python', knownHostsFile: '/w/known_hosts' };

describe('buildMultiNodeLaunch', () => {
  it("builds DeepSpeed's runner argument vector with the pdsh launcher", () => {
    const l = buildMultiNodeLaunch(cluster, '/runs/1/spec.json', opts);
    expect(l.file).toBe('/opt/venv/bin/python');
    expect(l.args).toEqual([
      '-u',
      '-m',
      'deepspeed.launcher.runner',
      '--hostfile',
      '/w/hostfile',
      '--num_nodes',
      '2',
      '--num_gpus',
      '4',
      '--master_addr',
      'gh-a',
      '--master_port',
      '29500',
      '--ssh_port',
      '2200',
      '--launcher',
      'pdsh',
      '--no_ssh_check',
      path.join(defaultEngineDir(), 'bench.py'),
      '--spec',
      '/runs/1/spec.json',
    ]);
    expect(l.hostfileText).toBe('gh-a slots=4\ngh-b slots=4\n');
    expect(l.env.PDSH_SSH_ARGS).toBe('-a -x -F /w/ssh_config %h');
    expect(l.env.DS_ENV_FILE).toBe('/w/deepspeed_env');
    expect(l.envFileText).toBe('NCCL_SOCKET_IFNAME=eth0\n');
    expect(l.sshConfigText).toContain('Host gh-b\n  HostName gh-b\n  Port 2200\n  User ml\n  IdentityFile /home/ml/.ssh/id_ed25519');
  });

  it('omits --num_gpus for uneven slots and --ssh_port for per-host ports (ssh_config carries them)', () => {
    const uneven = { ...cluster, hosts: [cluster.hosts[0], { ...cluster.hosts[1], slots: 2, sshPort: 22 }] };
    const l = buildMultiNodeLaunch(uneven, '/s.json', opts);
    expect(l.args).not.toContain('--num_gpus');
    expect(l.args).not.toContain('--ssh_port');
    expect(l.hostfileText).toBe('gh-a slots=4\ngh-b slots=2\n');
  });
});

describe('cluster validation', () => {
  const bad = (patch: object) => ClusterSchema.safeParse({ ...cluster, ...patch });
  it.each([
    ['host', { hosts: [{ ...cluster.hosts[0], host: '-oProxyCommand=x' }] }],
    ['host', { hosts: [{ ...cluster.hosts[0], host: 'a b' }] }],
    ['sshUser', { hosts: [{ ...cluster.hosts[0], sshUser: 'root;rm' }] }],
    ['pythonPath', { hosts: [{ ...cluster.hosts[0], pythonPath: '/opt/my venv/python' }] }],
    ['pythonPath', { hosts: [{ ...cluster.hosts[0], pythonPath: 'python3' }] }],
    ['host', { hosts: [cluster.hosts[0], cluster.hosts[0]] }],
    ['env', { env: { NCCL_SOCKET_IFNAME: 'eth0; reboot' } }],
  ])('refuses a bad %s', (field, patch) => {
    const r = bad(patch);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].path).toContain(field);
  });
});

describe('cluster store and assumptions', () => {
  it('stores clusters in clusters.json atomically and keeps a working dir without spaces', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'offload cluster '));
    const service = createClusterService({ dataDir, bundledEngineDir: '/nonexistent', headPython: () => '/opt/venv/bin/python' });
    service.save(cluster);
    expect(service.list().map((r) => r.cluster.name)).toEqual(['gh200-pair']);
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'clusters.json'), 'utf8')).version).toBe(1);
    const launch = service.prepareMultiNodeLaunch('gh200-pair', '/s.json');
    expect(launch.sshConfigPath).not.toMatch(/\s/); // pdsh splits PDSH_SSH_ARGS on spaces
    expect(clusterWorkDir(dataDir, 'x')).not.toContain(dataDir);
    expect(fs.readFileSync(launch.hostfilePath, 'utf8')).toBe('gh-a slots=4\ngh-b slots=4\n');
    expect(service.remove('gh200-pair')).toBe(true);
    expect(service.list()).toEqual([]);
  });

  it('exports node count and inter-node bandwidth for the tuner', () => {
    expect(clusterAssumptions(cluster)).toMatchObject({
      nodes: 2,
      totalRanks: 8,
      interNodeSource: 'default',
      interNodeBytesPerSecond: (DEFAULT_INTER_NODE_GBIT * 1e9) / 8,
    });
    const ib = clusterAssumptions({ ...cluster, interconnect: { kind: 'infiniband', gbitPerSecond: 400 } });
    expect(ib).toMatchObject({ interNodeBytesPerSecond: 50e9, interNodeSource: 'configured', interconnect: 'infiniband' });
  });
});
