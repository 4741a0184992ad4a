// The app's side of torch's CPU AdamW measurement: the script's JSON line (a real one, from the H100 lease)
// read into the contract's shape, and every way it can fail said in words.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TorchAdamSchema } from '../../../electron/contract';
import { measureTorchAdam, torchAdamFromOutput } from '../../../electron/services/environment';

const probeLines = fs
  .readFileSync(path.resolve(import.meta.dirname, '../../../resources/samples/h100-torch-adam-probe/rates.jsonl'), 'utf8')
  .trim()
  .split('\n');

describe("torch's AdamW probe", () => {
  it("reads the script's line: rate per implementation, threads, tensor size, torch version", () => {
    const single = probeLines.find((l) => l.includes('one tensor of'))!;
    const t = torchAdamFromOutput(`some log line\n${single}\n`, '/venv/bin/python');
    expect(TorchAdamSchema.parse(t)).toEqual(t);
    expect(t).toMatchObject({ threads: 16, params: 268435456, torch: '2.11.0+cu130', python: '/venv/bin/python' });
    expect(t.paramsPerSecond.plain).toBeCloseTo(894528132.7, 0);
    expect(t.paramsPerSecond.fused).toBeCloseTo(4738133877.9, 0);
    expect(t.paramsPerSecond.foreach).toBeUndefined();
  });

  it('refuses output without a JSON line or without results, by name', () => {
    expect(() => torchAdamFromOutput('Traceback …', 'py')).toThrow(/printed no JSON line/);
    expect(() => torchAdamFromOutput('{"torch": "2.11"}', 'py')).toThrow(/without results/);
    expect(() => torchAdamFromOutput('{"torch": "2.11", "results": [{"impl": "odd", "paramsPerSecond": 1}]}', 'py')).toThrow(
      /no implementation/,
    );
  });

  it('an interpreter that is not there: says it could not be started', async () => {
    await expect(measureTorchAdam('/nonexistent/python3', { params: 4 << 20, threads: 1, timeoutMs: 10_000 })).rejects.toThrow(
      /\/nonexistent\/python3 could not be started \(ENOENT/,
    );
  });
});
