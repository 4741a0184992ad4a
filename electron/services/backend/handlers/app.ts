import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';
import type { NoticeStore } from '../notices';
import { appVersion } from '../version';

export function appHandlers(ctx: BackendContext, notices: NoticeStore): HandlerMap<'app/info' | 'app/notices' | 'app/notice-ack'> {
  return {
    'app/info': () => ({
      name: 'Offload Studio',
      version: appVersion(),
      dataDir: ctx.dataDir,
      transport: ctx.transport,
      platform: process.platform,
    }),
    'app/notices': () => ({ notices: notices.pending() }),
    'app/notice-ack': (request) => ({ acknowledged: notices.acknowledge(request.id) }),
  };
}
