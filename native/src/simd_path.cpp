#include "simd_path.h"

namespace osm {

const char* simd_path_name(SimdPath path) {
  switch (path) {
    case SimdPath::Avx512: return "avx512";
    case SimdPath::Avx2: return "avx2";
    case SimdPath::Neon: return "neon";
    case SimdPath::Scalar: break;
  }
  return "scalar";
}

bool parse_simd_path(const std::string& name, SimdPath* out) {
  if (name == "scalar") *out = SimdPath::Scalar;
  else if (name == "avx2") *out = SimdPath::Avx2;
  else if (name == "avx512") *out = SimdPath::Avx512;
  else if (name == "neon") *out = SimdPath::Neon;
  else return false;
  return true;
}

bool simd_path_supported(SimdPath path) {
  switch (path) {
    case SimdPath::Scalar: return true;
#if defined(__x86_64__) || defined(__i386__)
    // __builtin_cpu_supports reads CPUID and (in libgcc) checks that the OS saves the
    // AVX/AVX-512 register state, so a "yes" means the instructions really run here.
    case SimdPath::Avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case SimdPath::Avx512: return __builtin_cpu_supports("avx512f");
#else
    case SimdPath::Avx2: return false;
    case SimdPath::Avx512: return false;
#endif
#if defined(__aarch64__)
    case SimdPath::Neon: return true;  // Advanced SIMD is part of the AArch64 baseline.
#else
    case SimdPath::Neon: return false;
#endif
  }
  return false;
}

std::vector<SimdPath> supported_simd_paths() {
  std::vector<SimdPath> paths;
  for (SimdPath p : {SimdPath::Avx512, SimdPath::Avx2, SimdPath::Neon, SimdPath::Scalar})
    if (simd_path_supported(p)) paths.push_back(p);
  return paths;
}

SimdPath best_simd_path() { return supported_simd_paths().front(); }

}  // namespace osm
