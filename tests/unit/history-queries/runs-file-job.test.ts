// A run that ran as a Slurm job keeps its job record through a runs file: real SQLite stores in
// temp folders, the report rendered from the importing store.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SlurmJobRecord } from '../../../electron/contract';
import { openHistory, readRunsFile, writeRunsFile } from '../../../electron/services/history';
import { createReports } from '../../../electron/services/reports';
import { storeWith, tmpDir } from './helpers';

const job: SlurmJobRecord = {
  scheduler: 'slurm',
  target: 'hpc-a',
  partition: 'gpu-h100',
  jobId: '48213',
  nodes: ['gpu-node-07', 'gpu-node-08'],
  state: 'COMPLETED',
  reason: null,
  exitCode: '0:0',
  maxRssBytes: 81_000_000_000,
  runDir: '/shared/offload/runs/s1',
  scriptPath: '/shared/offload/runs/s1/job.sbatch',
};

function exportedWithJob() {
  const a = storeWith([
    { id: 's1', strategy: 'superoffload', tflops: 150 },
    { id: 'z1', strategy: 'zero3-offload', tflops: 100 },
  ]);
  a.recordJob('s1', job);
  const content = a.exportRuns();
  a.close();
  return content;
}

describe('runs files keep the Slurm job record', () => {
  it('exports the job with its run, imports it into a fresh store, and the report names the job', () => {
    const content = exportedWithJob();
    expect(content.runs.find((r) => r.run.id === 's1')?.job).toEqual(job);
    // A run of this machine carries none (its file reads as before).
    expect(content.runs.find((r) => r.run.id === 'z1')).not.toHaveProperty('job');

    const file = path.join(tmpDir(), 'runs.json');
    writeRunsFile(file, content);
    const b = openHistory(tmpDir());
    expect(b.importRuns(readRunsFile(file), { file }).imported.sort()).toEqual(['s1', 'z1']);
    expect(b.getRun('s1', 0)?.job).toEqual(job);
    expect(b.getRun('z1', 0)?.job).toBeNull();
    // export → import → export gives the same runs, the job included
    expect(b.exportRuns().runs).toEqual(content.runs);

    const reports = createReports({ getRun: (id) => b.getRun(id, 0), compare: (i, base) => b.compare(i, base) });
    const html = reports.html(['s1', 'z1']);
    const jobs = html.slice(html.indexOf('data-testid="slurm-jobs"'));
    expect(jobs).toContain('<td>s1</td><td>hpc-a</td><td>gpu-h100</td><td>48213</td><td>gpu-node-07, gpu-node-08</td><td>COMPLETED</td>');
    expect(jobs).not.toContain('<td>z1</td>');
    void reports.close();
    b.close();
  });

  it('imports a file written before runs files carried jobs as before', () => {
    const content = exportedWithJob();
    for (const r of content.runs) delete r.job;
    const b = openHistory(tmpDir());
    expect(b.importRuns(content, { file: 'old.runs.json' }).imported.sort()).toEqual(['s1', 'z1']);
    expect(b.getRun('s1', 0)?.job).toBeNull();
    b.close();
  });

  it('refuses a job record whose script is not the job.sbatch of its run folder, importing nothing', () => {
    // The report reads the script from scriptPath: an imported record must not point it at any file here.
    const content = exportedWithJob();
    const record = content.runs.find((r) => r.run.id === 's1')!;
    record.job = { ...job, scriptPath: '/home/someone/.ssh/id_ed25519' };
    const b = openHistory(tmpDir());
    expect(() => b.importRuns(content, { file: 'x.runs.json' })).toThrow(
      /runs\[\d\]\.job\.scriptPath must be the job\.sbatch of its runDir.*Nothing was imported/,
    );
    expect(b.listRuns().total).toBe(0);
    record.job = { ...job, jobId: '48213; rm -rf' };
    expect(() => b.importRuns(content, { file: 'x.runs.json' })).toThrow(/runs\[\d\]\.job\.jobId must be a Slurm job id/);
    record.job = { ...job, maxRssBytes: 1e300 };
    expect(() => b.importRuns(content, { file: 'x.runs.json' })).toThrow(/runs\[\d\]\.job\.maxRssBytes is out of range/);
    b.close();
  });

  it("never asks this machine's scheduler about an imported job (its id is another cluster's)", () => {
    const content = exportedWithJob();
    // An interrupted job run exports (it has ended); a restart settles a local one by asking Slurm.
    content.runs.find((r) => r.run.id === 's1')!.run.status = 'interrupted';
    const b = openHistory(tmpDir());
    b.importRuns(content, { file: 'x.runs.json' });
    expect(b.getRun('s1', 0)?.job?.jobId).toBe('48213');
    expect(b.unsettledJobRuns()).toEqual([]);
    b.close();
  });
});
