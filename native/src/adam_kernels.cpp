// Built with -ffp-contract=off: the scalar path must not be silently turned into FMAs by the
// compiler, or its results would depend on the build flags and stop matching the reference.
#include "adam_kernels.h"

// GCC 12's own _mm512_sqrt_ps uses _mm512_undefined_ps(), which -Wmaybe-uninitialized
// misreports once inlined; the lanes in question are always overwritten.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <cmath>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define OSM_X86 1
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace osm {

AdamStepConsts adam_step_consts(const AdamHyper& h, int64_t step) {
  AdamStepConsts c{};
  c.beta1 = h.beta1;
  c.beta2 = h.beta2;
  c.oneMinusBeta1 = 1.0f - h.beta1;
  c.oneMinusBeta2 = 1.0f - h.beta2;
  c.eps = h.eps;
  float bias1 = 1.0f, bias2 = 1.0f;
  if (h.biasCorrection) {
    const float beta1t = static_cast<float>(std::pow(static_cast<double>(h.beta1), static_cast<double>(step)));
    const float beta2t = static_cast<float>(std::pow(static_cast<double>(h.beta2), static_cast<double>(step)));
    bias1 = 1.0f - beta1t;
    bias2 = 1.0f / std::sqrt(1.0f - beta2t);
  }
  c.stepSize = -1.0f * h.lr / bias1;
  c.biasCorrection2 = bias2;
  c.hasDecay = h.weightDecay > 0.0f;
  c.adamw = h.adamw;
  c.decay = h.adamw ? -1.0f * h.lr * h.weightDecay : h.weightDecay;
  return c;
}

// ---- scalar: DeepSpeed's Step_1 loop, two roundings per multiply-add ----
static void adam_scalar(const AdamStepConsts& c, float* p, const float* g, float* m, float* v, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    float grad = g[k], param = p[k], momentum = m[k], variance = v[k];
    if (c.hasDecay && !c.adamw) grad = param * c.decay + grad;
    momentum = momentum * c.beta1;
    momentum = grad * c.oneMinusBeta1 + momentum;
    variance = variance * c.beta2;
    grad = grad * grad;
    variance = grad * c.oneMinusBeta2 + variance;
    grad = std::sqrt(variance);
    grad = grad * c.biasCorrection2 + c.eps;
    grad = momentum / grad;
    if (c.hasDecay && c.adamw) param = param * c.decay + param;
    param = grad * c.stepSize + param;
    p[k] = param;
    m[k] = momentum;
    v[k] = variance;
  }
}

void adam_reference(bool fused, const AdamStepConsts& c, float* p, const float* g, float* m, float* v, size_t n) {
  if (!fused) {
    adam_scalar(c, p, g, m, v, n);
    return;
  }
  for (size_t k = 0; k < n; ++k) {
    float grad = g[k], param = p[k], momentum = m[k], variance = v[k];
    if (c.hasDecay && !c.adamw) grad = std::fmaf(param, c.decay, grad);
    momentum = momentum * c.beta1;
    momentum = std::fmaf(grad, c.oneMinusBeta1, momentum);
    variance = variance * c.beta2;
    grad = grad * grad;
    variance = std::fmaf(grad, c.oneMinusBeta2, variance);
    grad = std::sqrt(variance);
    grad = std::fmaf(grad, c.biasCorrection2, c.eps);
    grad = momentum / grad;
    if (c.hasDecay && c.adamw) param = std::fmaf(param, c.decay, param);
    param = std::fmaf(grad, c.stepSize, param);
    p[k] = param;
    m[k] = momentum;
    v[k] = variance;
  }
}

