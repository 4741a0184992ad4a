// The two host-side measurements: the CPU Adam step rate by thread count, and STREAM-triad
// memory bandwidth. Each respects a time budget and a cancel flag (see control.h).
#pragma once
#include <cstddef>
#include <string>
#include <vector>
#include "control.h"
#include "simd_path.h"

namespace osm {

struct AdamSweepOptions {
  size_t params = size_t(64) << 20;  // 64M fp32 params = 1 GiB of p, g, m, v: far past any cache
  std::vector<int> threadCounts;     // each measured in this order
  double budgetSeconds = 20;
  SimdPath path = SimdPath::Scalar;
  int minSteps = 3;                  // measured steps per thread count, budget allowing
  int maxSteps = 30;
};

struct AdamSweepPoint {
  int threads;
  int steps;            // measured steps (a warm-up step before them is not counted)
  double medianSeconds; // per step
  double minSeconds, maxSeconds;
  double paramsPerSecond; // params / medianSeconds
};

struct SweepStatus {
  bool cancelled = false;
  bool truncated = false;  // the budget ran out before every thread count was measured
  double seconds = 0;
  std::string error;       // non-empty: nothing was measured (e.g. out of memory)
};

struct AdamSweepResult {
  SimdPath path = SimdPath::Scalar;
  size_t params = 0;
  std::vector<AdamSweepPoint> points;
  SweepStatus status;
};

AdamSweepResult run_adam_sweep(const AdamSweepOptions& options, const Control& control);

struct TriadOptions {
  size_t elements = size_t(64) << 20;  // per array; 3 arrays = 768 MiB
  std::vector<int> threadCounts;
  double budgetSeconds = 5;
  SimdPath path = SimdPath::Scalar;
  int minRounds = 3;
  int maxRounds = 40;
};

struct TriadPoint {
  int threads;
  int rounds;
  double bytesPerSecond;  // 12 bytes per element / median round time
};

struct TriadResult {
  size_t elements = 0;
  std::vector<TriadPoint> points;
  double bestBytesPerSecond = 0;
  int bestThreads = 0;
  SweepStatus status;
};

TriadResult run_triad(const TriadOptions& options, const Control& control);

/** Powers of two up to n, the 3·2^k between them, and n itself: dense where the knee is. */
std::vector<int> default_thread_counts(int logicalCores);

}  // namespace osm
