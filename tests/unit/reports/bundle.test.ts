// The reproduction bundle, as a folder and as a .zip checked by Python's zipfile (a real reader).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReports } from '../../../electron/services/reports';
import type { HistoryStore } from '../../../electron/services/history';
import { openTempStore, seedRun, tempDir } from './fixtures';
import { planUserConfig } from '../../../electron/services/tuner';
import { h200Machine } from '../tuner/h200-machine';

let store: HistoryStore;
const out = tempDir();
let reports: ReturnType<typeof createReports>;
const ids = ['so-1', 'fsdp-1', 'multi-1'];

beforeAll(() => {
  store = openTempStore().store;
  seedRun(store, { id: 'so-1', strategy: 'superoffload', stepSeconds: 20 });
  seedRun(store, { id: 'fsdp-1', strategy: 'fsdp2-cpu-offload', engine: 'fsdp2', stepSeconds: 40, gpus: 2 });
  seedRun(store, { id: 'multi-1', strategy: 'zero2-offload', stepSeconds: 15, gpus: 4, nodes: 2 });
  reports = createReports({ getRun: (id) => store.getRun(id, 0), compare: (i, b) => store.compare(i, b), appVersion: '1.2.3' });
});
afterAll(() => store?.close());

describe('reproduction bundle of a run of your own ds_config', () => {
  it('carries your file byte for byte, the launch lines and an accelerate config', async () => {
    const text = fs.readFileSync(path.resolve(__dirname, '../../fixtures/ds-configs/deepspeed-guide-superoffload.json'), 'utf8');
    const planned = planUserConfig(
      { config: { fileName: 'guide.json', text }, workload: { model: 'tiny-llama', seqLen: 64, gpus: 2 } },
      { machine: h200Machine() },
    );
    seedRun(store, { id: 'uc-1', strategy: 'superoffload', stepSeconds: 2, gpus: 2, spec: planned.spec as never });
    const dir = path.join(out, 'repro-uc');
    await reports.export({ runIds: ['uc-1'], format: 'bundle', path: dir });
    const folder = fs.readdirSync(dir).find((f) => f.endsWith('uc-1'))!;
    const read = (name: string) => fs.readFileSync(path.join(dir, folder, name), 'utf8');
    expect(read('your_ds_config.json')).toBe(text);
    expect(read('launch.txt')).toContain('deepspeed --num_gpus 2 train.py --deepspeed ds_config.json');
    expect(read('launch.txt')).toContain('torchrun --nproc_per_node 2 train.py --deepspeed ds_config.json');
    expect(read('accelerate_config.yaml')).toMatch(/num_processes: 2/);
    expect(read('spec.json')).toContain('"userConfig"');
    const html = fs.readFileSync(
      (await reports.export({ runIds: ['uc-1'], format: 'html', path: path.join(out, 'uc.html') })).path,
      'utf8',
    );
    expect(html).toContain('Your own config: guide.json');
    expect(html).toContain('accelerate launch --config_file accelerate_config.yaml train.py');
    expect(html).toContain('Launch your training with one of these configs');
  });
});

describe('reproduction bundle', () => {
  it("writes each run's config, spec, launch script, hostfile and runner version, and a README", async () => {
    const dir = path.join(out, 'repro');
    const res = await reports.export({ runIds: ids, format: 'bundle', path: dir, includeSamples: true });
    expect(res.path).toBe(dir);
    const folders = fs
      .readdirSync(dir)
      .filter((f) => fs.statSync(path.join(dir, f)).isDirectory())
      .sort();
    expect(folders).toEqual(['01-superoffload-so-1', '02-fsdp2-cpu-offload-fsdp-1', '03-zero2-offload-multi-1']);
    const read = (...p: string[]) => fs.readFileSync(path.join(dir, ...p), 'utf8');
    const so = folders[0];
    expect(JSON.parse(read(so, 'ds_config.json')).zero_optimization.offload_optimizer.super_offload).toBe(true);
    expect(JSON.parse(read(so, 'spec.json'))).toEqual(store.getRun('so-1', 0)!.spec);
    expect(read(so, 'run.sh')).toContain('exec deepspeed --num_gpus 4 --bind_cores_to_rank "$ENGINE/bench.py" --spec spec.json');
    expect(fs.statSync(path.join(dir, so, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(read(so, 'runner-version.txt')).toContain('runner 0.3.1');
    expect(fs.existsSync(path.join(dir, so, 'hostfile'))).toBe(false);
    expect(read(so, 'samples.csv').split('\r\n')[0]).toMatch(/^run_id,strategy,step/);
    expect(read(folders[1], 'run.sh')).toContain('exec torchrun --nproc_per_node 2 "$ENGINE/bench.py" --spec spec.json');
    expect(fs.existsSync(path.join(dir, folders[1], 'ds_config.json'))).toBe(false);
    expect(read(folders[2], 'run.sh')).toContain('deepspeed --hostfile hostfile --num_nodes 2 --num_gpus 4');
    expect(read(folders[2], 'hostfile')).toBe('node-1 slots=4\nnode-2 slots=4\n');
    const readme = read('README.md');
    expect(readme).toMatch(/How to rerun/);
    expect(readme).toContain('OFFLOAD_STUDIO_ENGINE');
    // the ZeRO-3 runs' own training launch lines (the 70B seed specs are older than the RunSpec: none for them)
    expect(fs.existsSync(path.join(dir, so, 'launch.txt'))).toBe(false);
    // The script is valid bash.
    expect(spawnSync('bash', ['-n', path.join(dir, so, 'run.sh')]).status).toBe(0);
  });

  it('writes the same files into a .zip that a standard reader verifies', async () => {
    const zip = path.join(out, 'repro.zip');
    const res = await reports.export({ runIds: ids, format: 'bundle', path: zip });
    expect(fs.readFileSync(zip).subarray(0, 4).toString('hex')).toBe('504b0304');
    expect(res.bytes).toBe(fs.statSync(zip).size);
    const py = spawnSync(
      'python3',
      [
        '-c',
        `
import zipfile, sys, json
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
names = sorted(z.namelist())
print(json.dumps({"names": names, "run": z.read("repro/01-superoffload-so-1/run.sh").decode(), "mode": z.getinfo("repro/01-superoffload-so-1/run.sh").external_attr >> 16}))
`,
        zip,
      ],
      { encoding: 'utf8' },
    );
    expect(py.status, py.stderr).toBe(0);
    const result = JSON.parse(py.stdout) as { names: string[]; run: string; mode: number };
    expect(result.names).toContain('repro/README.md');
    expect(result.names).toContain('repro/03-zero2-offload-multi-1/hostfile');
    expect(result.run).toContain('--spec spec.json');
    expect(result.mode & 0o777).toBe(0o755);
  });
});
