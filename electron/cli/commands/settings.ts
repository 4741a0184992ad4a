// `settings` (show) and `settings set key=value …` over settings/get and settings/update.
import type { Command } from '../command';

function coerce(value: string): unknown {
  if (value === 'null') return null;
  if (/^-?\d+$/.test(value)) return Number(value);
  return value;
}

export const settingsCommands: Record<string, Command> = {
  settings: {
    summary: 'show settings; `settings set theme=dark defaultSteps=20 dataDir=/path` changes them',
    async run({ backend, positionals, json, out }) {
      let view;
      if (positionals[0] === 'set') {
        const patch: Record<string, unknown> = {};
        for (const pair of positionals.slice(1)) {
          const eq = pair.indexOf('=');
          if (eq <= 0) {
            out(`expected key=value, got '${pair}'`);
            return 2;
          }
          patch[pair.slice(0, eq)] = coerce(pair.slice(eq + 1));
        }
        view = await backend.invoke('settings/update', patch);
      } else view = await backend.invoke('settings/get', {});
      if (json) {
        out(JSON.stringify(view, null, 2));
        return 0;
      }
      for (const [k, v] of Object.entries(view.settings)) out(`${k.padEnd(20)} ${v === null ? '—' : String(v)}`);
      out(`${'dataDir'.padEnd(20)} ${view.dataDir.current}`);
      if (view.dataDir.note) out(`note: ${view.dataDir.note}`);
      return 0;
    },
  },
};