#if OSM_X86
// ---- AVX-512: 16 lanes, the masked load/store handles the tail in the same vector code ----
__attribute__((target("avx512f"))) static inline void adam16_avx512(
    const AdamStepConsts& c, float* p, const float* g, float* m, float* v, __mmask16 mask) {
  const __m512 b1 = _mm512_set1_ps(c.beta1), b2 = _mm512_set1_ps(c.beta2);
  const __m512 omb1 = _mm512_set1_ps(c.oneMinusBeta1), omb2 = _mm512_set1_ps(c.oneMinusBeta2);
  const __m512 bc2 = _mm512_set1_ps(c.biasCorrection2), eps = _mm512_set1_ps(c.eps);
  const __m512 step = _mm512_set1_ps(c.stepSize), decay = _mm512_set1_ps(c.decay);
  // Masked-off lanes load 1.0 (not 0) so no lane divides 0 by 0; they are never stored.
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 grad = _mm512_mask_loadu_ps(one, mask, g);
  __m512 mom = _mm512_mask_loadu_ps(one, mask, m);
  __m512 var = _mm512_mask_loadu_ps(one, mask, v);
  __m512 par = _mm512_mask_loadu_ps(one, mask, p);
  if (c.hasDecay && !c.adamw) grad = _mm512_fmadd_ps(par, decay, grad);
  mom = _mm512_mul_ps(mom, b1);
  mom = _mm512_fmadd_ps(grad, omb1, mom);
  var = _mm512_mul_ps(var, b2);
  grad = _mm512_mul_ps(grad, grad);
  var = _mm512_fmadd_ps(grad, omb2, var);
  grad = _mm512_sqrt_ps(var);
  grad = _mm512_fmadd_ps(grad, bc2, eps);
  grad = _mm512_div_ps(mom, grad);
  if (c.hasDecay && c.adamw) par = _mm512_fmadd_ps(par, decay, par);
  par = _mm512_fmadd_ps(grad, step, par);
  _mm512_mask_storeu_ps(p, mask, par);
  _mm512_mask_storeu_ps(m, mask, mom);
  _mm512_mask_storeu_ps(v, mask, var);
}

__attribute__((target("avx512f"))) static void adam_avx512(
    const AdamStepConsts& c, float* p, const float* g, float* m, float* v, size_t n) {
  size_t i = 0;
  // Four independent vectors per iteration (DeepSpeed's span 4/8) hide the sqrt/div latency.
  for (; i + 64 <= n; i += 64) {
    adam16_avx512(c, p + i, g + i, m + i, v + i, 0xFFFF);
    adam16_avx512(c, p + i + 16, g + i + 16, m + i + 16, v + i + 16, 0xFFFF);
    adam16_avx512(c, p + i + 32, g + i + 32, m + i + 32, v + i + 32, 0xFFFF);
    adam16_avx512(c, p + i + 48, g + i + 48, m + i + 48, v + i + 48, 0xFFFF);
  }
  for (; i + 16 <= n; i += 16) adam16_avx512(c, p + i, g + i, m + i, v + i, 0xFFFF);
  if (i < n) {
    const __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1u);
    adam16_avx512(c, p + i, g + i, m + i, v + i, mask);
  }
}

// ---- AVX2 + FMA: 8 lanes; the tail runs the fused scalar code (fmaf is one vfmadd here) ----
__attribute__((target("avx2,fma"))) static inline void adam8_avx2(
    const AdamStepConsts& c, float* p, const float* g, float* m, float* v) {
  const __m256 b1 = _mm256_set1_ps(c.beta1), b2 = _mm256_set1_ps(c.beta2);
  const __m256 omb1 = _mm256_set1_ps(c.oneMinusBeta1), omb2 = _mm256_set1_ps(c.oneMinusBeta2);
  const __m256 bc2 = _mm256_set1_ps(c.biasCorrection2), eps = _mm256_set1_ps(c.eps);
  const __m256 step = _mm256_set1_ps(c.stepSize), decay = _mm256_set1_ps(c.decay);
  __m256 grad = _mm256_loadu_ps(g);
  __m256 mom = _mm256_loadu_ps(m);
  __m256 var = _mm256_loadu_ps(v);
  __m256 par = _mm256_loadu_ps(p);
  if (c.hasDecay && !c.adamw) grad = _mm256_fmadd_ps(par, decay, grad);
  mom = _mm256_mul_ps(mom, b1);
  mom = _mm256_fmadd_ps(grad, omb1, mom);
  var = _mm256_mul_ps(var, b2);
  grad = _mm256_mul_ps(grad, grad);
  var = _mm256_fmadd_ps(grad, omb2, var);
  grad = _mm256_sqrt_ps(var);
  grad = _mm256_fmadd_ps(grad, bc2, eps);
  grad = _mm256_div_ps(mom, grad);
  if (c.hasDecay && c.adamw) par = _mm256_fmadd_ps(par, decay, par);
  par = _mm256_fmadd_ps(grad, step, par);
  _mm256_storeu_ps(p, par);
  _mm256_storeu_ps(m, mom);
  _mm256_storeu_ps(v, var);
}

