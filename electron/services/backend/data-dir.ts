// Where the app keeps its data when no --data-dir is given: the same folder Electron uses as
// userData for this app, so the CLI, `serve` and the desktop app share one history.
import os from 'node:os';
import path from 'node:path';
import { followDataDirPointer } from '../settings';

export const APP_FOLDER_NAME = 'Offload Studio';

// The data folder to use: the per-user folder, or the folder its pointer file names when the
// user moved it in Settings (read once at start, hence "restart needed").
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  return followDataDirPointer(baseDataDir(env, platform));
}

/** The per-user folder itself, where the pointer file lives. */
export function baseDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.OFFLOAD_STUDIO_DATA_DIR) return env.OFFLOAD_STUDIO_DATA_DIR;
  const home = os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', APP_FOLDER_NAME);
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), APP_FOLDER_NAME);
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), APP_FOLDER_NAME);
}
