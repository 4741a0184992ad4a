// Host<->GPU copy bandwidth through the CUDA runtime, loaded with dlopen at run time: the addon
// has no build-time CUDA dependency and loads on machines with no GPU, where it says why.
#pragma once
#include <cstddef>
#include <string>
#include <vector>
#include "control.h"

namespace osm {

struct CopyOptions {
  size_t bytes = size_t(1) << 30;  // per copy; large so per-copy latency does not count
  double budgetSeconds = 8;
  int device = 0;
  std::vector<std::string> libraryPaths;  // files or folders tried before the default names
  int minReps = 2;
  int maxReps = 10;
};

struct CopyPair {
  double h2dBytesPerSecond = 0;
  double d2hBytesPerSecond = 0;
};

struct CopyResult {
  bool available = false;
  std::string reason;       // why there is no figure (no runtime, no GPU, out of memory, ...)
  std::string library;      // the libcudart that was loaded
  int runtimeVersion = 0;   // e.g. 13000
  int driverVersion = 0;
  std::string deviceName;
  size_t bytes = 0;
  CopyPair pinned, pageable;
  bool cancelled = false;
  double seconds = 0;
};

/** The names and paths tried, in order (exposed so tests and the reason can list them). */
std::vector<std::string> cudart_candidates(const std::vector<std::string>& extra);

CopyResult run_host_device_copy(const CopyOptions& options, const Control& control);

}  // namespace osm
