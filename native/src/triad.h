// STREAM triad a[i] = b[i] + s * c[i], the memory-bandwidth figure CPU Adam is compared with.
#pragma once
#include <cstddef>
#include "simd_path.h"

namespace osm {

/**
 * One pass over [0, n). Vector paths store with non-temporal (streaming) stores when `a` is
 * 64-byte aligned: then the destination is not read first (no write-allocate), so the bytes
 * counted (12 per element: read b and c, write a) are the bytes that really cross the bus.
 */
void triad(SimdPath path, float* a, const float* b, const float* c, float s, size_t n);

}  // namespace osm
