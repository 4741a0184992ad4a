// The import rules of DESIGN.md, enforced: contract imports nothing of ours; services import
// contract (and each other only through an index); only electron/main imports 'electron';
// the renderer imports the contract only.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..', '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|tsx)$/.test(entry.name)) out.push(rel);
  }
  return out;
}

function imports(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g))
    found.push(m[1] ?? m[2] ?? m[3]);
  return found;
}

function resolved(file: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  return path.normalize(path.join(path.dirname(file), spec));
}

describe('layering', () => {
  it("only electron/main and electron/preload import 'electron'", () => {
    const offenders = [...sourceFiles('electron'), ...sourceFiles('renderer/src')].filter(
      (f) => !f.startsWith('electron/main/') && !f.startsWith('electron/preload/') && imports(f).includes('electron'),
    );
    expect(offenders).toEqual([]);
  });

  it('the contract imports nothing of ours outside electron/contract', () => {
    const offenders = sourceFiles('electron/contract').flatMap((f) =>
      imports(f)
        .map((s) => resolved(f, s))
        .filter((r): r is string => r !== null && !r.startsWith('electron/contract'))
        .map((r) => `${f} -> ${r}`),
    );
    expect(offenders).toEqual([]);
  });

  it('services import only the contract and other services (through their index)', () => {
    const offenders = sourceFiles('electron/services').flatMap((f) => {
      const own = f.split('/').slice(0, 3).join('/'); // electron/services/<area>
      return imports(f)
        .map((s) => resolved(f, s))
        .filter((r): r is string => r !== null)
        .filter((r) => {
          if (r.startsWith('electron/contract') || r.startsWith('electron/kernel')) return false;
          if (r.startsWith(own + '/') || r === own) return false;
          if (r.startsWith('electron/services/')) {
            // Another service: only its index (folder import or /index). The backend composes handlers.
            const parts = r.split('/');
            return !(parts.length === 3 || (parts.length === 4 && parts[3] === 'index'));
          }
          return true; // main/server/cli/renderer are above services
        })
        .map((r) => `${f} -> ${r}`);
    });
    expect(offenders).toEqual([]);
  });

  it('the renderer imports the contract only', () => {
    const offenders = sourceFiles('renderer/src').flatMap((f) =>
      imports(f)
        .map((s) => resolved(f, s))
        .filter((r): r is string => r !== null && !r.startsWith('renderer/') && !r.startsWith('electron/contract'))
        .map((r) => `${f} -> ${r}`),
    );
    expect(offenders).toEqual([]);
  });
});
