// The bundle's .zip (fflate underneath): read back by Python's zipfile, a reader we did not write.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildZip } from '../../../electron/services/reports/zip';

function pyRead(zip: Buffer): { name: string; mode: number; method: number; crcOk: boolean; text: string; year: number }[] {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'zip-')), 'a.zip');
  fs.writeFileSync(file, zip);
  const out = execFileSync(
    'python3',
    [
      '-c',
      `
import zipfile, sys, json
z = zipfile.ZipFile(sys.argv[1])
bad = z.testzip()
print(json.dumps([{"name": i.filename, "mode": i.external_attr >> 16, "method": i.compress_type, "crcOk": bad is None, "text": z.read(i).decode(), "year": i.date_time[0]} for i in z.infolist()]))
`,
      file,
    ],
    { encoding: 'utf8' },
  );
  return JSON.parse(out);
}

describe('buildZip', () => {
  it('keeps names, contents, unix modes and the date; deflates what shrinks, stores what does not', () => {
    const long = 'deepspeed --num_gpus 1 bench.py\n'.repeat(40);
    const zip = buildZip(
      [
        { name: 'repro/run.sh', data: long, mode: 0o755 },
        { name: 'repro/ds_config.json', data: Buffer.from('{}') },
        { name: 'repro/ünïcode.txt', data: 'x' },
      ],
      new Date(2026, 11, 3, 8, 0, 0),
    );
    const entries = pyRead(zip);
    expect(entries.map((e) => e.name)).toEqual(['repro/run.sh', 'repro/ds_config.json', 'repro/ünïcode.txt']);
    expect(entries[0]).toMatchObject({ mode: 0o100755, method: 8, crcOk: true, text: long, year: 2026 });
    expect(entries[1]).toMatchObject({ mode: 0o100644, method: 0, text: '{}' });
    expect(entries[2].text).toBe('x');
  });
  it('refuses unsafe and duplicate names', () => {
    expect(() => buildZip([{ name: '../x', data: '' }])).toThrow(/unsafe/);
    expect(() => buildZip([{ name: '/etc/x', data: '' }])).toThrow(/unsafe/);
    expect(() =>
      buildZip([
        { name: 'a', data: '1' },
        { name: 'a', data: '2' },
      ]),
    ).toThrow(/duplicate/);
  });
});
