// One fp32 Adam/AdamW step over contiguous arrays, with the same update rule and the same
// order of operations as DeepSpeed's CPU Adam (csrc/includes/cpu_adam.h, Step_AVX, and
// csrc/adam/cpu_adam_impl.cpp, Step_1), so the rate we measure is the rate of that kernel.
#pragma once
#include <cstddef>
#include <cstdint>
#include "simd_path.h"

namespace osm {

struct AdamHyper {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weightDecay = 0.0f;
  bool adamw = true;          // decoupled weight decay (AdamW) rather than L2 added to the grad
  bool biasCorrection = true;
};

/** The per-step scalars, computed once per step as DeepSpeed's update_state does. */
struct AdamStepConsts {
  float beta1, beta2;
  float oneMinusBeta1, oneMinusBeta2;
  float eps;
  float stepSize;         // -lr / (1 - beta1^t)
  float biasCorrection2;  // 1 / sqrt(1 - beta2^t)
  float decay;            // AdamW: -lr * wd (applied to the param); Adam: wd (added to the grad)
  bool hasDecay;
  bool adamw;
};

/** step counts from 1 (the first update), as in torch and DeepSpeed. */
AdamStepConsts adam_step_consts(const AdamHyper& hyper, int64_t step);

/** Runs one step on [0, n) with the given path; the path must be supported on this CPU. */
void adam_step(SimdPath path, const AdamStepConsts& c, float* param, const float* grad,
               float* expAvg, float* expAvgSq, size_t n);

/**
 * Plain one-element-at-a-time reference, for tests. fused=true computes each multiply-add as
 * one correctly rounded fmaf, as the vector paths do (so they match it bit for bit);
 * fused=false rounds the product and the sum separately, as the scalar path does.
 */
void adam_reference(bool fused, const AdamStepConsts& c, float* param, const float* grad,
                    float* expAvg, float* expAvgSq, size_t n);

/** Whether a path computes multiply-adds fused (vector paths) or in two roundings (scalar). */
inline bool adam_path_is_fused(SimdPath path) { return path != SimdPath::Scalar; }

}  // namespace osm
