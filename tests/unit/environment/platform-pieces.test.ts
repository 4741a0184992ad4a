// What the engine can run on macOS and Windows, said first in the probe's missing pieces (the
// setup wizard and `engine probe` show this list) and, in the same words, on the Hardware page.
import { describe, expect, it } from 'vitest';
import { MissingPieceSchema } from '../../../electron/contract';
import { missingPieces, platformPieces } from '../../../electron/services/environment/missing';
import { platformWarnings } from '../../../electron/services/hardware/warnings';

// A complete CUDA engine, as the H200 host probes it: nothing is missing on Linux.
const complete = {
  pythonVersion: '3.12.3',
  isVenv: true,
  torch: { version: '2.11.0', cuda: '13.0', cudaAvailable: true, error: null },
  deepspeed: {
    version: '0.18.9',
    error: null,
    cpuAdam: { prebuilt: true, compatible: true, error: null },
    asyncIo: { prebuilt: true, compatible: true, error: null },
  },
  build: { ninja: '1.11', cxx: 'g++', libaio: true },
} as never;

describe('platform pieces', () => {
  it('Linux: nothing about the platform', () => {
    expect(platformPieces('linux')).toEqual([]);
    expect(missingPieces('/usr/bin/python3', complete, [], 'linux').filter((p) => p.id.startsWith('platform'))).toEqual([]);
  });
  it('macOS: the engine cannot run here (required), and planning/history/compare/reports still work', () => {
    const pieces = missingPieces('/usr/bin/python3', complete, [], 'darwin');
    expect(pieces[0]).toMatchObject({ id: 'platform-macos', severity: 'required' });
    expect(pieces[0].what).toMatch(/no CUDA/);
    expect(pieces[0].what).toMatch(/Planning for another machine, history, compare and reports work fully/);
    expect(() => pieces.map((p) => MissingPieceSchema.parse(p))).not.toThrow();
  });
  it('Windows: single-GPU with CPU offload only; no NCCL, no async_io (NVMe), ops built with MSVC; WSL2 as the way out', () => {
    const [p] = platformPieces('win32');
    expect(p).toMatchObject({ id: 'platform-windows', severity: 'optional' });
    expect(p.what).toMatch(/single-GPU.*no NCCL.*no async_io.*MSVC/);
    expect(p.fix).toMatch(/WSL2/);
  });
  it('the Hardware page says the same per OS (detection names Windows "Windows", Node "win32")', () => {
    expect(
      platformWarnings({ os: { platform: 'Windows', distro: '', release: '', kernel: '', arch: 'x64' }, gpus: [] }).map((w) => w.id),
    ).toEqual(['platform-windows']);
    expect(
      platformWarnings({ os: { platform: 'win32', distro: '', release: '', kernel: '', arch: 'x64' }, gpus: [] }).map((w) => w.id),
    ).toEqual(['platform-windows']);
    expect(
      platformWarnings({ os: { platform: 'darwin', distro: '', release: '', kernel: '', arch: 'arm64' }, gpus: [] }).map((w) => w.id),
    ).toEqual(['platform-macos']);
    expect(platformWarnings({ os: { platform: 'linux', distro: '', release: '', kernel: '', arch: 'x64' }, gpus: [] })).toEqual([]);
  });
});