__attribute__((target("avx2,fma"))) static void adam_avx2(
    const AdamStepConsts& c, float* p, const float* g, float* m, float* v, size_t n) {
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    adam8_avx2(c, p + i, g + i, m + i, v + i);
    adam8_avx2(c, p + i + 8, g + i + 8, m + i + 8, v + i + 8);
    adam8_avx2(c, p + i + 16, g + i + 16, m + i + 16, v + i + 16);
    adam8_avx2(c, p + i + 24, g + i + 24, m + i + 24, v + i + 24);
  }
  for (; i + 8 <= n; i += 8) adam8_avx2(c, p + i, g + i, m + i, v + i);
  if (i < n) adam_reference(true, c, p + i, g + i, m + i, v + i, n - i);
}
#endif  // OSM_X86

#if defined(__aarch64__)
// ---- NEON (AArch64 Advanced SIMD): 4 lanes, vfmaq is fused, vsqrtq/vdivq correctly rounded ----
static inline void adam4_neon(const AdamStepConsts& c, float* p, const float* g, float* m, float* v) {
  float32x4_t grad = vld1q_f32(g), mom = vld1q_f32(m), var = vld1q_f32(v), par = vld1q_f32(p);
  const float32x4_t decay = vdupq_n_f32(c.decay);
  if (c.hasDecay && !c.adamw) grad = vfmaq_f32(grad, par, decay);  // grad + par*decay
  mom = vmulq_f32(mom, vdupq_n_f32(c.beta1));
  mom = vfmaq_f32(mom, grad, vdupq_n_f32(c.oneMinusBeta1));
  var = vmulq_f32(var, vdupq_n_f32(c.beta2));
  grad = vmulq_f32(grad, grad);
  var = vfmaq_f32(var, grad, vdupq_n_f32(c.oneMinusBeta2));
  grad = vsqrtq_f32(var);
  grad = vfmaq_f32(vdupq_n_f32(c.eps), grad, vdupq_n_f32(c.biasCorrection2));
  grad = vdivq_f32(mom, grad);
  if (c.hasDecay && c.adamw) par = vfmaq_f32(par, par, decay);
  par = vfmaq_f32(par, grad, vdupq_n_f32(c.stepSize));
  vst1q_f32(p, par);
  vst1q_f32(m, mom);
  vst1q_f32(v, var);
}

static void adam_neon(const AdamStepConsts& c, float* p, const float* g, float* m, float* v, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    adam4_neon(c, p + i, g + i, m + i, v + i);
    adam4_neon(c, p + i + 4, g + i + 4, m + i + 4, v + i + 4);
    adam4_neon(c, p + i + 8, g + i + 8, m + i + 8, v + i + 8);
    adam4_neon(c, p + i + 12, g + i + 12, m + i + 12, v + i + 12);
  }
  for (; i + 4 <= n; i += 4) adam4_neon(c, p + i, g + i, m + i, v + i);
  if (i < n) adam_reference(true, c, p + i, g + i, m + i, v + i, n - i);
}
#endif

void adam_step(SimdPath path, const AdamStepConsts& c, float* p, const float* g, float* m, float* v, size_t n) {
  switch (path) {
#if OSM_X86
    case SimdPath::Avx512: adam_avx512(c, p, g, m, v, n); return;
    case SimdPath::Avx2: adam_avx2(c, p, g, m, v, n); return;
#endif
#if defined(__aarch64__)
    case SimdPath::Neon: adam_neon(c, p, g, m, v, n); return;
#endif
    default: adam_scalar(c, p, g, m, v, n); return;
  }
}

}  // namespace osm
