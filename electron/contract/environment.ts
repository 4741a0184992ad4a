// The Python engine environment: interpreter candidates, what the bundled probe found in each,
// what is missing (with the command that fixes it), selection, and the managed install.
import { z } from 'zod';
import { Empty } from './common';

export const MissingPieceSchema = z.object({
  id: z.string(), // 'python-version' | 'torch' | 'deepspeed' | 'cpu-adam' | 'cxx' | 'ninja' | 'libaio' | 'async-io' | ...
  severity: z.enum(['required', 'optional']), // required: the engine cannot run its core strategies
  what: z.string(),
  fix: z.string(), // a command or a concrete step
});

export const TorchDeviceSchema = z.object({
  index: z.number().int(),
  name: z.string(),
  memoryBytes: z.number(),
  capability: z.string(),
});

export const OpStatusSchema = z.object({
  compatible: z.boolean(), // op_builder ...Builder().is_compatible(): can be JIT-built here
  prebuilt: z.boolean().nullable(), // compiled into the wheel (DS_BUILD_*)
  error: z.string().nullable(),
});

export const InterpreterProbeSchema = z.object({
  path: z.string(), // the interpreter asked about
  ok: z.boolean(), // the probe ran and printed its JSON line
  error: z.string().nullable(), // why not (missing file, timeout, too old, crashed)
  versionText: z.string().nullable(), // `python --version` output
  pythonVersion: z.string().nullable(),
  executable: z.string().nullable(),
  prefix: z.string().nullable(),
  isVenv: z.boolean().nullable(),
  /** PEP 668: the OS manages this interpreter and pip refuses to install into it (null: unknown). Absent in answers kept from before. */
  externallyManaged: z.boolean().nullable().optional(),
  torch: z
    .object({
      version: z.string(),
      cuda: z.string().nullable(), // torch.version.cuda: null = CPU-only build
      cudaAvailable: z.boolean(),
      devices: z.array(TorchDeviceSchema),
      error: z.string().nullable(),
    })
    .nullable(),
  deepspeed: z
    .object({
      version: z.string(),
      error: z.string().nullable(),
      accelerator: z.string().nullable(),
      cpuAdam: OpStatusSchema,
      asyncIo: OpStatusSchema,
    })
    .nullable(),
  transformers: z.string().nullable(),
  build: z.object({ ninja: z.string().nullable(), cxx: z.string().nullable(), libaio: z.string().nullable() }),
  missing: z.array(MissingPieceSchema),
  ready: z.boolean(), // no required piece missing
  probeMs: z.number(),
});

export const CandidateSourceSchema = z.enum(['selected', 'app-venv', 'app-cache-venv', 'virtualenv', 'conda', 'pyenv', 'path', 'user']);

export const InterpreterCandidateSchema = z.object({
  path: z.string(),
  sources: z.array(CandidateSourceSchema), // where it was found (one file can be found several ways)
  probe: InterpreterProbeSchema.nullable(), // null when the list was asked without probing
});

export const InstallProgressSchema = z.object({
  phase: z.enum(['prepare', 'venv', 'collecting', 'downloading', 'installing', 'verifying', 'swapping', 'done', 'failed', 'cancelled']),
  message: z.string(),
  fraction: z.number().min(0).max(1).nullable(), // null: no honest estimate (pip gives none for most steps)
  elapsedMs: z.number(),
});

export const InstallResultSchema = z.object({
  ok: z.boolean(),
  phase: z.enum(['done', 'failed', 'cancelled']),
  message: z.string(),
  venvPath: z.string(), // <dataDir>/engine-venv (unchanged after a failure or cancel)
  python: z.string().nullable(), // its interpreter when it exists
  requirements: z.array(z.string()),
  log: z.array(z.string()), // the last lines of pip's output, for the failure dialog
});

export type MissingPiece = z.infer<typeof MissingPieceSchema>;
export type InterpreterProbe = z.infer<typeof InterpreterProbeSchema>;
export type CandidateSource = z.infer<typeof CandidateSourceSchema>;
export type InterpreterCandidate = z.infer<typeof InterpreterCandidateSchema>;
export type InstallProgress = z.infer<typeof InstallProgressSchema>;
export type InstallResult = z.infer<typeof InstallResultSchema>;

const PathRequest = z.object({ path: z.string().min(1).max(4096) }).strict();

export const environmentRequests = {
  // Every interpreter found, each probed (in parallel) unless probe is false.
  // Answers are kept between visits while an interpreter's files are unchanged; fresh probes anew
  // (Setup's Re-check); checkedAt: when the oldest answer shown was probed.
  'environment/list': {
    request: z
      .object({
        probe: z.boolean().optional(),
        extraPaths: z.array(z.string().min(1).max(4096)).max(16).optional(),
        fresh: z.boolean().optional(),
      })
      .strict(),
    response: z.object({
      candidates: z.array(InterpreterCandidateSchema),
      selected: z.string().nullable(),
      checkedAt: z.string().optional(),
    }),
  },
  'environment/probe': { request: PathRequest, response: InterpreterProbeSchema },
  // Remember the interpreter in settings.json (pythonPath); null forgets it. The path is probed first.
  'environment/select': {
    request: z.object({ path: z.string().min(1).max(4096).nullable() }).strict(),
    response: z.object({ selected: z.string().nullable(), probe: InterpreterProbeSchema.nullable() }),
  },
  // The interpreter the engine would use now (selected, else the best found) and its probe.
  'environment/current': {
    request: Empty,
    response: z.object({ interpreter: z.string().nullable(), selected: z.boolean(), probe: InterpreterProbeSchema.nullable() }),
  },
  // Create <dataDir>/engine-venv with the pinned torch + deepspeed; answers when finished.
  'environment/install': {
    request: z.object({ select: z.boolean().optional() }).strict(),
    response: InstallResultSchema,
  },
  'environment/install-cancel': { request: Empty, response: z.object({ cancelled: z.boolean() }) },
} as const;

export const environmentEvents = {
  'environment/install-progress': InstallProgressSchema,
} as const;
