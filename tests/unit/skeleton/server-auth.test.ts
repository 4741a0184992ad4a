import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newToken, tokensEqual } from '../../../electron/server/auth';
import { resolveStatic } from '../../../electron/server/static-files';

describe('server auth', () => {
  it('makes unguessable tokens and compares them exactly', () => {
    const a = newToken();
    expect(a.length).toBeGreaterThanOrEqual(32);
    expect(newToken()).not.toBe(a);
    expect(tokensEqual(a, a)).toBe(true);
    expect(tokensEqual(a.slice(0, -1), a)).toBe(false);
    expect(tokensEqual('', a)).toBe(false);
  });
});

describe('static file resolution', () => {
  const root = '/srv/renderer';
  it('serves inside the root', () => {
    expect(resolveStatic(root, '/')).toBe(path.join(root, 'index.html'));
    expect(resolveStatic(root, '/assets/a.js')).toBe(path.join(root, 'assets/a.js'));
  });
  it.each(['/../package.json', '/..%2f..%2fetc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/a\\..\\..\\x', '/%00', '/%E0%A4%A'])(
    'refuses %s',
    (p) => {
      const r = resolveStatic(root, p);
      expect(r === null || r.startsWith(root + path.sep)).toBe(true);
      if (p.includes('..')) expect(r).toBeNull();
    },
  );
});
