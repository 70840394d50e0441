// SPDX-License-Identifier: Apache-2.0
/// @file alloc_counter.hpp
/// Heap accounting for the benchmark binaries: `alloc_counter.cpp` replaces the global
/// `operator new`/`delete` and, while counting is on, tracks the bytes live on the heap and their
/// peak (usable sizes as glibc reports them, so allocator rounding is included).
///
///     const auto peak = tile2buffer::bench::peak_heap_bytes([&] { return run(); });
///
/// Counting is off by default so timed iterations pay only one relaxed load per allocation.
#pragma once

#include <cstdint>
#include <utility>

namespace tile2buffer {
namespace bench {

void heap_counting(bool on) noexcept;
/// Bytes live on the heap (allocated while counting was on and not yet freed).
std::int64_t heap_live() noexcept;
/// Highest `heap_live()` since the last `heap_reset_peak()`.
std::int64_t heap_peak() noexcept;
void heap_reset_peak() noexcept;
/// Allocations made while counting was on, since the process started.
std::int64_t heap_allocations() noexcept;

/// Peak heap bytes above the level at the call while `fn()` runs, including its result until the
/// result is destroyed (the caller's inputs already exist and are not counted).
template <class Fn>
std::int64_t peak_heap_bytes(Fn&& fn) {
  heap_counting(true);
  heap_reset_peak();
  const std::int64_t base = heap_live();
  {
    auto r = std::forward<Fn>(fn)();
    static_cast<void>(r);
  }
  const std::int64_t peak = heap_peak() - base;
  heap_counting(false);
  return peak;
}

}  // namespace bench
}  // namespace tile2buffer
