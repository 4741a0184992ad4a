#include "measure_cpu.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <set>
#include <sstream>

#include "adam_kernels.h"
#include "buffers.h"
#include "team.h"
#include "triad.h"

namespace osm {

namespace {

// Work is done in blocks so that cancel and the hard deadline are seen within a few ms even
// when one full step over 1 GiB takes a second on a slow machine.
constexpr size_t kBlock = size_t(1) << 18;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string fmt_rate(double perSecond, const char* unit) {
  std::ostringstream s;
  s.precision(3);
  s << perSecond / 1e9 << " G" << unit << "/s";
  return s.str();
}

/**
 * Runs rounds of `work` on `threads` threads: one warm-up round, then at least minRounds and at
 * most maxRounds measured ones, stopping once `sliceEnd` is passed (soft) and aborting a round
 * in flight at `hardEnd` or on cancel (the aborted round is not counted). Returns the measured
 * round times. With guaranteeOne (the first thread count of a sweep) the hard end waits for one
 * measured round: a budget too short for a single step still yields one figure, late, rather
 * than none; only cancel stops it sooner. `work` must use the same rule (see work_deadline).
 */
std::vector<double> timed_rounds(int threads, int minRounds, int maxRounds, Clock::time_point sliceEnd,
                                 Clock::time_point hardEnd, bool guaranteeOne, const Control& control,
                                 std::atomic<bool>& abort, const std::function<void(int tid)>& work) {
  std::vector<double> times;
  int round = -1;  // -1 = the warm-up round
  Clock::time_point roundStart;
  abort.store(false);
  run_team(
      threads,
      [&]() {
        const auto now = Clock::now();
        if (round >= 0 && !abort.load()) {
          if (round > 0) times.push_back(std::chrono::duration<double>(now - roundStart).count());
        }
        const int measured = static_cast<int>(times.size());
        if (abort.load() || control.cancelled()) return false;
        if (now >= hardEnd && (!guaranteeOne || measured >= 1)) return false;
        if (round >= 0 && measured >= maxRounds) return false;
        if (round >= 0 && measured >= minRounds && now >= sliceEnd) return false;
        ++round;
        roundStart = Clock::now();
        return true;
      },
      work);
  return times;
}

/** True when a thread should stop its share of the round now. */
inline bool should_abort(const Control& control, std::atomic<bool>& abort, Clock::time_point hardEnd) {
  if (abort.load(std::memory_order_relaxed)) return true;
  if (control.cancelled() || Clock::now() >= hardEnd) {
    abort.store(true);
    return true;
  }
  return false;
}

}  // namespace

std::vector<int> default_thread_counts(int n) {
  std::set<int> counts;
  for (int p = 1; p <= n; p *= 2) {
    counts.insert(p);
    if (3 * p / 2 <= n && p >= 2) counts.insert(3 * p / 2);
  }
  if (n >= 1) counts.insert(n);
  return {counts.begin(), counts.end()};
}

AdamSweepResult run_adam_sweep(const AdamSweepOptions& o, const Control& control) {
  AdamSweepResult result;
  result.path = o.path;
  result.params = o.params;
  const auto t0 = Clock::now();
  const auto hardEnd = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.budgetSeconds));
  int maxThreads = 1;
  for (int t : o.threadCounts) maxThreads = std::max(maxThreads, t);

  FloatBuffer p = alloc_floats(o.params), g = alloc_floats(o.params), m = alloc_floats(o.params),
              v = alloc_floats(o.params);
  if (!p || !g || !m || !v) {
    result.status.error = "not enough memory for " + std::to_string(o.params) + " params (" +
                          std::to_string(o.params * 16 >> 20) + " MiB)";
    return result;
  }
  control.report(0.0, "CPU Adam: filling " + std::to_string(o.params * 16 >> 20) + " MiB of optimizer state");
  // First touch in parallel, so pages land spread over the NUMA nodes the threads run on.
  {
    bool once = true;
    run_team(
        maxThreads, [&]() { bool r = once; once = false; return r; },
        [&](int tid) {
          const Chunk ch = chunk_of(o.params, maxThreads, tid);
          for (size_t i = ch.begin; i < ch.end; ++i) {
            if (i % kBlock == 0 && control.cancelled()) return;  // filling 1 GiB takes a while
            p[i] = 0.1f * hash_unit(i, 1);
            g[i] = 0.01f * hash_unit(i, 2);
            m[i] = 0.0f;
            v[i] = 0.0f;
          }
        });
  }

  AdamHyper hyper;
  hyper.weightDecay = 0.01f;
  // Fixed step constants: the values differ from step to step but the work does not, and
  // updating shared constants while the team runs would be a data race.
  const AdamStepConsts consts = adam_step_consts(hyper, 10);
  std::atomic<bool> abort{false};

  const size_t counts = o.threadCounts.size();
  for (size_t k = 0; k < counts; ++k) {
    const int threads = o.threadCounts[k];
    const double left = o.budgetSeconds - seconds_since(t0);
    if ((left <= 0 && !result.points.empty()) || control.cancelled()) {
      result.status.truncated = !control.cancelled();
      break;
    }
    // Budget left is shared evenly by the counts still to measure, so a fast early count
    // leaves its unused time to the later (slower to converge) ones.
    const auto sliceEnd = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(std::max(0.0, left) / static_cast<double>(counts - k)));
    const bool first = result.points.empty();
    const auto workEnd = first ? Clock::time_point::max() : hardEnd;
    std::vector<double> times = timed_rounds(
        threads, o.minSteps, o.maxSteps, sliceEnd, hardEnd, first, control, abort, [&](int tid) {
          const Chunk ch = chunk_of(o.params, threads, tid);
          for (size_t b = ch.begin; b < ch.end; b += kBlock) {
            if (should_abort(control, abort, workEnd)) return;
            const size_t e = std::min(ch.end, b + kBlock);
            adam_step(o.path, consts, p.get() + b, g.get() + b, m.get() + b, v.get() + b, e - b);
          }
        });
    if (times.empty()) {
      result.status.truncated = !control.cancelled();
      break;
    }
    const double med = median(times);
    AdamSweepPoint pt{threads, static_cast<int>(times.size()), med,
                      *std::min_element(times.begin(), times.end()),
                      *std::max_element(times.begin(), times.end()), static_cast<double>(o.params) / med};
    result.points.push_back(pt);
    control.report(static_cast<double>(k + 1) / static_cast<double>(counts),
                   "CPU Adam: " + std::to_string(threads) + " thread(s), " + fmt_rate(pt.paramsPerSecond, "params"));
  }
  result.status.cancelled = control.cancelled();
  result.status.seconds = seconds_since(t0);
  return result;
}

