// The chosen interpreter lives in <dataDir>/settings.json under `pythonPath` (the settings
// service owns the file; every write is read-merge-write, so other keys survive).
import path from 'node:path';
import { INTERPRETER_PATH_PATTERN } from '../../contract';
import { readJsonObject, writeJsonAtomic, SETTINGS_FILE } from '../settings';

// eslint-disable-next-line @typescript-eslint/require-await -- async API kept for callers that await it; a throw stays a rejection
export async function selectedInterpreter(dataDir: string): Promise<string | null> {
  try {
    const value = readJsonObject(path.join(dataDir, SETTINGS_FILE)).pythonPath;
    // A hand-edited value the settings schema refuses (shell characters, a relative path) is not used.
    return typeof value === 'string' && INTERPRETER_PATH_PATTERN.test(value) ? value : null;
  } catch {
    return null; // a corrupt settings.json is the settings page's to report
  }
}

// eslint-disable-next-line @typescript-eslint/require-await -- async API kept for callers that await it; a throw stays a rejection
export async function rememberInterpreter(dataDir: string, pythonPath: string | null): Promise<void> {
  const file = path.join(dataDir, SETTINGS_FILE);
  const current = readJsonObject(file);
  writeJsonAtomic(file, { ...current, pythonPath });
}
