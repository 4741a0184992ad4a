// Stands in for Electron's `process.parentPort` in a plain Node fork, so the real
// electron/main/backend-host.ts runs under test: messages from the parent arrive as {data},
// as MessagePortMain delivers them, and postMessage goes back over the fork's IPC channel.
process.parentPort = {
  on(event, listener) {
    if (event === 'message') process.on('message', (data) => listener({ data }));
  },
  postMessage(message) {
    process.send(message);
  },
};
