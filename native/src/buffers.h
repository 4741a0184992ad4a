// Large fp32 arrays for the measurements: 64-byte aligned (a cache line, an AVX-512 vector),
// released on scope exit. Plain posix_memalign and no madvise, like torch's CPU allocator, so
// we measure what a training process's tensors would see.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace osm {

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using FloatBuffer = std::unique_ptr<float[], FreeDeleter>;

/** Returns an empty buffer (not an exception) when memory is short, so callers can say so. */
inline FloatBuffer alloc_floats(size_t n) {
  void* p = nullptr;
  if (posix_memalign(&p, 64, n * sizeof(float) + 64) != 0) return FloatBuffer();
  return FloatBuffer(static_cast<float*>(p));
}

/** A cheap deterministic value in [-1, 1) from an index (so runs are reproducible). */
inline float hash_unit(size_t i, unsigned salt) {
  uint64_t x = (static_cast<uint64_t>(i) + 1) * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(salt) << 32);
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return static_cast<float>(static_cast<double>(x >> 40) / static_cast<double>(1ull << 23) - 1.0);
}

}  // namespace osm
