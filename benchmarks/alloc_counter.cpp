// SPDX-License-Identifier: Apache-2.0
/// @file alloc_counter.cpp
/// Replacement global allocation functions that feed `alloc_counter.hpp`. Why usable sizes and not
/// the requested ones: unsized `operator delete` does not say how much it frees, and the usable
/// size is what the process really holds.
#include "alloc_counter.hpp"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace tile2buffer {
namespace bench {
namespace {
std::atomic<bool> counting{false};
std::atomic<std::int64_t> live{0};
std::atomic<std::int64_t> peak{0};
std::atomic<std::int64_t> calls{0};

void* allocate(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  if (counting.load(std::memory_order_relaxed)) {
    calls.fetch_add(1, std::memory_order_relaxed);
    const auto now = live.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed) +
                     static_cast<std::int64_t>(malloc_usable_size(p));
    auto old = peak.load(std::memory_order_relaxed);
    while (now > old && !peak.compare_exchange_weak(old, now, std::memory_order_relaxed)) {
    }
  }
  return p;
}
void release(void* p) noexcept {
  if (p == nullptr) return;
  // Why unconditional when counting is on: a block allocated before counting started is
  // subtracted too, which can only make `live` lower; peaks are taken relative to the start.
  if (counting.load(std::memory_order_relaxed))
    live.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}
}  // namespace

void heap_counting(bool on) noexcept { counting.store(on, std::memory_order_relaxed); }
std::int64_t heap_live() noexcept { return live.load(std::memory_order_relaxed); }
std::int64_t heap_peak() noexcept { return peak.load(std::memory_order_relaxed); }
std::int64_t heap_allocations() noexcept { return calls.load(std::memory_order_relaxed); }
void heap_reset_peak() noexcept { peak.store(live.load(std::memory_order_relaxed), std::memory_order_relaxed); }

}  // namespace bench
}  // namespace tile2buffer

void* operator new(std::size_t n) { return tile2buffer::bench::allocate(n); }
void* operator new[](std::size_t n) { return tile2buffer::bench::allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return tile2buffer::bench::allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return tile2buffer::bench::allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { tile2buffer::bench::release(p); }
void operator delete[](void* p) noexcept { tile2buffer::bench::release(p); }
void operator delete(void* p, std::size_t) noexcept { tile2buffer::bench::release(p); }
void operator delete[](void* p, std::size_t) noexcept { tile2buffer::bench::release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { tile2buffer::bench::release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { tile2buffer::bench::release(p); }
