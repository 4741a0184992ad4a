// DeepSpeed's model-state memory estimators, transcribed from
// deepspeed/runtime/zero/stage_1_and_2.py::estimate_zero2_model_states_mem_needs and
// deepspeed/runtime/zero/stage3.py::estimate_zero3_model_states_mem_needs (DeepSpeed 0.19.x).
// Same arithmetic, same int() truncation, same defaults (additional_buffer_factor 1.5, zero_init true).
// Host figures are per node, GPU figures per GPU.
import { worldSize } from '../../../contract';

export interface EstimatorResult {
  cpuBytes: number;
  gpuBytes: number;
}

export function estimateZero2(
  totalParams: number,
  gpusPerNode = 1,
  nodes = 1,
  cpuOffload = true,
  additionalBufferFactor = 1.5,
): EstimatorResult {
  const totalGpus = worldSize({ gpus: gpusPerNode, nodes });
  let gpu: number;
  let cpu: number;
  if (cpuOffload) {
    gpu = 2 * totalParams;
    cpu = totalParams * Math.max(4 * totalGpus, 16) * additionalBufferFactor;
  } else {
    // 2 = bf16 params; 18 = 2 bf16 grads + 4 fp32 grads + 4 fp32 params + 8 Adam moments (DeepSpeed's comment)
    gpu = 2 * totalParams + Math.trunc((18 * totalParams) / totalGpus);
    cpu = totalParams * 4 * gpusPerNode * additionalBufferFactor;
  }
  return { cpuBytes: Math.trunc(cpu), gpuBytes: Math.trunc(gpu) };
}

export function estimateZero3(
  totalParams: number,
  largestLayerParams: number,
  gpusPerNode = 1,
  nodes = 1,
  cpuOffload = true,
  cpuOffloadParams = true,
  zeroInit = true,
  additionalBufferFactor = 1.5,
): EstimatorResult & { largestLayerBytes: number } {
  const totalGpus = worldSize({ gpus: gpusPerNode, nodes });
  const gpusFactor = 1 / nodes;
  const largestLayerMemory = 4 * largestLayerParams;
  let gpu: number;
  let cpu: number;
  if (cpuOffload) {
    if (cpuOffloadParams) {
      gpu = largestLayerMemory;
      cpu = zeroInit
        ? totalParams * 18 * gpusFactor * additionalBufferFactor
        : totalParams * Math.max(4 * gpusPerNode, 18 * gpusFactor) * additionalBufferFactor;
    } else {
      gpu = largestLayerMemory + Math.trunc((2 * totalParams) / totalGpus);
      cpu = zeroInit
        ? totalParams * 16 * gpusFactor * additionalBufferFactor
        : totalParams * Math.max(4 * gpusPerNode, 16 * gpusFactor) * additionalBufferFactor;
    }
  } else {
    gpu = largestLayerMemory + Math.trunc((18 * totalParams) / totalGpus);
    cpu = zeroInit ? largestLayerParams * 4 * gpusPerNode * additionalBufferFactor : totalParams * 4 * gpusPerNode * additionalBufferFactor;
  }
  return { cpuBytes: Math.trunc(cpu), gpuBytes: Math.trunc(gpu), largestLayerBytes: largestLayerMemory };
}
