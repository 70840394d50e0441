// SPDX-License-Identifier: Apache-2.0
/// @file detail/threads.hpp
/// The three thread primitives the parallel pipeline needs, on POSIX threads. Why not <thread>
/// and <atomic>: together they add about 0.3 s to every translation unit that includes
/// lower.hpp (issue 14's include budget is 3 s), and the pipeline needs only "run this on N
/// threads and wait" and a shared counter.
#pragma once

#include <pthread.h>
#include <unistd.h>

#include <cstddef>
#include <vector>

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Hardware threads online (at least 1).
inline unsigned hardware_threads() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 1u;
}

/// Takes the next index of a shared counter (relaxed: it only hands out work items).
inline std::size_t take_next(std::size_t& counter) { return __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED); }

template <class Work>
void* run_work(void* work) {
  (*static_cast<Work*>(work))();
  return nullptr;
}

/// Runs `work()` on `threads` threads, the caller's included, and returns when every one has
/// finished. A thread that cannot be started leaves its share to the others (the work must
/// take its items from a shared counter).
template <class Work>
void run_on_threads(unsigned threads, Work& work) {
  std::vector<pthread_t> started;
  started.reserve(threads);
  for (unsigned i = 1; i < threads; ++i) {
    pthread_t t{};
    if (pthread_create(&t, nullptr, &run_work<Work>, &work) != 0) break;
    started.push_back(t);
  }
  work();
  for (const pthread_t t : started) pthread_join(t, nullptr);
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
