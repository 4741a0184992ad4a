// The one client the UI uses. Electron: the preload object. Browser: the server's WebSocket,
// authorised by the token from the page URL.
import type { ApiClient } from '../../../electron/contract';
import { createPreloadClient, type PreloadApi } from './preload-transport';
import { createWebSocketClient } from './ws-transport';

declare global {
  interface Window {
    offloadStudio?: PreloadApi;
  }
}

function createClient(): ApiClient {
  if (window.offloadStudio) return createPreloadClient(window.offloadStudio);
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return createWebSocketClient(`${scheme}://${window.location.host}/ws?token=${encodeURIComponent(token)}`);
}

export const api: ApiClient = createClient();
export const transport: 'electron' | 'server' = window.offloadStudio ? 'electron' : 'server';
