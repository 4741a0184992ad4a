// Settings: the user's defaults, persisted in <dataDir>/settings.json. The file is shared with
// the environment domain (it stores the selected interpreter under `pythonPath`), so the schema
// below names only the keys this domain validates; unknown keys in the file are kept untouched.
import { z } from 'zod';

export const ThemeSchema = z.enum(['system', 'light', 'dark']);

// The selected interpreter: an absolute path (POSIX, or a Windows drive path) of plain path
// characters. Spaces are allowed (the app's own venv lives in "…/Offload Studio/engine-venv");
// shell characters and control characters are not: the path reaches ssh command lines (cluster
// pre-flight quotes it) and DeepSpeed's pdsh launcher (which does not).
export const INTERPRETER_PATH_PATTERN = /^(?:\/|[A-Za-z]:[\\/])[\p{L}\p{N} ._+@,~()\\/-]{0,4095}$/u;
export const INTERPRETER_PATH_MESSAGE =
  'must be an absolute path to the interpreter of letters, digits, spaces and . _ - + @ , ~ ( ) only (no shell or control characters)';

// Limits are generous on purpose: they refuse typos (0 steps, 1e9 repeats), not choices.
export const SettingsSchema = z.object({
  pythonPath: z.string().min(1).max(4096).regex(INTERPRETER_PATH_PATTERN, INTERPRETER_PATH_MESSAGE).nullable(),
  defaultSteps: z.number().int().min(1).max(100_000),
  defaultWarmupSteps: z.number().int().min(0).max(10_000),
  defaultRepeats: z.number().int().min(1).max(100),
  theme: ThemeSchema,
});

// An update names only what changes. `dataDir` is not stored in settings.json (which lives inside
// the data folder): it goes to a pointer file in the default data folder and needs a restart.
export const SettingsUpdateSchema = SettingsSchema.partial()
  .extend({
    dataDir: z
      .string()
      .min(1)
      .max(4096)
      .refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'must be an absolute path')
      .nullable()
      .optional(), // null = go back to the default data folder
  })
  .strict();

export const DataDirStateSchema = z.object({
  current: z.string(), // the folder this session uses
  default: z.string(), // where the pointer file lives (the platform's per-user folder)
  next: z.string(), // the folder the next start will use
  restartRequired: z.boolean(),
  note: z.string().nullable(),
});

export const SettingsViewSchema = z.object({
  settings: SettingsSchema,
  dataDir: DataDirStateSchema,
  file: z.string(), // path of settings.json, shown so the user can find it
});

export type Theme = z.infer<typeof ThemeSchema>;
export type Settings = z.infer<typeof SettingsSchema>;
export type SettingsUpdate = z.infer<typeof SettingsUpdateSchema>;
export type SettingsView = z.infer<typeof SettingsViewSchema>;

export const settingsRequests = {
  'settings/get': { request: z.object({}).strict(), response: SettingsViewSchema },
  'settings/update': { request: SettingsUpdateSchema, response: SettingsViewSchema },
} as const;

export const settingsEvents = {
  'settings/changed': SettingsViewSchema,
} as const;
