// What every measurement gets from its caller: a cancel flag it polls between blocks of work,
// and a progress sink (fraction 0..1 of this measurement, a human message).
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <string>

namespace osm {

struct Control {
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(double fraction, const std::string& message)> progress;

  bool cancelled() const { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }
  void report(double fraction, const std::string& message) const {
    if (progress) progress(fraction, message);
  }
};

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace osm
