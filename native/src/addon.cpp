// The N-API face of the measurements. Only N-API (through node-addon-api) is used, which is
// ABI-stable: one build loads in Node and in Electron. Long measurements run on the libuv
// thread pool (AsyncProgressQueueWorker), return a Promise, stream progress to a JS callback,
// and stop early when their CancelToken is cancelled; the event loop is never blocked.
#include <napi.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "adam_kernels.h"
#include "cuda_copy.h"
#include "measure_cpu.h"
#include "simd_path.h"

using namespace osm;

namespace {

// ---------- helpers ----------

double num_or(const Napi::Object& o, const char* key, double fallback) {
  if (!o.Has(key)) return fallback;
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : fallback;
}

SimdPath path_or_best(Napi::Env env, const Napi::Object& o) {
  if (!o.Has("path") || o.Get("path").IsUndefined() || o.Get("path").IsNull()) return best_simd_path();
  SimdPath p;
  const std::string name = o.Get("path").As<Napi::String>().Utf8Value();
  if (!parse_simd_path(name, &p)) throw Napi::TypeError::New(env, "unknown SIMD path '" + name + "'");
  if (!simd_path_supported(p)) throw Napi::Error::New(env, "SIMD path '" + name + "' is not supported on this CPU");
  return p;
}

std::vector<int> int_list(const Napi::Object& o, const char* key) {
  std::vector<int> out;
  if (!o.Has(key) || !o.Get(key).IsArray()) return out;
  Napi::Array a = o.Get(key).As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); ++i) {
    const int t = a.Get(i).As<Napi::Number>().Int32Value();
    if (t >= 1) out.push_back(t);
  }
  return out;
}

std::vector<std::string> string_list(const Napi::Object& o, const char* key) {
  std::vector<std::string> out;
  if (!o.Has(key) || !o.Get(key).IsArray()) return out;
  Napi::Array a = o.Get(key).As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); ++i) out.push_back(a.Get(i).As<Napi::String>().Utf8Value());
  return out;
}

Napi::Object status_object(Napi::Env env, const SweepStatus& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("cancelled", s.cancelled);
  o.Set("truncated", s.truncated);
  o.Set("seconds", s.seconds);
  o.Set("error", s.error.empty() ? env.Null() : Napi::String::New(env, s.error));
  return o;
}

// ---------- cancel token ----------

class CancelToken : public Napi::ObjectWrap<CancelToken> {
 public:
  static Napi::FunctionReference* ctor;
  static Napi::Function Init(Napi::Env env) {
    Napi::Function f = DefineClass(env, "CancelToken",
                                   {InstanceMethod("cancel", &CancelToken::Cancel),
                                    InstanceAccessor("cancelled", &CancelToken::Cancelled, nullptr)});
    ctor = new Napi::FunctionReference(Napi::Persistent(f));
    return f;
  }
  explicit CancelToken(const Napi::CallbackInfo& info)
      : Napi::ObjectWrap<CancelToken>(info), flag(std::make_shared<std::atomic<bool>>(false)) {}
  // Shared with the workers, so the flag outlives whichever side lets go first.
  std::shared_ptr<std::atomic<bool>> flag;

 private:
  Napi::Value Cancel(const Napi::CallbackInfo& info) {
    flag->store(true);
    return info.Env().Undefined();
  }
  Napi::Value Cancelled(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), flag->load()); }
};
Napi::FunctionReference* CancelToken::ctor = nullptr;

std::shared_ptr<std::atomic<bool>> token_flag(const Napi::Value& v) {
  if (v.IsObject() && v.As<Napi::Object>().InstanceOf(CancelToken::ctor->Value()))
    return CancelToken::Unwrap(v.As<Napi::Object>())->flag;
  return std::make_shared<std::atomic<bool>>(false);  // no token: cannot be cancelled
}

// ---------- the worker: runs one measurement off the JS thread ----------

struct ProgressItem {
  double fraction;
  char message[200];
};

class MeasureWorker : public Napi::AsyncProgressQueueWorker<ProgressItem> {
 public:
  MeasureWorker(Napi::Env env, std::shared_ptr<std::atomic<bool>> flag, Napi::Value onProgress)
      : Napi::AsyncProgressQueueWorker<ProgressItem>(env, "offload-studio-measure"),
        deferred_(Napi::Promise::Deferred::New(env)),
        flag_(std::move(flag)) {
    if (onProgress.IsFunction()) onProgress_ = Napi::Persistent(onProgress.As<Napi::Function>());
  }
  Napi::Promise Promise() { return deferred_.Promise(); }

