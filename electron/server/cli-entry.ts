// `npm run serve [-- --port N --host H --data-dir D]`: the app headless, UI in any browser.
//
// A --token on our command line is readable by every user in /proc/<pid>/cmdline until node's copy
// is overwritten (process.title). That is done here, as the first statement, before the server and
// its services are loaded: when it waited for them (serve.ts) the token stayed readable for about
// 4 s under load. What remains is node's own start-up and the loader's (well under a second idle);
// --token-file and OFFLOAD_STUDIO_TOKEN have no window at all.
if (process.argv.some((a) => a === '--token' || a.startsWith('--token='))) process.title = 'offload-studio serve';

// Loaded after the title is set (a static import would be evaluated before this module's body).
void import('./serve').then(({ runServe }) =>
  runServe(process.argv.slice(2)).catch((error) => {
    console.error(`serve: ${error instanceof Error ? error.message : String(error)}`);
    // A usage mistake (unknown flag, missing value) exits 2, like the CLI; anything else 1.
    process.exit((error as { exitCode?: number } | null)?.exitCode ?? 1);
  }),
);
