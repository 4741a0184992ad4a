// The main window's security-relevant options, as a pure module (no 'electron' import) so a test
// can assert them without an Electron binary: contextIsolation, sandbox, no Node in the page.
export function mainWindowWebPreferences(preload: string) {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
  } as const;
}
