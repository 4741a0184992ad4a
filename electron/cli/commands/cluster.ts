// `cluster …`: define clusters from a JSON file, detect hosts, pre-flight, and show the DeepSpeed
// launch (hostfile + argument vector) a multi-node run will use.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError, writeFileAtomic } from '../../kernel';
import { readRegularText } from '../../services/files';
import type { Command } from '../command';
import { INPUT_LIMITS } from '../user-files';

const USAGE = `cluster list | save FILE.json | delete NAME | detect NAME | preflight NAME | stage NAME | launch NAME [--spec spec.json] | assumptions NAME | script NAME --spec spec.json [--export job.sbatch]
A file with "kind": "slurm" saves a Slurm target (partition, account, qos, timeLimitMinutes, nodes, gpusPerNode, pythonPath, workDir, …): docs/slurm.md.`;

const NEEDS_ARGUMENT = new Set(['save', 'delete', 'detect', 'preflight', 'stage', 'launch', 'assumptions', 'script']);

/** Whether NAME is a saved Slurm target (they share the cluster commands with ssh clusters). */
async function isSlurm(backend: Parameters<Command['run']>[0]['backend'], name: string | undefined): Promise<boolean> {
  if (name === undefined) return false;
  const { targets } = await backend.invoke('slurm/list', {});
  return targets.some((t) => t.target.name === name);
}

