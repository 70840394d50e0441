// SPDX-License-Identifier: Apache-2.0
/// @file passes/plan.hpp
/// The plan pass: places every device Tile function's allocations with the chosen planner
/// (addresses become `addr =` on `tile.alloc`), and fails when a memory space overflows (one error
/// per space and kernel, the other allocations that do not fit as its notes). For an
/// addressless planner (PTOAS places storage itself) it drops any address the input carries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/storage_label.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/plan/planners.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {
/// `f` with `addr = address` on allocation `a`'s tile.alloc (none: without `addr`). Why a copy with one kwarg appended
/// rather than a rewrite: every op and value keeps its id, so the kernel's analyses stay valid
/// once the address is recorded in them too.
template <class = void>
constexpr void set_alloc_address(function& f, const allocation& a, std::optional<std::int64_t> address) {
  op_node& n = f.ops[a.def.index];
  const span32 old = n.kwargs;
  const auto first = static_cast<std::uint32_t>(f.kwargs.size());
  for (std::uint32_t k = 0; k < old.count; ++k) {
    const kwarg copy = f.kwargs[old.begin + k];
    if (copy.key != keyword::addr) f.kwargs.push_back(copy);
  }
  if (address) f.kwargs.push_back(kwarg{keyword::addr, operand::integer(*address)});
  n.kwargs = span32{first, static_cast<std::uint32_t>(f.kwargs.size()) - first};
}
/// What is live in allocation `i`'s space where it is first used: `; live at L:C (op): a N B, ...
/// (T B)`, the allocations the planner had to keep apart from it.
constexpr text live_beside(const function& f, const std::vector<allocation>& allocs, const std::vector<live_interval>& live,
                           std::uint32_t i) {
  const allocation& a = allocs[i];
  text out;
  if (live[i].empty()) return out;
  const std::uint32_t at = live[i].start;
  const program_order order(f);
  if (at < order.size()) {
    // A scratch tile.create is the pipeline's, made where the op it serves is: name that op.
    const op_id shown = scratch_user_of_op(f, order.ops()[at]).value_or(order.ops()[at]);
    const location where = f.loc_of(shown);
    out << "; live at " << static_cast<std::int64_t>(where.line) << ':' << static_cast<std::int64_t>(where.col) << " ("
        << mnemonic(f.op(shown).code()) << "):";
  } else {
    out << "; live:";
  }
  std::int64_t total = 0;
  const char* sep = " ";
  for (std::uint32_t j = 0; j < allocs.size(); ++j) {
    if (allocs[j].space != a.space || live[j].empty() || live[j].start > at || live[j].end < at) continue;
    out << sep << storage_label(f, allocs[j].mem) << ' ' << allocs[j].capacity << " B";
    total += allocs[j].capacity;
    sep = ", ";
  }
  return out << " (" << total << " B)";
}
/// Why allocation `i` does not fit: its size against the space, and what is live beside it.
constexpr text overflow_message(const function& f, planner_kind planner, const std::vector<allocation>& allocs,
                                const std::vector<live_interval>& live, std::uint32_t i) {
  const allocation& a = allocs[i];
  text out = text("planner ") << name(planner) << " cannot place " << a.capacity << " bytes in " << name(a.space)
                              << ": the space holds " << space_capacity(a.space) << " bytes";
  return out << live_beside(f, allocs, live, i);
}
/// One error per memory space that overflows in `f`, at its first allocation that does not fit;
/// each later one is a note on it. Why not an error each: once a space is over, every tile after
/// the first misplaced one fails too, and the cascade hid the one place to shorten or split.
constexpr void report_overflows(const function& f, planner_kind planner, const std::vector<allocation>& allocs,
                                const std::vector<live_interval>& live, const std::vector<std::uint32_t>& over,
                                std::vector<diagnostic>& errors) {
  const std::size_t none = errors.size() + over.size();
  std::vector<std::size_t> error_of_space(detail::space_names.size(), none);
  for (const std::uint32_t i : over) {
    const auto space = static_cast<std::size_t>(allocs[i].space);
    if (error_of_space[space] == none) {
      error_of_space[space] = errors.size();
      errors.push_back(diagnostic{f.loc_of(allocs[i].def),
                                  text("plan"),
                                  overflow_message(f, planner, allocs, live, i),
                                  {},
                                  severity::error,
                                  text(f.name_of())});
      continue;
    }
    errors[error_of_space[space]].notes.push_back(
        note{f.loc_of(allocs[i].def), text(name(allocs[i].space)) << " is over here too: " << allocs[i].capacity << " bytes ("
                                                                  << storage_label(f, allocs[i].mem) << ") do not fit"
                                                                  << live_beside(f, allocs, live, i)});
  }
}
}  // namespace detail

