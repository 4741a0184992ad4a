// Cluster service: stored cluster definitions, DeepSpeed hostfile + launch argument vector,
// hardware detection and pre-flight over ssh. Multi-node runs use DeepSpeed's own launcher (pdsh);
// the engine service spawns what `prepareMultiNodeLaunch` returns.
import fs from 'node:fs';
import path from 'node:path';
import { ApiError, type Cluster, type ClusterRecord, type HostDetection, type Launch, type PreflightRow } from '../../contract';
import { clusterAssumptions } from './assumptions';
import { detectHosts } from './detect';
import { buildMultiNodeLaunch, writeLaunchFiles } from './launch';
import { defaultEngineDir, ensurePrivateDir, privateClusterDir, unsafeEngineDirReason } from './private-dir';
import { preflight } from './preflight';
import { isRunnerFile } from './snippets';
import { openClusterStore } from './store';

export { buildMultiNodeLaunch, writeLaunchFiles, type MultiNodeLaunchOptions } from './launch';
export { defaultEngineDir, ensurePrivateDir, unsafeEngineDirReason } from './private-dir';
export { clusterAssumptions, DEFAULT_INTER_NODE_GBIT } from './assumptions';
export { hostfileText, sshConfigText, deepspeedEnvText } from './files';
export { HEAD } from './preflight';
export { CLUSTERS_FILE } from './store';

export interface ClusterServiceOptions {
  dataDir: string;
  /** The bundled runner folder (resources/engine) of this app. */
  bundledEngineDir: string;
  /** The head node's interpreter for a cluster (Settings' pythonPath, else the first host's). */
  headPython(cluster: Cluster): string;
}

/**
 * Where a cluster's generated files go: a private folder (ours, 0700) — `<dataDir>/clusters/<name>`,
 * or, when that path has a space (pdsh splits PDSH_SSH_ARGS on spaces), a mkdtemp folder
 * remembered in it. Never a shared, predictable temp path another user could prepare.
 */
export function clusterWorkDir(dataDir: string, name: string): string {
  return privateClusterDir(dataDir, name).workDir;
}

export function createClusterService(options: ClusterServiceOptions) {
  const store = openClusterStore(options.dataDir);

  function need(name: string): ClusterRecord {
    const record = store.get(name);
    if (!record) throw new ApiError('not_found', `No cluster named '${name}'. Save it first (cluster/save).`, 'name');
    return record;
  }

  /** Computes the launch for a stored cluster and writes its hostfile, ssh_config and env file. */
  function prepareMultiNodeLaunch(name: string, specPath: string, script?: string): Launch {
    const { cluster } = need(name);
    const { workDir, homeDir } = privateClusterDir(options.dataDir, name);
    const engineDir = cluster.engineDir ?? defaultEngineDir();
    const unsafe = unsafeEngineDirReason(engineDir);
    if (unsafe)
      throw new ApiError(
        'unsafe_path',
        `The launcher would run in ${engineDir}, but ${unsafe}: whoever can write there chooses the code that runs. Use a runner folder only you can write (the cluster's engineDir), or remove that one.`,
        'engineDir',
      );
    const launch = buildMultiNodeLaunch(cluster, specPath, {
      workDir,
      python: options.headPython(cluster),
      // Host keys stay with the cluster in the data folder (kept even when the temp folder is cleaned).
      knownHostsFile: path.join(homeDir, 'known_hosts'),
      script,
    });
    writeLaunchFiles(launch);
    return launch;
  }

  return {
    list: () => store.list(),
    get: (name: string) => need(name),
    save: (cluster: Cluster) => store.save(cluster),
    remove: (name: string) => store.remove(name),
    assumptions: (name: string) => clusterAssumptions(need(name).cluster),
    prepareMultiNodeLaunch,

    async detect(name: string): Promise<HostDetection[]> {
      const launch = prepareMultiNodeLaunch(name, '/dev/null');
      const detections = await detectHosts(need(name).cluster, {
        sshConfigPath: launch.sshConfigPath,
        bundledEngineDir: options.bundledEngineDir,
      });
      store.recordDetections(name, detections);
      return detections;
    },

    async preflight(name: string): Promise<PreflightRow[]> {
      const { cluster } = need(name);
      const launch = prepareMultiNodeLaunch(name, '/dev/null');
      return preflight(cluster, {
        sshConfigPath: launch.sshConfigPath,
        headPython: launch.file,
        bundledEngineDir: options.bundledEngineDir,
      });
    },

    /** Copies the app's runner into the cluster's engine folder on THIS machine (the launcher's cwd). */
    stageEngine(name: string): { engineDir: string; files: string[] } {
      const configured = need(name).cluster.engineDir;
      const engineDir = configured ?? defaultEngineDir();
      if (configured === undefined) ensurePrivateDir(engineDir);
      else fs.mkdirSync(engineDir, { recursive: true });
      const unsafe = unsafeEngineDirReason(engineDir);
      if (unsafe)
        throw new ApiError(
          'unsafe_path',
          `Refusing to stage the runner in ${engineDir}: ${unsafe}. Use a folder only you can write (the cluster's engineDir).`,
          'engineDir',
        );
      // Modules and the data files they read (error-signatures.json, model-families.json).
      const files = fs
        .readdirSync(options.bundledEngineDir)
        .filter((f) => isRunnerFile(f) && fs.statSync(path.join(options.bundledEngineDir, f)).isFile());
      for (const f of files) fs.copyFileSync(path.join(options.bundledEngineDir, f), path.join(engineDir, f));
      return { engineDir, files };
    },
  };
}

export type ClusterService = ReturnType<typeof createClusterService>;
export * from './slurm';
