// Which vector instruction set a kernel uses. Picked at run time (not at build time) so one
// binary runs at full speed on an AVX-512 Xeon and still runs on an older or Arm machine.
#pragma once
#include <string>
#include <vector>

namespace osm {

enum class SimdPath { Scalar = 0, Avx2 = 1, Avx512 = 2, Neon = 3 };

const char* simd_path_name(SimdPath path);
/** Parses "scalar" | "avx2" | "avx512" | "neon"; false when the name is unknown. */
bool parse_simd_path(const std::string& name, SimdPath* out);
/** True when this CPU (and OS, for the AVX state) can run the path. */
bool simd_path_supported(SimdPath path);
/** The paths this CPU can run, fastest first; always ends with Scalar. */
std::vector<SimdPath> supported_simd_paths();
SimdPath best_simd_path();

}  // namespace osm