TriadResult run_triad(const TriadOptions& o, const Control& control) {
  TriadResult result;
  result.elements = o.elements;
  const auto t0 = Clock::now();
  const auto hardEnd = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.budgetSeconds));
  int maxThreads = 1;
  for (int t : o.threadCounts) maxThreads = std::max(maxThreads, t);
  FloatBuffer a = alloc_floats(o.elements), b = alloc_floats(o.elements), c = alloc_floats(o.elements);
  if (!a || !b || !c) {
    result.status.error = "not enough memory for triad arrays (" + std::to_string(o.elements * 12 >> 20) + " MiB)";
    return result;
  }
  {
    bool once = true;
    run_team(
        maxThreads, [&]() { bool r = once; once = false; return r; },
        [&](int tid) {
          const Chunk ch = chunk_of(o.elements, maxThreads, tid);
          for (size_t i = ch.begin; i < ch.end; ++i) {
            if (i % kBlock == 0 && control.cancelled()) return;
            a[i] = 0.0f;
            b[i] = hash_unit(i, 3);
            c[i] = hash_unit(i, 4);
          }
        });
  }
  std::atomic<bool> abort{false};
  const size_t counts = o.threadCounts.size();
  for (size_t k = 0; k < counts; ++k) {
    const int threads = o.threadCounts[k];
    const double left = o.budgetSeconds - seconds_since(t0);
    if ((left <= 0 && !result.points.empty()) || control.cancelled()) {
      result.status.truncated = !control.cancelled();
      break;
    }
    const auto sliceEnd = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(std::max(0.0, left) / static_cast<double>(counts - k)));
    const bool first = result.points.empty();
    const auto workEnd = first ? Clock::time_point::max() : hardEnd;
    std::vector<double> times = timed_rounds(threads, o.minRounds, o.maxRounds, sliceEnd, hardEnd, first, control, abort,
                                             [&](int tid) {
                                               const Chunk ch = chunk_of(o.elements, threads, tid);
                                               for (size_t i = ch.begin; i < ch.end; i += kBlock) {
                                                 if (should_abort(control, abort, workEnd)) return;
                                                 const size_t e = std::min(ch.end, i + kBlock);
                                                 triad(o.path, a.get() + i, b.get() + i, c.get() + i, 0.5f, e - i);
                                               }
                                             });
    if (times.empty()) {
      result.status.truncated = !control.cancelled();
      break;
    }
    const double bps = 12.0 * static_cast<double>(o.elements) / median(times);
    result.points.push_back({threads, static_cast<int>(times.size()), bps});
    if (bps > result.bestBytesPerSecond) {
      result.bestBytesPerSecond = bps;
      result.bestThreads = threads;
    }
    control.report(static_cast<double>(k + 1) / static_cast<double>(counts),
                   "memory bandwidth: " + std::to_string(threads) + " thread(s), " + fmt_rate(bps, "B"));
  }
  result.status.cancelled = control.cancelled();
  result.status.seconds = seconds_since(t0);
  return result;
}

}  // namespace osm
