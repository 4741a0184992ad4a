// Test-only "hosts": network namespaces joined by one veth pair, each running its own sshd, on
// addresses in 127.0.0.0/8. Inside a namespace 127/8 normally belongs to `lo`; we shrink lo to
// 127.0.0.1/32 and enable route_localnet (per-namespace sysctls), so 127.0.9.x can live on the
// veth ends. Nothing touches the host's own network; everything is removed by `destroy()`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface NetnsHost {
  ns: string;
  address: string;
  sshPort: number;
}

export interface NetnsLab {
  dir: string; // throwaway folder: keys, sshd configs, logs
  identityFile: string;
  hosts: NetnsHost[];
  ifname: string; // the veth's name inside every namespace
  /** argv prefix that runs a command inside a host's namespace. */
  inNs(host: NetnsHost): string[];
  destroy(): void;
}

/** Why the lab cannot run here, or null when it can. */
export function netnsUnavailable(): string | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'needs root (ip netns, sshd)';
  for (const [bin, args] of [
    ['ip', ['netns', 'list']],
    ['/usr/sbin/sshd', ['-V']],
    ['ssh-keygen', ['-?']],
    ['pdsh', ['-V']],
  ] as const) {
    const r = spawnSync(bin, args, { stdio: 'ignore' });
    if (r.error) return `${bin} is not installed (apt-get install iproute2 openssh-server openssh-client pdsh)`;
  }
  const probe = `osp${process.pid % 100000}`;
  const r = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (r.status !== 0) return `ip netns add is not permitted here: ${r.stderr.trim()}`;
  spawnSync('ip', ['netns', 'del', probe]);
  return null;
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.stdout}`);
}

async function waitForPort(lab: NetnsLab, host: NetnsHost, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = spawnSync(lab.inNs(host)[0], [...lab.inNs(host).slice(1), 'bash', '-c', `exec 3<>/dev/tcp/${host.address}/${host.sshPort}`], {
      stdio: 'ignore',
    });
    if (r.status === 0) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`sshd on ${host.address}:${host.sshPort} did not start`);
}

export async function createNetnsLab(count = 2): Promise<NetnsLab> {
  const tag = `os${process.pid % 100000}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offload-netns-'));
  const ifname = 'eth9';
  const hosts: NetnsHost[] = Array.from({ length: count }, (_, i) => ({
    ns: `${tag}-h${i + 1}`,
    address: `127.0.9.${i + 1}`,
    sshPort: 2222,
  }));
  const sshds: ChildProcess[] = [];
  const lab: NetnsLab = {
    dir,
    identityFile: path.join(dir, 'id_ed25519'),
    hosts,
    ifname,
    inNs: (h) => ['ip', 'netns', 'exec', h.ns],
    destroy() {
      for (const p of sshds) if (p.exitCode === null) p.kill('SIGKILL');
      for (const h of hosts) {
        // Whatever still runs inside our namespaces (ranks, sshd children) was started by this test.
        const pids = spawnSync('ip', ['netns', 'pids', h.ns], { encoding: 'utf8' }).stdout?.split(/\s+/).filter(Boolean) ?? [];
        for (const pid of pids) {
          try {
            process.kill(Number(pid), 'SIGKILL');
          } catch {
            // already gone
          }
        }
        spawnSync('ip', ['netns', 'del', h.ns]);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    fs.mkdirSync('/run/sshd', { recursive: true }); // sshd's privilege-separation directory
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'offload-studio-netns-test', '-f', lab.identityFile]);
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'host_key')]);
    fs.copyFileSync(lab.identityFile + '.pub', path.join(dir, 'authorized_keys'));
    for (const h of hosts) run('ip', ['netns', 'add', h.ns]);
    // A point-to-point veth for two hosts; a bridge in a third namespace would be needed for more.
    if (count !== 2) throw new Error('the lab supports exactly 2 hosts');
    run('ip', ['link', 'add', `${tag}a`, 'type', 'veth', 'peer', 'name', `${tag}b`]);
    run('ip', ['link', 'set', `${tag}a`, 'netns', hosts[0].ns]);
    run('ip', ['link', 'set', `${tag}b`, 'netns', hosts[1].ns]);
    hosts.forEach((h, i) => {
      const ns = ['netns', 'exec', h.ns];
      run('ip', [...ns, 'ip', 'link', 'set', `${tag}${i === 0 ? 'a' : 'b'}`, 'name', ifname]);
      run('ip', ['-n', h.ns, 'link', 'set', 'lo', 'up']);
      run('ip', ['-n', h.ns, 'addr', 'del', '127.0.0.1/8', 'dev', 'lo']);
      run('ip', ['-n', h.ns, 'addr', 'add', '127.0.0.1/32', 'dev', 'lo']);
      run('ip', [...ns, 'sysctl', '-qw', 'net.ipv4.conf.all.route_localnet=1', `net.ipv4.conf.${ifname}.route_localnet=1`]);
      run('ip', ['-n', h.ns, 'addr', 'add', `${h.address}/24`, 'dev', ifname]);
      run('ip', ['-n', h.ns, 'link', 'set', ifname, 'up']);
      const config = path.join(dir, `sshd_${i + 1}.conf`);
      fs.writeFileSync(
        config,
        [
          `ListenAddress ${h.address}`,
          `Port ${h.sshPort}`,
          `HostKey ${path.join(dir, 'host_key')}`,
          `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
          `PidFile ${path.join(dir, `sshd_${i + 1}.pid`)}`,
          'PermitRootLogin prohibit-password',
          'PasswordAuthentication no',
          'KbdInteractiveAuthentication no',
          'UsePAM no',
          'StrictModes no', // the throwaway key lives in a temp folder
          'AcceptEnv *',
          'PermitUserEnvironment no',
          '',
        ].join('\n'),
      );
      const sshd = spawn('ip', [...ns, '/usr/sbin/sshd', '-D', '-e', '-f', config], {
        stdio: ['ignore', 'ignore', fs.openSync(path.join(dir, `sshd_${i + 1}.log`), 'w')],
      });
      sshds.push(sshd);
    });
    for (const h of hosts) await waitForPort(lab, h, 10_000);
    return lab;
  } catch (error) {
    lab.destroy();
    throw error;
  }
}
