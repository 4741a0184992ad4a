#include "cuda_copy.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

#if defined(_WIN32)
#define OSM_NO_DLOPEN 1
#else
#include <dlfcn.h>
#include <sys/stat.h>
#endif

namespace osm {

namespace {

// The few cudart entry points we use, declared by hand (cudaError_t is an int-sized enum and
// 0 is cudaSuccess) so no CUDA header is needed to build.
using cudaError = int;
constexpr int kMemcpyHostToDevice = 1;
constexpr int kMemcpyDeviceToHost = 2;

struct Cudart {
  void* handle = nullptr;
  cudaError (*getDeviceCount)(int*) = nullptr;
  cudaError (*setDevice)(int) = nullptr;
  cudaError (*malloc_)(void**, size_t) = nullptr;
  cudaError (*free_)(void*) = nullptr;
  cudaError (*mallocHost)(void**, size_t) = nullptr;
  cudaError (*freeHost)(void*) = nullptr;
  cudaError (*memcpy_)(void*, const void*, size_t, int) = nullptr;
  cudaError (*deviceSynchronize)() = nullptr;
  cudaError (*runtimeGetVersion)(int*) = nullptr;
  cudaError (*driverGetVersion)(int*) = nullptr;
  const char* (*getErrorString)(cudaError) = nullptr;
  // cudaDeviceProp begins with `char name[256]` in every CUDA version; we read only that.
  cudaError (*getDeviceProperties)(void*, int) = nullptr;

  std::string err(cudaError e) const {
    std::ostringstream s;
    s << (getErrorString ? getErrorString(e) : "error") << " (" << e << ")";
    return s.str();
  }
};

bool is_dir(const std::string& p) {
#ifndef OSM_NO_DLOPEN
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
#else
  (void)p;
  return false;
#endif
}

const char* const kNames[] = {"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"};

void split_into(const char* value, std::vector<std::string>& out) {
  if (!value) return;
  std::string s(value), part;
  std::istringstream in(s);
  while (std::getline(in, part, ':'))
    if (!part.empty()) out.push_back(part);
}

#ifndef OSM_NO_DLOPEN
template <typename F>
bool sym(void* h, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(h, name));
  return out != nullptr;
}
#endif

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::vector<std::string> cudart_candidates(const std::vector<std::string>& extra) {
  // Explicit paths first (the app passes torch's nvidia/*/lib folders from the engine's venv),
  // then the environment, then the loader's own search (LD_LIBRARY_PATH, ld.so.cache), then
  // the usual toolkit folders.
  std::vector<std::string> places = extra;
  split_into(std::getenv("OFFLOAD_STUDIO_CUDART"), places);
  split_into(std::getenv("OFFLOAD_STUDIO_CUDA_LIB_DIRS"), places);
  std::vector<std::string> out;
  for (const auto& p : places) {
    if (is_dir(p)) {
      for (const char* n : kNames) out.push_back(p + "/" + n);
    } else {
      out.push_back(p);
    }
  }
  for (const char* n : kNames) out.push_back(n);
  for (const char* d : {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                        "/usr/local/cuda/targets/sbsa-linux/lib"})
    for (const char* n : kNames) out.push_back(std::string(d) + "/" + n);
  return out;
}

CopyResult run_host_device_copy(const CopyOptions& o, const Control& control) {
  CopyResult r;
  const auto t0 = Clock::now();
#ifdef OSM_NO_DLOPEN
  r.reason = "no CUDA runtime found: loading libcudart is not implemented on this platform";
  return r;
#else
  Cudart cu;
  const auto candidates = cudart_candidates(o.libraryPaths);
  std::string lastError;
  for (const auto& c : candidates) {
    void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      cu.handle = h;
      r.library = c;
      break;
    }
    const char* e = dlerror();
    if (e) lastError = e;
  }
  if (!cu.handle) {
    r.reason = "no CUDA runtime found: libcudart.so not loadable (tried " + std::to_string(candidates.size()) +
               " names and paths; set OFFLOAD_STUDIO_CUDA_LIB_DIRS to a folder holding libcudart.so.*)";
    r.seconds = seconds_since(t0);
    return r;
  }
  void* h = cu.handle;
  if (!sym(h, "cudaGetDeviceCount", cu.getDeviceCount) || !sym(h, "cudaSetDevice", cu.setDevice) ||
      !sym(h, "cudaMalloc", cu.malloc_) || !sym(h, "cudaFree", cu.free_) ||
      !sym(h, "cudaMallocHost", cu.mallocHost) || !sym(h, "cudaFreeHost", cu.freeHost) ||
      !sym(h, "cudaMemcpy", cu.memcpy_) || !sym(h, "cudaDeviceSynchronize", cu.deviceSynchronize) ||
      !sym(h, "cudaGetErrorString", cu.getErrorString)) {
    r.reason = "CUDA runtime " + r.library + " lacks an expected function";
    return r;  // the handle stays loaded: unloading cudart mid-process is not safe
  }
  sym(h, "cudaRuntimeGetVersion", cu.runtimeGetVersion);
  sym(h, "cudaDriverGetVersion", cu.driverGetVersion);
  if (!sym(h, "cudaGetDeviceProperties_v2", cu.getDeviceProperties)) sym(h, "cudaGetDeviceProperties", cu.getDeviceProperties);
  if (cu.runtimeGetVersion) cu.runtimeGetVersion(&r.runtimeVersion);
  if (cu.driverGetVersion) cu.driverGetVersion(&r.driverVersion);

