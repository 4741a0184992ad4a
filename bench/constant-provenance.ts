// Where the tuner's hand-set constants came from: each constant that was read off (or chosen while looking at)
// stored runs, with the resources/samples files and model shapes it saw. The tuner benches split every error
// figure by it: a run none of the figure's constants saw is a TEST run; the rest make a VALIDATION figure.
// Issue 46: "Constants read off runs are listed with the runs they came from, and those runs are excluded from
// the test figure or the figure is labelled validation." docs/tuner-model.md prints this table (bench/tuner-doc.ts).
//
// A constant read off a kernel probe at some workloads' shapes (not off their step times) lists those models:
// the probe saw their kernels, so their runs are not a test of it.

/** The figure family a constant moves. */
export type Affects = 'step-time' | 'gpu-memory' | 'gpu-verdict' | 'host-memory';

export interface Provenance {
  constant: string;
  /** The source file that holds it. */
  where: string;
  affects: Affects;
  /** resources/samples/*.runs.json files whose runs it was read off or chosen with in view. */
  files: string[];
  /** Models (preset ids) whose shapes it was read at (a kernel probe), every run of them counted. */
  models?: string[];
  how: string;
}

/** The H200 runs stored when calibrate.ts PRIOR_TERM_FLOOR was chosen (ec4603e, 2026-12-04: 57 runs). */
const H200_BY_DEC_4 = [
  'h200-llama-3.2-3b.runs.json',
  'h200-llama-3.2-3b-tuned.runs.json',
  'h200-llama-3.2-3b-cores.runs.json',
  'h200-llama-3.2-3b-tune.runs.json',
  'h200-llama-3.2-3b-repeats.runs.json',
  'h200-llama-3.2-3b-repeats2.runs.json',
  'h200-llama-3.1-8b.runs.json',
  'h200-llama-3.1-8b-tune.runs.json',
  'h200-boundary.runs.json',
  'h200-boundary-tune.runs.json',
  'h200-user-config.runs.json',
];
/** The probe's single-kernel timings were at these workloads' shapes (resources/samples/h200-step-phases-probe). */
const PROBED_MODELS = ['llama-3.1-8b', 'llama-3.2-3b', 'llama-3.2-1b'];

export const PROVENANCE: Provenance[] = [
  {
    constant: 'matmulEfficiency 0.9, attentionEfficiency 0.5',
    where: 'model/throughput-constants.ts',
    affects: 'step-time',
    files: [],
    models: PROBED_MODELS,
    how: 'single-kernel timings of the H200 phase probe at the shapes of Llama-3.1-8B s4096, 3.2-3B s2048, 3.2-1B s16384',
  },
  {
    constant: 'zero3ParamPassSeconds 11.8 ps',
    where: 'model/throughput-constants.ts',
    affects: 'step-time',
    files: ['h200-llama-3.2-3b-tuned.runs.json'],
    models: ['llama-3.2-1b', 'llama-3.1-8b'],
    how: "the tuned sweep's ratio → 0 intercept (ZeRO-3 offload, Llama-3.2-3B micro 8); the probe's ZeRO-3 passes of 1B and 8B",
  },
  {
    constant: 'subGroupSeconds, the transfer overlaps',
    where: 'model/throughput-constants.ts, mechanisms/',
    affects: 'step-time',
    files: ['h200-llama-3.2-3b.runs.json', 'h200-llama-3.2-3b-tuned.runs.json'],
    how: 'chosen on the Llama-3.2-3B seq 2048 sweeps',
  },
  {
    constant: 'PRIOR_TERM_FLOOR 0.5',
    where: 'model/calibrate.ts',
    affects: 'step-time',
    files: H200_BY_DEC_4,
    how: 'chosen with the leave-one-workload-out error over the 57 runs then stored in view (0.25 → 15.6%, 0.5 → 14.0%)',
  },
  {
    constant: 'logitBytes 12',
    where: 'model/memory-constants.ts',
    affects: 'gpu-memory',
    files: ['h200-boundary.runs.json'],
    how: "issue 25's H200 probes moved 12.0 (Llama-3.2-1B s16384) and 12.3 B (Llama-3.1-8B s4096) per element per added sample",
  },
  {
    constant: 'the GPU phases (memory.ts: what each phase holds; the ZeRO-1/2 flatten copy)',
    where: 'model/memory.ts, mechanisms/',
    affects: 'gpu-memory',
    files: [...H200_BY_DEC_4, 'h100-boundary.runs.json'],
    how: 'chosen with the H200 runs in view; the flatten copy after a ZeRO-2 Llama-3.2-3B micro 4 run on the H200 and an H100 (999445a)',
  },
  {
    constant: 'allocatorBlockSoftShare 0.5',
    where: 'model/memory-constants.ts',
    affects: 'gpu-verdict',
    files: ['h200-boundary.runs.json', 'h100-boundary.runs.json'],
    how: 'Llama-3.1-8B s4096 micro 2 (H200) kept 0.50 of its block, Llama-3.2-3B s2048 micro 7 (H100) 0.60; ZeRO-1 micro 9 (H100) ran out',
  },
  {
    constant: 'UNSEEN_KIND_BAND',
    where: 'model/memory-evidence.ts',
    affects: 'gpu-verdict',
    files: [],
    models: ['llama-3.2-1b', 'llama-3.2-3b', 'llama-3.1-8b', 'llama-2-13b'],
    how: "the worst GPU peak error over every stored run but Phi-3-mini's (tests/unit/tuner/unseen-model.test.ts holds it to them)",
  },
  {
    constant: 'hostAdamWorkerBytes 0.5 GiB, superOffloadHostBytesPerCpuParam 4',
    where: 'model/memory-constants.ts',
    affects: 'host-memory',
    files: [...H200_BY_DEC_4, 'h200-heldout.runs.json', 'h200-heldout-probes.runs.json'],
    how: "chosen with the H200 SuperOffload runs in view (2f72a73: 'was 2 GiB, 4–27% over every SuperOffload run')",
  },
  {
    constant: 'zero3HostBytesPerCpuParam 16, zero3HostBytesPerParam 3.5, fsdpHostBytesPerParam 20, hostProcessBytes 2 GiB',
    where: 'model/memory-constants.ts',
    affects: 'host-memory',
    files: ['h200-llama-3.2-3b.runs.json', 'h200-llama-3.2-3b-tuned.runs.json'],
    how: "read off the first sample and the tuned sweep's host peaks",
  },
];

/** The constants of these families that saw a run of `file` and `model`: none → the run is a test run for them. */
export function sawRun(families: Affects[], file: string | undefined, model: string): Provenance[] {
  return PROVENANCE.filter(
    (p) => families.includes(p.affects) && ((file !== undefined && p.files.includes(file)) || (p.models ?? []).includes(model)),
  );
}

/** "test" where no constant of these families saw the run, else "validation". */
export const runRole = (families: Affects[], file: string | undefined, model: string): 'test' | 'validation' =>
  sawRun(families, file, model).length ? 'validation' : 'test';

/** The table as markdown rows (docs/tuner-model.md, generated by bench/tuner-doc.ts). */
export function provenanceTable(): string {
  const rows = PROVENANCE.map(
    (p) =>
      `| ${p.constant} | ${p.where} | ${p.affects} | ${[...p.files.map((f) => f.replace(/\.runs\.json$/, '')), ...(p.models ?? []).map((m) => `every ${m} run`)].join(', ')} | ${p.how} |`,
  );
  return ['| constant | in | moves | runs it saw (resources/samples) | how |', '|---|---|---|---|---|', ...rows].join('\n');
}
