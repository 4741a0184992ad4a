#include "triad.h"

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define OSM_X86 1
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace osm {

static void triad_scalar(float* a, const float* b, const float* c, float s, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

static bool aligned64(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 63u) == 0; }

#if OSM_X86
__attribute__((target("avx512f"))) static void triad_avx512(float* a, const float* b, const float* c, float s, size_t n) {
  const __m512 vs = _mm512_set1_ps(s);
  size_t i = 0;
  if (aligned64(a)) {
    for (; i + 16 <= n; i += 16)
      _mm512_stream_ps(a + i, _mm512_fmadd_ps(vs, _mm512_loadu_ps(c + i), _mm512_loadu_ps(b + i)));
    _mm_sfence();  // streaming stores are weakly ordered; fence before others read `a`
  } else {
    for (; i + 16 <= n; i += 16)
      _mm512_storeu_ps(a + i, _mm512_fmadd_ps(vs, _mm512_loadu_ps(c + i), _mm512_loadu_ps(b + i)));
  }
  triad_scalar(a + i, b + i, c + i, s, n - i);
}

__attribute__((target("avx2,fma"))) static void triad_avx2(float* a, const float* b, const float* c, float s, size_t n) {
  const __m256 vs = _mm256_set1_ps(s);
  size_t i = 0;
  if (aligned64(a)) {
    for (; i + 8 <= n; i += 8)
      _mm256_stream_ps(a + i, _mm256_fmadd_ps(vs, _mm256_loadu_ps(c + i), _mm256_loadu_ps(b + i)));
    _mm_sfence();
  } else {
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_ps(a + i, _mm256_fmadd_ps(vs, _mm256_loadu_ps(c + i), _mm256_loadu_ps(b + i)));
  }
  triad_scalar(a + i, b + i, c + i, s, n - i);
}
#endif

#if defined(__aarch64__)
// AArch64 has no streaming store in NEON intrinsics; STNP would need asm. Plain stores here,
// so on Arm the triad figure includes write-allocate and reads low by up to a quarter.
static void triad_neon(float* a, const float* b, const float* c, float s, size_t n) {
  const float32x4_t vs = vdupq_n_f32(s);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(a + i, vfmaq_f32(vld1q_f32(b + i), vld1q_f32(c + i), vs));
  triad_scalar(a + i, b + i, c + i, s, n - i);
}
#endif

void triad(SimdPath path, float* a, const float* b, const float* c, float s, size_t n) {
  switch (path) {
#if OSM_X86
    case SimdPath::Avx512: triad_avx512(a, b, c, s, n); return;
    case SimdPath::Avx2: triad_avx2(a, b, c, s, n); return;
#endif
#if defined(__aarch64__)
    case SimdPath::Neon: triad_neon(a, b, c, s, n); return;
#endif
    default: triad_scalar(a, b, c, s, n); return;
  }
}

}  // namespace osm
