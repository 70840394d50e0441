// SPDX-License-Identifier: Apache-2.0
/// @file detail/huge_pages.hpp
/// Reserving a large pool so that the kernel backs it with 2 MB pages where it can: a 100k-op
/// kernel's arenas are tens of megabytes, and faulting them in 4 KB at a time cost about a quarter
/// of the process's time (issue 54 item 5). Advice only: the memory, its alignment and its
/// allocator stay the standard ones, so a host sees nothing but fewer page faults.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#endif

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Asks for huge pages on the whole 2 MB pages inside [p, p + bytes). Why only inside: the
/// block's ends share their pages with other allocations, whose memory is not ours to advise.
inline void advise_huge_pages([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#if __has_include(<sys/mman.h>) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = (at + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (at + bytes) & ~(huge - 1);
  // Why the result is ignored: without transparent huge pages (a kernel built without them, or
  // THP `never`) the call fails and the pool is faulted in small pages as before.
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

/// `v.reserve(n)`, then huge-page advice on the first seven eighths of a reserve of at least
/// 4 MB (the least that always holds a whole aligned huge page). In constant evaluation it is the
/// reserve alone. Why seven eighths: a huge page is resident in full once touched, and a reserve
/// is an estimate (lower's slack is an eighth, a rewriter's a quarter): where the pool ends inside
/// its reserve, small pages keep what it never reaches out of memory (advising the whole reserve
/// cost the 100k-op line 0.5 MB of peak).
template <class T, class A>
constexpr void reserve_pool(std::vector<T, A>& v, std::size_t n) {
  const bool grows = n > v.capacity();
  v.reserve(n);
  if (std::is_constant_evaluated() || !grows || n * sizeof(T) < (std::size_t{4} << 20)) return;
  advise_huge_pages(v.data(), (n - n / 8) * sizeof(T));
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
