// The Electron transport: the object the preload script exposes through contextBridge.
import type { ApiClient, WireResult } from '../../../electron/contract';
import { ClientError } from './ws-transport';

/** Shape of window.offloadStudio (see electron/preload/preload.ts). */
export interface PreloadApi {
  requests: Record<string, (payload: unknown) => Promise<WireResult<unknown>>>;
  events: Record<string, (listener: (payload: unknown) => void) => () => void>;
}

export function createPreloadClient(api: PreloadApi): ApiClient {
  return {
    async invoke(channel, request) {
      const call = api.requests[channel];
      if (!call) throw new ClientError('unknown_channel', `The app does not offer '${channel}'.`);
      const result = await call(request);
      if (result.ok) return result.value as never;
      throw new ClientError(result.error.code, result.error.message, result.error.field);
    },
    on(event, listener) {
      const subscribe = api.events[event];
      if (!subscribe) return () => undefined;
      return subscribe(listener as (payload: unknown) => void);
    },
  };
}