export const clusterCommands: Record<string, Command> = {
  cluster: {
    summary: `multi-node clusters over DeepSpeed's launcher: ${USAGE}`,
    async run({ backend, positionals, flags, json, out }) {
      const [action, arg] = positionals;
      const print = (value: unknown) => out(JSON.stringify(value, null, 2));
      // Every action but list acts on one cluster (save: on a file): say so, not the contract's "field 'name' expected string".
      if (action !== undefined && action !== 'list' && NEEDS_ARGUMENT.has(action) && arg === undefined)
        throw new UsageError(
          action === 'save'
            ? 'cluster save needs the cluster definition file: npm run cli -- cluster save FILE.json'
            : `cluster ${action} needs the cluster's name: npm run cli -- cluster ${action} NAME (names from: npm run cli -- cluster list)`,
        );
      switch (action) {
        case 'list': {
          const { clusters } = await backend.invoke('cluster/list', {});
          const { targets } = await backend.invoke('slurm/list', {});
          if (json) return (print([...clusters, ...targets]), 0);
          if (clusters.length === 0 && targets.length === 0) out('No clusters. Define one in a JSON file and run: cluster save FILE.json');
          for (const r of targets)
            out(
              `${r.target.name}: Slurm partition ${r.target.partition}${r.target.account ? `, account ${r.target.account}` : ''}, ${r.target.nodes} node(s) × ${r.target.gpusPerNode} GPU(s), ${r.target.timeLimitMinutes} min, work folder ${r.target.workDir}`,
            );
          for (const r of clusters)
            out(
              `${r.cluster.name}: ${r.cluster.hosts.map((h) => `${h.host} slots=${h.slots}`).join(', ')} (master ${r.cluster.masterAddr}:${r.cluster.masterPort})`,
            );
          return 0;
        }
        case 'save': {
          if (!arg) return (out(USAGE), 2);
          const file = path.resolve(arg);
          const text = readRegularText(file, { label: 'cluster save', maxBytes: INPUT_LIMITS.cluster, field: 'file' });
          let definition: unknown;
          try {
            definition = JSON.parse(text);
          } catch (error) {
            throw Object.assign(
              new UsageError(`cluster save ${file}: not JSON (${(error as Error).message}); give a cluster definition file`),
              { field: 'file' },
            );
          }
          if ((definition as { kind?: unknown } | null)?.kind === 'slurm') {
            const saved = await backend.invoke('slurm/save', definition);
            if (json) return (print(saved), 0);
            out(`saved Slurm target '${saved.target.name}' (partition ${saved.target.partition}, ${saved.target.nodes} node(s))`);
            return 0;
          }
          const record = await backend.invoke('cluster/save', definition);
          if (json) return (print(record), 0);
          out(`saved cluster '${record.cluster.name}' (${record.cluster.hosts.length} host(s))`);
          return 0;
        }
        case 'delete': {
          const { deleted } = await backend.invoke((await isSlurm(backend, arg)) ? 'slurm/delete' : 'cluster/delete', { name: arg });
          out(deleted ? `deleted '${arg}'` : `no cluster '${arg}'`);
          return deleted ? 0 : 1;
        }
        case 'detect': {
          if (await isSlurm(backend, arg)) {
            const shape = await backend.invoke('slurm/detect', { name: arg });
            if (json) return (print(shape), 0);
            out(
              `partition ${shape.partition}: ${shape.nodes.length} node(s) (${shape.nodes.join(', ')}), per node ${shape.cpus ?? '?'} CPUs, ${shape.memBytes === null ? '?' : `${Math.round(shape.memBytes / 2 ** 30)} GiB`} memory, ${shape.gpus} GPU(s)${shape.gpuType ? ` (${shape.gpuType})` : ''}${shape.maxTime ? `, max time ${shape.maxTime}` : ''}`,
            );
            return 0;
          }
          const { hosts } = await backend.invoke('cluster/detect', { name: arg });
          if (json) return (print(hosts), 0);
          for (const h of hosts) out(`${h.ok ? 'ok  ' : 'FAIL'} ${h.host.padEnd(20)} ${h.detail}`);
          return hosts.every((h) => h.ok) ? 0 : 1;
        }
        case 'preflight': {
          if (await isSlurm(backend, arg)) {
            const result = await backend.invoke('slurm/preflight', { name: arg });
            if (json) return (print(result), result.ok ? 0 : 1);
            for (const r of result.rows) {
              out(`${r.ok ? 'ok  ' : 'FAIL'} ${r.check.padEnd(10)} ${r.detail}`);
              if (r.fix) out(`     fix: ${r.fix}`);
            }
            return result.ok ? 0 : 1;
          }
          const result = await backend.invoke('cluster/preflight', { name: arg });
          if (json) return (print(result), result.ok ? 0 : 1);
          for (const r of result.rows) {
            out(`${r.ok ? 'ok  ' : 'FAIL'} ${r.host.padEnd(18)} ${r.check.padEnd(10)} ${r.detail}`);
            if (r.fix) out(`     fix: ${r.fix}`);
          }
          return result.ok ? 0 : 1;
        }
        case 'launch': {
          const spec = typeof flags.spec === 'string' ? path.resolve(flags.spec) : undefined;
          const launch = await backend.invoke('cluster/launch-preview', { name: arg, specPath: spec });
          if (json) return (print(launch), 0);
          out(`# hostfile (${launch.hostfilePath})\n${launch.hostfileText}`);
          out(
            `# environment\n${Object.entries(launch.env)
              .map(([k, v]) => `${k}='${v}'`)
              .join(' ')}`,
          );
          out(`# command (cwd ${launch.cwd})\n${[launch.file, ...launch.args].join(' ')}`);
          return 0;
        }
        case 'stage': {
          const staged = await backend.invoke('cluster/stage', { name: arg });
          if (json) return (print(staged), 0);
          out(`staged the runner (${staged.files.length} file(s)) in ${staged.engineDir}`);
          return 0;
        }
        case 'script': {
          if (typeof flags.spec !== 'string')
            throw new UsageError(`cluster script needs --spec spec.json (plan --write-specs DIR writes them)\n${USAGE}`);
          const specFile = path.resolve(flags.spec);
          const spec = JSON.parse(
            readRegularText(specFile, { label: 'cluster script', maxBytes: INPUT_LIMITS.cluster, field: 'spec' }),
          ) as unknown;
          const { script } = await backend.invoke('slurm/script', { name: arg, spec });
          if (typeof flags.export === 'string') {
            const target = path.resolve(flags.export);
            if (fs.existsSync(target) && flags.overwrite !== true)
              throw Object.assign(
                new UsageError(`cluster script --export ${target}: the file exists; give another name or add --overwrite`),
                { field: 'export' },
              );
            writeFileAtomic(target, script);
            out(`wrote ${target}`);
            return 0;
          }
          out(script);
          return 0;
        }
        case 'assumptions': {
          const a = await backend.invoke('cluster/assumptions', { name: arg });
          print(a);
          return 0;
        }
        default:
          out(USAGE);
          return 2;
      }
    },
  },
};
