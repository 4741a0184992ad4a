// A team of T threads that each own one contiguous chunk of the arrays (the layout DeepSpeed's
// OpenMP loop uses) and run in lock-step rounds: a round is one optimizer step or one triad
// pass. Threads are created once per team, not per round, so a round measures the kernel and
// not thread start-up.
#pragma once
#include <barrier>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace osm {

struct Chunk {
  size_t begin, end;
};

/** Splits [0, n) into `parts` contiguous chunks, each starting on a multiple of `align`. */
inline Chunk chunk_of(size_t n, int parts, int index, size_t align = 64) {
  const size_t units = (n + align - 1) / align;
  const size_t base = units / parts, extra = units % parts;
  const size_t i = static_cast<size_t>(index);
  size_t begin = (i * base + (i < extra ? i : extra)) * align;
  size_t end = begin + (base + (i < extra ? 1 : 0)) * align;
  if (begin > n) begin = n;
  if (end > n) end = n;
  return {begin, end};
}

/**
 * Runs rounds on `threads` threads until `next_round` (called on thread 0 between rounds, with
 * every other thread parked at the barrier) returns false. `work(tid)` is one thread's share of
 * a round. Thread 0 is the calling thread.
 */
inline void run_team(int threads, const std::function<bool()>& next_round,
                     const std::function<void(int)>& work) {
  std::barrier sync(threads);
  bool go = true;  // written by thread 0 only while the others wait at the barrier
  auto body = [&](int tid) {
    for (;;) {
      if (tid == 0) go = next_round();
      sync.arrive_and_wait();  // round start: everyone sees `go`
      if (!go) return;
      work(tid);
      sync.arrive_and_wait();  // round end
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads > 0 ? threads - 1 : 0));
  for (int t = 1; t < threads; ++t) pool.emplace_back(body, t);
  body(0);
  for (auto& th : pool) th.join();
}

}  // namespace osm
