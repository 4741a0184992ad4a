import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import { appVersion } from '../version';

export function appHandlers(ctx: BackendContext): HandlerMap<'app/info'> {
  return {
    'app/info': () => ({
      name: 'Offload Studio',
      version: appVersion(),
      dataDir: ctx.dataDir,
      transport: ctx.transport,
      platform: process.platform,
    }),
  };
}
