import type { BackendContext } from '../context';
import type { HandlerMap } from '../handler-types';

export function measureHandlers(_ctx: BackendContext): HandlerMap<never> {
  return {};
}
