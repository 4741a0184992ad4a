// The preload bridge: one function per contract request and one subscribe function per event,
// exposed as window.offloadStudio. Never a raw ipcRenderer. Bundled into one file because a
// sandboxed preload can only require 'electron'.
import { contextBridge, ipcRenderer } from 'electron';
import { channels, eventNames } from '../contract/channels';

const requests: Record<string, (payload: unknown) => Promise<unknown>> = {};
for (const channel of channels) requests[channel] = (payload: unknown) => ipcRenderer.invoke(channel, payload);

const events: Record<string, (listener: (payload: unknown) => void) => () => void> = {};
for (const name of eventNames) {
  events[name] = (listener) => {
    const wrapped = (_event: unknown, payload: unknown) => listener(payload);
    ipcRenderer.on(`event:${name}`, wrapped);
    return () => ipcRenderer.removeListener(`event:${name}`, wrapped);
  };
}

contextBridge.exposeInMainWorld('offloadStudio', { requests, events });