/// Plans `p` where it is (the pipeline's own copy): patches each allocation's address and the
/// kernel's cached storage facts, so nothing is copied. On failure `p` is left part-planned and
/// must be discarded; `plan` below works on a copy.
template <class = void>
constexpr void plan_in_place(program& p, const options& opts, analysis_cache& cache, std::vector<diagnostic>& errors) {
  for (std::size_t fi = 0; fi < p.functions.size(); ++fi) {
    function& f = p.functions[fi];
    if (!f.is_device() || f.stage != ir_stage::tile) continue;
    kernel_analyses& k = cache.get_mutable(p, fi);
    const auto& allocs = k.storage.allocations();
    if (!addressed(opts.planner)) {
      // PTOAS places storage itself: an address in the input of a kernel that will be lowered
      // is dropped, so that the IR says what lowering emits (an addressless buffer.alloc). A
      // kernel that stays Tile is handed on as it came.
      if (!f.buffer_ir_selected.value_or(true)) continue;
      for (std::uint32_t i = 0; i < allocs.size(); ++i) {
        if (!allocs[i].address && !f.kwarg_of(allocs[i].def, keyword::addr)) continue;
        detail::set_alloc_address(f, allocs[i], std::nullopt);
        k.storage.set_address(i, std::nullopt);
      }
      continue;
    }
    std::vector<live_interval> live = live_intervals(f, k.storage, &k.windows);
    const auto addr = place(opts.planner, allocs, live);
    // Sized before appending: growing one kwarg at a time doubled the pool (a third of it unused).
    std::size_t appended = 0;
    for (std::uint32_t i = 0; i < allocs.size(); ++i)
      if (addr[i] && !allocs[i].address) appended += 1 + f.op(allocs[i].def).kwargs.count;
    f.kwargs.reserve(f.kwargs.size() + appended);
    std::vector<std::uint32_t> over;  // the allocations that do not fit, in allocation order
    for (std::uint32_t i = 0; i < allocs.size(); ++i) {
      if (!addr[i] || allocs[i].address) continue;
      k.storage_checked = false;
      if (*addr[i] + allocs[i].capacity > space_capacity(allocs[i].space)) over.push_back(i);
      detail::set_alloc_address(f, allocs[i], *addr[i]);
      k.storage.set_address(i, *addr[i]);
    }
    if (!over.empty()) detail::report_overflows(f, opts.planner, allocs, live, over, errors);
  }
}
template <class = void>
constexpr result<program> plan(const program& p, const options& opts, analysis_cache& cache) {
  result<program> r;
  r.value = p;
  plan_in_place(r.value, opts, cache, r.errors);
  if (!r.ok()) r.value = program{};
  return r;
}
template <class = void>
constexpr result<program> plan(const program& p, const options& opts) {
  analysis_cache cache;
  return plan(p, opts, cache);
}

/// PTOAS places storage itself, so its plan cannot fail; a warning (one per kernel and space)
/// where the bytes live at once in a memory space of a planned device Tile kernel exceed it (the
/// addressed planners report that case as an error). None for the other planners, at no cost.
template <class = void>
constexpr std::vector<diagnostic> ptoas_overflow_notices(const program& planned, const options& opts, analysis_cache& cache) {
  std::vector<diagnostic> out;
  if (opts.planner != planner_kind::ptoas) return out;
  for (std::size_t fi = 0; fi < planned.functions.size(); ++fi) {
    const function& f = planned.functions[fi];
    if (!f.is_device() || f.stage != ir_stage::tile) continue;
    const kernel_analyses& k = cache.get(planned, fi);
    const auto& allocs = k.storage.allocations();
    if (allocs.empty()) continue;
    const std::vector<live_interval> live = live_intervals(f, k.storage, &k.windows);
    const program_order order(f);
    for (std::size_t si = 0; si < detail::space_names.size(); ++si) {  // every space, as the memory map walks them
      const auto space = static_cast<memory_space>(si);
      const live_peak peak = largest_live_sum(
          allocs.size(), [&](std::size_t i) { return allocs[i].space == space ? allocs[i].capacity : std::int64_t{0}; },
          [&](std::size_t i) { return allocs[i].space == space ? live[i] : live_interval{}; });
      if (peak.bytes <= space_capacity(space) || peak.at >= order.size()) continue;
      text message = text("@") << f.name_of() << ": planner ptoas: " << peak.bytes << " bytes are live in " << name(space)
                               << " at once here, more than its " << space_capacity(space)
                               << " bytes (pypto and dsa_rp cannot place it)";
      out.push_back(diagnostic{
          f.loc_of(order.ops()[peak.at]), text("plan"), static_cast<text&&>(message), {}, severity::warning, text(f.name_of())});
    }
  }
  return out;
}

/// The pass as pass sets register it (passes/table.hpp).
struct plan_pass {
  static constexpr std::string_view name = "plan";
  static constexpr std::vector<diagnostic> notices(const program& planned, const options& opts, analysis_cache& cache) {
    return ptoas_overflow_notices(planned, opts, cache);
  }
  template <class Recipes>
  static constexpr result<program> run(const program& p, const options& opts, analysis_cache& cache) {
    return plan(p, opts, cache);
  }
  template <class Recipes>
  static constexpr void run_in_place(program& p, const options& opts, analysis_cache& cache, std::vector<diagnostic>& errors) {
    plan_in_place(p, opts, cache, errors);
  }
};

}  // namespace v0
}  // namespace tile2buffer
