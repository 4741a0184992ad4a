// Settings service: reads and updates <dataDir>/settings.json. The file is shared with the
// environment service (it writes `pythonPath` there too), so every write is read-merge-write
// over the whole object and keys this service does not know are carried through untouched.
import path from 'node:path';
import {
  ApiError,
  describeIssue,
  firstIssue,
  SettingsSchema,
  SettingsUpdateSchema,
  type Settings,
  type SettingsUpdate,
  type SettingsView,
} from '../../contract';
import { readDataDirPointer, writeDataDirPointer } from './data-dir-pointer';
import { readJsonObject, writeJsonAtomic } from './json-file';

export { followDataDirPointer, readDataDirPointer, writeDataDirPointer, POINTER_FILE } from './data-dir-pointer';
export { readJsonObject, writeJsonAtomic } from './json-file';

export const SETTINGS_FILE = 'settings.json';

// 10 measured steps after warm-up, as in DeepSpeedExamples' SuperOffload scripts (which use 20
// warm-up on GPUs; 5 keeps CPU runs short and still skips the JIT/allocation steps).
export const DEFAULT_SETTINGS: Settings = {
  pythonPath: null,
  defaultSteps: 10,
  defaultWarmupSteps: 5,
  defaultRepeats: 3,
  theme: 'system',
};

export interface SettingsServiceOptions {
  /** The folder this session uses (settings.json lives here). */
  dataDir: string;
  /** The per-user default folder, where the data folder pointer lives. */
  defaultDataDir: string;
}

export interface SettingsService {
  get(): SettingsView;
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- SettingsUpdate documents the shape; any value is accepted and validated
  update(patch: SettingsUpdate | unknown): SettingsView;
}

/** Known keys from a raw file; a hand-edited bad value falls back to its default rather than breaking the app. */
function knownSettings(raw: Record<string, unknown>): Settings {
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  const shape = SettingsSchema.shape;
  for (const key of Object.keys(shape) as (keyof Settings)[]) {
    if (!(key in raw)) continue;
    const parsed = shape[key].safeParse(raw[key]);
    if (parsed.success) out[key] = parsed.data;
  }
  return out as Settings;
}

export function createSettingsService(options: SettingsServiceOptions): SettingsService {
  const file = path.join(options.dataDir, SETTINGS_FILE);

  function view(): SettingsView {
    const settings = knownSettings(readJsonObject(file));
    const pointed = readDataDirPointer(options.defaultDataDir);
    const next = pointed ?? options.defaultDataDir;
    const elsewhere = path.resolve(next) !== path.resolve(options.dataDir);
    // A session started with --data-dir (or OFFLOAD_STUDIO_DATA_DIR) and no pointer written: nothing
    // is pending, a restart with the same command uses the same folder — said as a fact, not as a
    // 'Restart' warning (the README's `serve --data-dir ~/offload-data` showed one on first visit).
    const startedElsewhere = elsewhere && pointed === null;
    const restartRequired = elsewhere && !startedElsewhere;
    let note: string | null = null;
    if (startedElsewhere)
      note = `This session was started with --data-dir (or OFFLOAD_STUDIO_DATA_DIR) and uses ${options.dataDir}; a start without either uses ${next}.`;
    else if (restartRequired) note = `Restart Offload Studio to use ${next}. This session keeps using ${options.dataDir}.`;
    return {
      settings,
      dataDir: { current: options.dataDir, default: options.defaultDataDir, next, restartRequired, note },
      file,
    };
  }

  return {
    get: view,
    update(patch) {
      const parsed = SettingsUpdateSchema.safeParse(patch);
      if (!parsed.success) {
        const field = firstIssue(parsed.error).path;
        throw new ApiError('bad_request', `settings: ${describeIssue(parsed.error)}`, field);
      }
      const { dataDir, ...values } = parsed.data;
      if (dataDir !== undefined) {
        try {
          writeDataDirPointer(options.defaultDataDir, dataDir);
        } catch (error) {
          throw new ApiError('bad_request', `settings: field 'dataDir' cannot be used: ${(error as Error).message}`, 'dataDir');
        }
      }
      if (Object.keys(values).length > 0) {
        // Re-read just before writing so a key another service wrote a moment ago survives.
        const raw = readJsonObject(file);
        writeJsonAtomic(file, { ...raw, ...values });
      }
      return view();
    },
  };
}
