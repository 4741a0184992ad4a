// settings/get and settings/update. The pointer file for a moved data folder lives in the
// per-user default folder (OFFLOAD_STUDIO_DATA_DIR or the platform's), never in a test's --data-dir.
import { createSettingsService } from '../../settings';
import type { BackendContext } from '../context';
import { baseDataDir } from '../data-dir';
import type { HandlerMap } from '../handler-types';

export function settingsHandlers(ctx: BackendContext): HandlerMap<'settings/get' | 'settings/update'> {
  const service = createSettingsService({ dataDir: ctx.dataDir, defaultDataDir: baseDataDir() });
  return {
    'settings/get': () => service.get(),
    'settings/update': (request) => {
      const view = service.update(request);
      ctx.emit('settings/changed', view);
      return view;
    },
  };
}
