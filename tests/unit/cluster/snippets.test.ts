// The Python sent over ssh lives in the runner folder (resources/engine), tested by pytest there;
// the cluster service reads it from the bundled folder and says clearly when it is not there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSource } from '../../../electron/services/cluster/detect';
import { isRunnerFile, readSnippet } from '../../../electron/services/cluster/snippets';
import { enginePath } from '../../../electron/services/resources';

describe('cluster snippets', () => {
  it('are the runner folder files', () => {
    const dir = enginePath();
    expect(readSnippet(dir, 'cluster_versions.py')).toBe(fs.readFileSync(path.join(dir, 'cluster_versions.py'), 'utf8'));
    expect(readSnippet(dir, 'probe_fallback.py')).toMatch(/"source": "fallback"/);
  });

  it('the fallback probe is used only without probe.py; a folder lacking both is named', () => {
    expect(probeSource(enginePath(), '/opt/os-engine').source).toBe('resources/engine/probe.py');
    const partial = fs.mkdtempSync(path.join(os.tmpdir(), 'os-snippets-'));
    fs.copyFileSync(enginePath('probe_fallback.py'), path.join(partial, 'probe_fallback.py'));
    expect(probeSource(partial, '/opt/os-engine')).toMatchObject({
      source: expect.stringMatching(/fallback/),
      text: expect.stringMatching(/def probe/),
    });
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'os-snippets-'));
    expect(() => probeSource(empty, '/opt/os-engine')).toThrow(/lacks probe_fallback\.py/);
  });

  it('runner files are its modules and the data they read', () => {
    expect(['bench.py', 'error-signatures.json', 'model-families.json'].every(isRunnerFile)).toBe(true);
    expect(['README.md', '__pycache__', 'a b.py', 'x.py;rm'].some(isRunnerFile)).toBe(false);
  });
});
