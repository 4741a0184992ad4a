// GPU discovery through `nvidia-smi -q -x`, called asynchronously with an argument vector.
import { execFile } from 'node:child_process';
import type { Gpu, Machine } from '../../contract';

export interface GpuDetection {
  gpus: Gpu[];
  status: Machine['gpuStatus'];
}

export function runTool(file: string, args: string[], timeoutMs = 10_000): Promise<{ stdout: string } | { error: Error & { code?: string | number | null } }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, shell: false }, (error, stdout) => {
      if (error) resolve({ error });
      else resolve({ stdout });
    });
  });
}

export async function detectGpus(): Promise<GpuDetection> {
  const result = await runTool('nvidia-smi', ['-q', '-x']);
  if ('error' in result) {
    const notFound = result.error.code === 'ENOENT';
    return {
      gpus: [],
      status: {
        driver: 'none',
        message: notFound
          ? 'no NVIDIA driver found (nvidia-smi is not on PATH)'
          : `nvidia-smi failed: ${result.error.message.split('\n')[0]}`,
      },
    };
  }
  // Parsing of the XML lands with the hardware issue; until then report what we know honestly.
  return { gpus: [], status: { driver: 'nvidia', message: 'nvidia-smi present; GPU parsing not yet implemented' } };
}