 protected:
  virtual void Measure(const Control& control) = 0;
  virtual Napi::Value Result(Napi::Env env) = 0;

  void Execute(const ExecutionProgress& progress) override {
    Control control;
    control.cancel = flag_.get();
    control.progress = [&progress](double f, const std::string& msg) {
      ProgressItem item{};
      item.fraction = f;
      snprintf(item.message, sizeof item.message, "%s", msg.c_str());
      progress.Send(&item, 1);
    };
    try {
      Measure(control);
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnProgress(const ProgressItem* items, size_t count) override {
    if (onProgress_.IsEmpty()) return;
    Napi::HandleScope scope(Env());
    for (size_t i = 0; i < count; ++i)
      onProgress_.Call({Napi::Number::New(Env(), items[i].fraction), Napi::String::New(Env(), items[i].message)});
  }
  void OnOK() override { deferred_.Resolve(Result(Env())); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<std::atomic<bool>> flag_;
  Napi::FunctionReference onProgress_;
};

class AdamSweepWorker : public MeasureWorker {
 public:
  AdamSweepWorker(Napi::Env env, AdamSweepOptions o, std::shared_ptr<std::atomic<bool>> f, Napi::Value cb)
      : MeasureWorker(env, std::move(f), cb), options_(std::move(o)) {}

 protected:
  void Measure(const Control& c) override { result_ = run_adam_sweep(options_, c); }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object o = Napi::Object::New(env);
    o.Set("path", simd_path_name(result_.path));
    o.Set("params", static_cast<double>(result_.params));
    Napi::Array pts = Napi::Array::New(env, result_.points.size());
    for (size_t i = 0; i < result_.points.size(); ++i) {
      const auto& p = result_.points[i];
      Napi::Object e = Napi::Object::New(env);
      e.Set("threads", p.threads);
      e.Set("steps", p.steps);
      e.Set("medianSeconds", p.medianSeconds);
      e.Set("minSeconds", p.minSeconds);
      e.Set("maxSeconds", p.maxSeconds);
      e.Set("paramsPerSecond", p.paramsPerSecond);
      pts.Set(static_cast<uint32_t>(i), e);
    }
    o.Set("points", pts);
    o.Set("status", status_object(env, result_.status));
    return o;
  }

 private:
  AdamSweepOptions options_;
  AdamSweepResult result_;
};

class TriadWorker : public MeasureWorker {
 public:
  TriadWorker(Napi::Env env, TriadOptions o, std::shared_ptr<std::atomic<bool>> f, Napi::Value cb)
      : MeasureWorker(env, std::move(f), cb), options_(std::move(o)) {}

 protected:
  void Measure(const Control& c) override { result_ = run_triad(options_, c); }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object o = Napi::Object::New(env);
    o.Set("elements", static_cast<double>(result_.elements));
    o.Set("bytesPerSecond", result_.bestBytesPerSecond);
    o.Set("threads", result_.bestThreads);
    Napi::Array pts = Napi::Array::New(env, result_.points.size());
    for (size_t i = 0; i < result_.points.size(); ++i) {
      Napi::Object e = Napi::Object::New(env);
      e.Set("threads", result_.points[i].threads);
      e.Set("rounds", result_.points[i].rounds);
      e.Set("bytesPerSecond", result_.points[i].bytesPerSecond);
      pts.Set(static_cast<uint32_t>(i), e);
    }
    o.Set("points", pts);
    o.Set("status", status_object(env, result_.status));
    return o;
  }

 private:
  TriadOptions options_;
  TriadResult result_;
};

class CopyWorker : public MeasureWorker {
 public:
  CopyWorker(Napi::Env env, CopyOptions o, std::shared_ptr<std::atomic<bool>> f, Napi::Value cb)
      : MeasureWorker(env, std::move(f), cb), options_(std::move(o)) {}

 protected:
  void Measure(const Control& c) override { result_ = run_host_device_copy(options_, c); }
  Napi::Value Result(Napi::Env env) override {
    auto pair = [&](const CopyPair& p) {
      Napi::Object o = Napi::Object::New(env);
      o.Set("h2dBytesPerSecond", p.h2dBytesPerSecond);
      o.Set("d2hBytesPerSecond", p.d2hBytesPerSecond);
      return o;
    };
    Napi::Object o = Napi::Object::New(env);
    o.Set("available", result_.available);
    o.Set("reason", result_.reason.empty() ? env.Null() : Napi::String::New(env, result_.reason));
    o.Set("library", result_.library.empty() ? env.Null() : Napi::String::New(env, result_.library));
    o.Set("runtimeVersion", result_.runtimeVersion);
    o.Set("driverVersion", result_.driverVersion);
    o.Set("deviceName", result_.deviceName.empty() ? env.Null() : Napi::String::New(env, result_.deviceName));
    o.Set("bytes", static_cast<double>(result_.bytes));
    o.Set("pinned", pair(result_.pinned));
    o.Set("pageable", pair(result_.pageable));
    o.Set("cancelled", result_.cancelled);
    o.Set("seconds", result_.seconds);
    return o;
  }

