// Finds and loads the native addon (native/build/Release/offload_studio_native.node). It is a
// plain N-API module, so the same file loads under Node (cli, serve, tests) and Electron.
// Packaged app: electron-builder unpacks *.node out of app.asar (a .node file cannot be
// dlopen'ed from inside the archive), so every candidate path inside 'app.asar' is rewritten to
// 'app.asar.unpacked'.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const NATIVE_NOT_BUILT = 'native module not built, run npm run build:native';
const RELATIVE = path.join('native', 'build', 'Release', 'offload_studio_native.node');

export type SimdPathName = 'avx512' | 'avx2' | 'neon' | 'scalar';

export interface NativeStatus {
  cancelled: boolean;
  truncated: boolean;
  seconds: number;
  error: string | null;
}

export interface NativeAdamSweep {
  path: SimdPathName;
  params: number;
  points: { threads: number; steps: number; medianSeconds: number; minSeconds: number; maxSeconds: number; paramsPerSecond: number }[];
  status: NativeStatus;
}

export interface NativeTriad {
  elements: number;
  bytesPerSecond: number;
  threads: number;
  points: { threads: number; rounds: number; bytesPerSecond: number }[];
  status: NativeStatus;
}

export interface NativeCopy {
  available: boolean;
  reason: string | null;
  library: string | null;
  runtimeVersion: number;
  driverVersion: number;
  deviceName: string | null;
  bytes: number;
  pinned: { h2dBytesPerSecond: number; d2hBytesPerSecond: number };
  pageable: { h2dBytesPerSecond: number; d2hBytesPerSecond: number };
  cancelled: boolean;
  seconds: number;
}

export interface AdamHyper {
  lr?: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
  adamw?: boolean;
  biasCorrection?: boolean;
  step?: number;
}

export interface AdamStepConsts {
  beta1: number;
  beta2: number;
  oneMinusBeta1: number;
  oneMinusBeta2: number;
  eps: number;
  stepSize: number;
  biasCorrection2: number;
  decay: number;
  hasDecay: boolean;
  adamw: boolean;
}

export interface CancelToken {
  cancel(): void;
  readonly cancelled: boolean;
}

type Progress = (fraction: number, message: string) => void;

/** The addon's exports (see native/src/addon.cpp). */
export interface NativeAddon {
  CancelToken: new () => CancelToken;
  cpuAdamSweep(
    options: {
      params?: number;
      threadCounts?: number[];
      budgetSeconds?: number;
      path?: SimdPathName;
      minSteps?: number;
      maxSteps?: number;
    },
    token?: CancelToken,
    onProgress?: Progress,
  ): Promise<NativeAdamSweep>;
  memoryBandwidth(
    options: { elements?: number; threadCounts?: number[]; budgetSeconds?: number; path?: SimdPathName },
    token?: CancelToken,
    onProgress?: Progress,
  ): Promise<NativeTriad>;
  hostDeviceCopy(
    options: { bytes?: number; budgetSeconds?: number; device?: number; libraryPaths?: string[] },
    token?: CancelToken,
    onProgress?: Progress,
  ): Promise<NativeCopy>;
  adamStep(
    options: AdamHyper & { path?: SimdPathName; threads?: number; reference?: 'fused' | 'unfused' },
    param: Float32Array,
    grad: Float32Array,
    expAvg: Float32Array,
    expAvgSq: Float32Array,
  ): void;
  adamStepConsts(options: AdamHyper): AdamStepConsts;
  simdPaths(): SimdPathName[];
  bestSimdPath: SimdPathName;
  defaultThreadCounts(logicalCores?: number): number[];
  cudartCandidates(extra?: string[]): string[];
  logicalCores: number;
  abiVersion: number;
}

export type NativeLoad = { ok: true; addon: NativeAddon; file: string } | { ok: false; reason: string; tried: string[] };

/** 'x/app.asar/y' -> 'x/app.asar.unpacked/y', where electron-builder's asarUnpack puts files. */
export function unpacked(p: string): string {
  return p.replace(/app\.asar(?=[\\/]|$)/, 'app.asar.unpacked');
}

/** Where the addon may be, most specific first. */
export function nativeCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  if (env.OFFLOAD_STUDIO_NATIVE) out.push(env.OFFLOAD_STUDIO_NATIVE);
  const resourcesPath = (process as { resourcesPath?: string }).resourcesPath;
  if (resourcesPath) out.push(path.join(resourcesPath, 'app.asar.unpacked', RELATIVE));
  // Walk up from this file (source tree or dist/main bundle) and from the working directory.
  const starts = [typeof __dirname !== 'undefined' ? __dirname : null, process.cwd()];
  for (const start of starts) {
    if (!start) continue;
    let dir = start;
    for (let i = 0; i < 8; i++) {
      out.push(unpacked(path.join(dir, RELATIVE)));
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return [...new Set(out)];
}

let cached: NativeLoad | null = null;

/** Loads the first candidate that exists (uncached; loadNative caches the default search). */
export function loadNativeFrom(candidates: readonly string[]): NativeLoad {
  const tried = [...candidates];
  // Any absolute filename anchors createRequire; the bundles define import.meta.url away.
  const requireNative = createRequire(path.join(process.cwd(), 'offload-studio-native-loader.js'));
  for (const file of tried) {
    if (!fs.existsSync(file)) continue;
    try {
      const addon = requireNative(file) as NativeAddon;
      return { ok: true, addon, file };
    } catch (error) {
      return { ok: false, reason: `${NATIVE_NOT_BUILT} (${file} failed to load: ${(error as Error).message})`, tried };
    }
  }
  return { ok: false, reason: NATIVE_NOT_BUILT, tried };
}

export function loadNative(): NativeLoad {
  return (cached ??= loadNativeFrom(nativeCandidates()));
}
