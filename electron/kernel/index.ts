// The small shared kernel of the Node side: helpers with no state of the app, each in one place,
// that services, the CLI, the headless server and the Electron main process all use. It imports
// Node built-ins and the contract only; the contract and the renderer never import it.
export { tempNameBeside, writeFileAtomic, writeFolderAtomic, writeJsonAtomic, type AtomicWriteOptions } from './atomic-write';
export { editDistance, inferSpec, nearest, parseArgv, UsageError, SERVE_FLAGS, type FlagKind, type FlagSpec, type Flags } from './argv';
export { onInterrupt, pressCounter, SAME_PRESS_MS } from './interrupts';
export { createGate, type Gate } from './gate';