 private:
  CopyOptions options_;
  CopyResult result_;
};

// ---------- exported functions ----------

Napi::Object opts_arg(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(info.Env(), "options object expected");
  return info[0].As<Napi::Object>();
}

// cpuAdamSweep({params, threadCounts, budgetSeconds, path?}, token?, onProgress?) -> Promise
Napi::Value CpuAdamSweep(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = opts_arg(info);
  AdamSweepOptions a;
  a.params = static_cast<size_t>(num_or(o, "params", static_cast<double>(a.params)));
  a.threadCounts = int_list(o, "threadCounts");
  if (a.threadCounts.empty()) a.threadCounts = default_thread_counts(static_cast<int>(std::thread::hardware_concurrency()));
  a.budgetSeconds = num_or(o, "budgetSeconds", a.budgetSeconds);
  a.minSteps = static_cast<int>(num_or(o, "minSteps", a.minSteps));
  a.maxSteps = static_cast<int>(num_or(o, "maxSteps", a.maxSteps));
  a.path = path_or_best(env, o);
  if (a.params < 1024) throw Napi::RangeError::New(env, "params must be at least 1024");
  auto* w = new AdamSweepWorker(env, a, token_flag(info[1]), info[2]);
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

// memoryBandwidth({elements, threadCounts, budgetSeconds, path?}, token?, onProgress?) -> Promise
Napi::Value MemoryBandwidth(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = opts_arg(info);
  TriadOptions t;
  t.elements = static_cast<size_t>(num_or(o, "elements", static_cast<double>(t.elements)));
  t.threadCounts = int_list(o, "threadCounts");
  if (t.threadCounts.empty()) t.threadCounts = {static_cast<int>(std::thread::hardware_concurrency())};
  t.budgetSeconds = num_or(o, "budgetSeconds", t.budgetSeconds);
  t.path = path_or_best(env, o);
  if (t.elements < 1024) throw Napi::RangeError::New(env, "elements must be at least 1024");
  auto* w = new TriadWorker(env, t, token_flag(info[1]), info[2]);
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

// hostDeviceCopy({bytes, budgetSeconds, device?, libraryPaths?}, token?, onProgress?) -> Promise
Napi::Value HostDeviceCopy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = opts_arg(info);
  CopyOptions c;
  c.bytes = static_cast<size_t>(num_or(o, "bytes", static_cast<double>(c.bytes)));
  c.budgetSeconds = num_or(o, "budgetSeconds", c.budgetSeconds);
  c.device = static_cast<int>(num_or(o, "device", 0));
  c.libraryPaths = string_list(o, "libraryPaths");
  auto* w = new CopyWorker(env, c, token_flag(info[1]), info[2]);
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

AdamStepConsts consts_arg(const Napi::Object& o, int64_t* stepOut) {
  AdamHyper h;
  h.lr = static_cast<float>(num_or(o, "lr", h.lr));
  h.beta1 = static_cast<float>(num_or(o, "beta1", h.beta1));
  h.beta2 = static_cast<float>(num_or(o, "beta2", h.beta2));
  h.eps = static_cast<float>(num_or(o, "eps", h.eps));
  h.weightDecay = static_cast<float>(num_or(o, "weightDecay", h.weightDecay));
  if (o.Has("adamw")) h.adamw = o.Get("adamw").ToBoolean();
  if (o.Has("biasCorrection")) h.biasCorrection = o.Get("biasCorrection").ToBoolean();
  const int64_t step = static_cast<int64_t>(num_or(o, "step", 1));
  if (stepOut) *stepOut = step;
  return adam_step_consts(h, step);
}

Napi::Float32Array f32_arg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (info.Length() <= i || !info[i].IsTypedArray() ||
      info[i].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a Float32Array");
  return info[i].As<Napi::Float32Array>();
}

// adamStep(hyper & {step, path?, threads?, reference?: 'fused'|'unfused'}, p, g, m, v): in place,
// synchronous. For tests on small arrays: runs the chosen path (or the reference) so its
// numbers can be compared; `threads` splits the arrays into chunks as the benchmark does.
Napi::Value AdamStep(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = opts_arg(info);
  const AdamStepConsts c = consts_arg(o, nullptr);
  Napi::Float32Array p = f32_arg(info, 1, "param"), g = f32_arg(info, 2, "grad"), m = f32_arg(info, 3, "expAvg"),
                     v = f32_arg(info, 4, "expAvgSq");
  const size_t n = p.ElementLength();
  if (g.ElementLength() != n || m.ElementLength() != n || v.ElementLength() != n)
    throw Napi::RangeError::New(env, "param, grad, expAvg and expAvgSq must have the same length");
  if (o.Has("reference") && o.Get("reference").IsString()) {
    const std::string ref = o.Get("reference").As<Napi::String>().Utf8Value();
    adam_reference(ref == "fused", c, p.Data(), g.Data(), m.Data(), v.Data(), n);
    return env.Undefined();
  }
  const SimdPath path = path_or_best(env, o);
  const int threads = std::max(1, static_cast<int>(num_or(o, "threads", 1)));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const size_t b = n * t / threads, e = n * (t + 1) / threads;  // uneven on purpose: odd tails
    pool.emplace_back([&, b, e] { adam_step(path, c, p.Data() + b, g.Data() + b, m.Data() + b, v.Data() + b, e - b); });
  }
  for (auto& th : pool) th.join();
  return env.Undefined();
}

// adamStepConsts(hyper & {step}) -> the per-step scalars, so a JS reference uses the same ones.
Napi::Value AdamStepConstsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const AdamStepConsts c = consts_arg(opts_arg(info), nullptr);
  Napi::Object o = Napi::Object::New(env);
  o.Set("beta1", c.beta1);
  o.Set("beta2", c.beta2);
  o.Set("oneMinusBeta1", c.oneMinusBeta1);
  o.Set("oneMinusBeta2", c.oneMinusBeta2);
  o.Set("eps", c.eps);
  o.Set("stepSize", c.stepSize);
  o.Set("biasCorrection2", c.biasCorrection2);
  o.Set("decay", c.decay);
  o.Set("hasDecay", c.hasDecay);
  o.Set("adamw", c.adamw);
  return o;
}

Napi::Value SimdPaths(const Napi::CallbackInfo& info) {
  const auto paths = supported_simd_paths();
  Napi::Array a = Napi::Array::New(info.Env(), paths.size());
  for (size_t i = 0; i < paths.size(); ++i) a.Set(static_cast<uint32_t>(i), simd_path_name(paths[i]));
  return a;
}

Napi::Value DefaultThreadCounts(const Napi::CallbackInfo& info) {
  const int n = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value()
                                                        : static_cast<int>(std::thread::hardware_concurrency());
  const auto counts = default_thread_counts(n);
  Napi::Array a = Napi::Array::New(info.Env(), counts.size());
  for (size_t i = 0; i < counts.size(); ++i) a.Set(static_cast<uint32_t>(i), counts[i]);
  return a;
}

Napi::Value CudartCandidates(const Napi::CallbackInfo& info) {
  std::vector<std::string> extra;
  if (info.Length() > 0 && info[0].IsArray()) {
    Napi::Array a = info[0].As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); ++i) extra.push_back(a.Get(i).As<Napi::String>().Utf8Value());
  }
  const auto c = cudart_candidates(extra);
  Napi::Array a = Napi::Array::New(info.Env(), c.size());
  for (size_t i = 0; i < c.size(); ++i) a.Set(static_cast<uint32_t>(i), c[i]);
  return a;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("CancelToken", CancelToken::Init(env));
  exports.Set("cpuAdamSweep", Napi::Function::New(env, CpuAdamSweep));
  exports.Set("memoryBandwidth", Napi::Function::New(env, MemoryBandwidth));
  exports.Set("hostDeviceCopy", Napi::Function::New(env, HostDeviceCopy));
  exports.Set("adamStep", Napi::Function::New(env, AdamStep));
  exports.Set("adamStepConsts", Napi::Function::New(env, AdamStepConstsJs));
  exports.Set("simdPaths", Napi::Function::New(env, SimdPaths));
  exports.Set("bestSimdPath", Napi::String::New(env, simd_path_name(best_simd_path())));
  exports.Set("defaultThreadCounts", Napi::Function::New(env, DefaultThreadCounts));
  exports.Set("cudartCandidates", Napi::Function::New(env, CudartCandidates));
  exports.Set("logicalCores", Napi::Number::New(env, std::thread::hardware_concurrency()));
  exports.Set("abiVersion", Napi::Number::New(env, 1));
  return exports;
}

}  // namespace

NODE_API_MODULE(offload_studio_native, Init)
