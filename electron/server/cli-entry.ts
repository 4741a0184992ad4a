// `npm run serve [-- --port N --host H --data-dir D]`: the app headless, UI in any browser.
import { runServe } from './serve';

runServe(process.argv.slice(2)).catch((error) => {
  console.error(`serve: ${error instanceof Error ? error.message : String(error)}`);
  // A usage mistake (unknown flag, missing value) exits 2, like the CLI; anything else 1.
  process.exit((error as { exitCode?: number } | null)?.exitCode ?? 1);
});