  int count = 0;
  cudaError e = cu.getDeviceCount(&count);
  if (e != 0 || count == 0) {
    r.reason = "CUDA runtime " + r.library + " loaded but no usable GPU: " + (e != 0 ? cu.err(e) : "0 devices");
    return r;
  }
  if (o.device < 0 || o.device >= count) {
    r.reason = "GPU " + std::to_string(o.device) + " not present (" + std::to_string(count) + " device(s))";
    return r;
  }
  if ((e = cu.setDevice(o.device)) != 0) {
    r.reason = "cudaSetDevice failed: " + cu.err(e);
    return r;
  }
  if (cu.getDeviceProperties) {
    std::vector<char> props(16384, 0);  // larger than any cudaDeviceProp
    if (cu.getDeviceProperties(props.data(), o.device) == 0) r.deviceName.assign(props.data(), strnlen(props.data(), 256));
  }

  r.bytes = o.bytes;
  void* dev = nullptr;
  void* pinned = nullptr;
  if ((e = cu.malloc_(&dev, o.bytes)) != 0) {
    r.reason = "cudaMalloc of " + std::to_string(o.bytes >> 20) + " MiB failed: " + cu.err(e);
    return r;
  }
  if ((e = cu.mallocHost(&pinned, o.bytes)) != 0) {
    cu.free_(dev);
    r.reason = "cudaMallocHost (pinned) of " + std::to_string(o.bytes >> 20) + " MiB failed: " + cu.err(e);
    return r;
  }
  char* pageable = static_cast<char*>(std::malloc(o.bytes));
  if (!pageable) {
    cu.freeHost(pinned);
    cu.free_(dev);
    r.reason = "out of host memory for the pageable buffer";
    return r;
  }
  std::memset(pageable, 1, o.bytes);  // touch every page, so the copy does not time page faults
  std::memset(pinned, 1, o.bytes);

  // Four figures, each given a quarter of the budget: warm-up copy, then timed copies.
  struct Case { const char* name; bool isPinned; int kind; double* out; };
  Case cases[] = {{"pinned H2D", true, kMemcpyHostToDevice, &r.pinned.h2dBytesPerSecond},
                  {"pinned D2H", true, kMemcpyDeviceToHost, &r.pinned.d2hBytesPerSecond},
                  {"pageable H2D", false, kMemcpyHostToDevice, &r.pageable.h2dBytesPerSecond},
                  {"pageable D2H", false, kMemcpyDeviceToHost, &r.pageable.d2hBytesPerSecond}};
  std::string failure;
  for (int k = 0; k < 4 && failure.empty(); ++k) {
    const Case& c = cases[k];
    void* host = c.isPinned ? pinned : static_cast<void*>(pageable);
    const double sliceEnd = o.budgetSeconds * (k + 1) / 4.0;
    std::vector<double> times;
    for (int rep = -1; rep < o.maxReps; ++rep) {
      if (control.cancelled()) break;
      const double now = seconds_since(t0);
      if (rep >= o.minReps && now >= sliceEnd) break;
      if (now >= o.budgetSeconds && rep >= 1) break;  // hard stop, keeping at least one timed copy
      const auto s = Clock::now();
      e = c.kind == kMemcpyHostToDevice ? cu.memcpy_(dev, host, o.bytes, c.kind) : cu.memcpy_(host, dev, o.bytes, c.kind);
      if (e == 0) e = cu.deviceSynchronize();
      if (e != 0) {
        failure = std::string(c.name) + " copy failed: " + cu.err(e);
        break;
      }
      if (rep >= 0) times.push_back(seconds_since(s));
    }
    if (control.cancelled()) break;
    if (!times.empty()) *c.out = static_cast<double>(o.bytes) / median(times);
    std::ostringstream msg;
    msg.precision(3);
    msg << "host-device copy: " << c.name << " " << *c.out / 1e9 << " GB/s";
    control.report((k + 1) / 4.0, msg.str());
  }
  std::free(pageable);
  cu.freeHost(pinned);
  cu.free_(dev);
  r.cancelled = control.cancelled();
  r.seconds = seconds_since(t0);
  if (!failure.empty()) r.reason = failure;
  else if (r.cancelled) r.reason = "cancelled";
  else r.available = true;
  return r;
#endif
}

}  // namespace osm
