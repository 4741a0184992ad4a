// A standalone command-line driver over the same measurement sources as the addon, for hosts
// that have a compiler but no Node (the GPU machines we borrow). Prints one JSON object.
//   g++ -O3 -std=c++20 -ffp-contract=off -pthread -Inative/src native/src/*.cpp native/tools/driver.cpp -ldl
//   ./driver [--budget-seconds 60] [--params N] [--triad-elements N] [--copy-bytes N] [--path avx2]
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../src/adam_kernels.h"
#include "../src/buffers.h"
#include "../src/cuda_copy.h"
#include "../src/measure_cpu.h"

using namespace osm;

static std::string jstr(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o + "\"";
}

// Bit-exact check of every available path against the matching reference on random inputs.
static std::string self_check() {
  std::ostringstream out;
  out << "[";
  const size_t n = 100003;  // odd, so every tail is exercised
  bool first = true;
  for (SimdPath path : supported_simd_paths()) {
    std::vector<float> p(n), g(n), m(n), v(n);
    for (size_t i = 0; i < n; ++i) {
      p[i] = hash_unit(i, 11);
      g[i] = 0.1f * hash_unit(i, 12);
      m[i] = 0.01f * hash_unit(i, 13);
      v[i] = 0.001f * (hash_unit(i, 14) + 1.0f);
    }
    auto rp = p, rm = m, rv = v;
    AdamHyper h;
    h.weightDecay = 0.01f;
    size_t mismatches = 0;
    for (int step = 1; step <= 3; ++step) {
      const AdamStepConsts c = adam_step_consts(h, step);
      adam_step(path, c, p.data(), g.data(), m.data(), v.data(), n);
      adam_reference(adam_path_is_fused(path), c, rp.data(), g.data(), rm.data(), rv.data(), n);
    }
    for (size_t i = 0; i < n; ++i)
      if (std::memcmp(&p[i], &rp[i], 4) || std::memcmp(&m[i], &rm[i], 4) || std::memcmp(&v[i], &rv[i], 4)) ++mismatches;
    out << (first ? "" : ",") << "{\"path\":" << jstr(simd_path_name(path)) << ",\"elements\":" << n
        << ",\"mismatches\":" << mismatches << "}";
    first = false;
  }
  return out.str() + "]";
}

int main(int argc, char** argv) {
  double budget = 60;
  size_t params = size_t(64) << 20, triadElements = size_t(64) << 20, copyBytes = size_t(1) << 30;
  SimdPath path = best_simd_path();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--budget-seconds") budget = std::stod(v);
    else if (k == "--params") params = std::stoull(v);
    else if (k == "--triad-elements") triadElements = std::stoull(v);
    else if (k == "--copy-bytes") copyBytes = std::stoull(v);
    else if (k == "--path" && !parse_simd_path(v, &path)) { std::fprintf(stderr, "unknown path %s\n", v.c_str()); return 2; }
  }
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  Control control;
  control.progress = [](double f, const std::string& msg) { std::fprintf(stderr, "[%3.0f%%] %s\n", f * 100, msg.c_str()); };

  // The same split of the budget as the service: Adam 60%, triad 15%, copies 25%.
  AdamSweepOptions ao;
  ao.params = params;
  ao.threadCounts = default_thread_counts(cores);
  ao.budgetSeconds = budget * 0.60;
  ao.path = path;
  const AdamSweepResult adam = run_adam_sweep(ao, control);

  TriadOptions to;
  to.elements = triadElements;
  to.threadCounts = {cores};
  if (cores >= 4) to.threadCounts.push_back(cores / 2);
  to.budgetSeconds = budget * 0.15;
  to.path = path;
  const TriadResult tr = run_triad(to, control);

  CopyOptions co;
  co.bytes = copyBytes;
  co.budgetSeconds = budget * 0.25;
  const CopyResult cr = run_host_device_copy(co, control);

  std::ostringstream o;
  o.precision(6);
  o << "{\n \"tool\": \"offload-studio native/tools/driver.cpp\",\n \"logicalCores\": " << cores
    << ",\n \"simdPath\": " << jstr(simd_path_name(path)) << ",\n \"selfCheck\": " << self_check()
    << ",\n \"cpuAdam\": {\"params\": " << adam.params << ", \"truncated\": " << (adam.status.truncated ? "true" : "false")
    << ", \"seconds\": " << adam.status.seconds << ", \"error\": " << jstr(adam.status.error) << ", \"points\": [";
  for (size_t i = 0; i < adam.points.size(); ++i) {
    const auto& p = adam.points[i];
    o << (i ? "," : "") << "\n  {\"threads\": " << p.threads << ", \"paramsPerSecond\": " << p.paramsPerSecond
      << ", \"steps\": " << p.steps << ", \"medianSeconds\": " << p.medianSeconds << ", \"minSeconds\": " << p.minSeconds
      << ", \"maxSeconds\": " << p.maxSeconds << "}";
  }
  o << "]},\n \"memoryBandwidth\": {\"elementsPerArray\": " << tr.elements << ", \"bytesPerSecond\": " << tr.bestBytesPerSecond
    << ", \"threads\": " << tr.bestThreads << ", \"points\": [";
  for (size_t i = 0; i < tr.points.size(); ++i)
    o << (i ? ", " : "") << "{\"threads\": " << tr.points[i].threads << ", \"bytesPerSecond\": " << tr.points[i].bytesPerSecond
      << ", \"rounds\": " << tr.points[i].rounds << "}";
  o << "]},\n \"hostDevice\": {\"available\": " << (cr.available ? "true" : "false") << ", \"reason\": " << jstr(cr.reason)
    << ", \"library\": " << jstr(cr.library) << ", \"runtimeVersion\": " << cr.runtimeVersion
    << ", \"driverVersion\": " << cr.driverVersion << ", \"deviceName\": " << jstr(cr.deviceName)
    << ", \"bytes\": " << cr.bytes << ",\n  \"pinned\": {\"h2dBytesPerSecond\": " << cr.pinned.h2dBytesPerSecond
    << ", \"d2hBytesPerSecond\": " << cr.pinned.d2hBytesPerSecond << "},\n  \"pageable\": {\"h2dBytesPerSecond\": "
    << cr.pageable.h2dBytesPerSecond << ", \"d2hBytesPerSecond\": " << cr.pageable.d2hBytesPerSecond << "}}\n}\n";
  std::fputs(o.str().c_str(), stdout);
  return 0;
}
