// SPDX-License-Identifier: Apache-2.0
/// @file naive_lower.hpp
/// A deliberately simple Tile -> Buffer lowering of straight-line Vec kernels (loads, elementwise
/// ops, stores), for testing the simulator and the generator without the real pipeline: one
/// allocation per Tile value, either addressless or first-fit addressed with reuse after the
/// last use (optionally in place). Mutation knobs produce wrong lowerings the check must catch.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "tile2buffer/ir/builder.hpp"

namespace sim_test {
using namespace tile2buffer;

struct naive_options {
  bool addressed = false;      ///< first-fit byte addresses in Vec, reused after a value's last use
  bool in_place = true;        ///< (addressed) a result may take the storage of an operand dying at its op
  int drop_store_source = -1;  ///< mutation: omit the op that defines the value the n-th store reads
  int shift_store = -1;        ///< mutation: the n-th store lands one row lower
  int early_free = -1;         ///< mutation: (addressed) value id #n's storage is released right after its definition
};

namespace detail {
/// First-fit allocator over one arena; ranges are [begin, end) byte offsets, 32-byte aligned.
class first_fit {
 public:
  std::int64_t take(std::int64_t bytes) {
    bytes = (bytes + 31) / 32 * 32;
    std::int64_t at = 0;
    for (const auto& u : used_) {
      if (u.first - at >= bytes) break;
      at = u.second > at ? u.second : at;
    }
    used_.push_back({at, at + bytes});
    sort();
    return at;
  }
  void release(std::int64_t begin) {
    for (std::size_t i = 0; i < used_.size(); ++i)
      if (used_[i].first == begin) {
        used_.erase(used_.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
  }

 private:
  void sort() {
    for (std::size_t i = 1; i < used_.size(); ++i)
      for (std::size_t j = i; j > 0 && used_[j].first < used_[j - 1].first; --j) std::swap(used_[j], used_[j - 1]);
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> used_;
};
}  // namespace detail

/// What a lowering did that a test may want to know.
struct naive_report {
  bool victim_overlapped = false;  ///< early_free: a later allocation took the victim's bytes while it was live
};

/// Lowers the first function of `tile`; unsupported ops are not expected (generator output only).
inline program naive_lower(const program& tile, const naive_options& opt = {}, naive_report* report = nullptr) {
  const function& f = tile.functions.front();
  function_builder b(f.kind, f.name_of(), f.loc);
  b.fn().stage = ir_stage::buffer;
  std::vector<value_id> map(f.values.size());
  for (const auto& p : f.params) {
    map[p.value.index] = b.param(f.name_of(p.value), f.type_of(p.value), p.dir, p.loc);
  }
  for (const auto& r : f.results) b.result_type(r);

  const auto ops = f.ops_of(f.body);
  // Last use (position in the body) of every value.
  std::vector<std::size_t> last(f.values.size(), 0);
  for (std::size_t i = 0; i < ops.size(); ++i)
    for (const auto& a : f.args(ops[i]))
      if (a.is_value()) last[a.ref] = i;
  // The value each store reads, in store order (for the mutations).
  std::vector<std::uint32_t> store_sources;
  for (const op_id o : ops)
    if (f.op(o).code() == opcode::tile_store) store_sources.push_back(f.args(o)[0].ref);
  const std::uint32_t dropped = opt.drop_store_source >= 0 &&
                                        static_cast<std::size_t>(opt.drop_store_source) < store_sources.size()
                                    ? store_sources[static_cast<std::size_t>(opt.drop_store_source)]
                                    : no_id;

  detail::first_fit arena;
  std::vector<std::int64_t> address(f.values.size(), -1);
  std::int64_t victim_begin = -1, victim_end = -1;
  const auto release_dying = [&](std::size_t i) {
    for (const auto& a : f.args(ops[i])) {
      if (!a.is_value() || address[a.ref] < 0) continue;
      if (last[a.ref] == i) {
        arena.release(address[a.ref]);
        address[a.ref] = -1;
      }
    }
  };
  int store_index = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const op_id o = ops[i];
    const opcode c = f.op(o).code();
    const auto args = f.args(o);
    const location loc = f.loc_of(o);
    const auto mapped = [&](const operand& a) { return a.is_value() ? operand::of(map[a.ref]) : a; };
    // Why: a tuple names a range of the source function's operand pool; rebuild it in the new one.
    const auto pair_of = [&](const operand& t) {
      const auto e = f.elements(t);
      return b.tuple({mapped(e[0]), mapped(e[1])});
    };
    if (c == opcode::cf_return) {
      std::vector<operand> rets;
      for (const auto& a : args) rets.push_back(mapped(a));
      b.emit(opcode::cf_return, rets, {}, {}, {}, loc);
      continue;
    }
    if (c == opcode::tile_store) {
      const type& src = f.type_of(args[0].value());
      const auto elems = f.elements(args[1]);
      const std::int64_t row = elems[0].num + (store_index == opt.shift_store ? 1 : 0);
      ++store_index;
      b.emit0(opcode::buffer_store,
              {mapped(args[0]), b.tuple({operand::integer(row), mapped(elems[1])}), b.pair(src.shape[0], src.shape[1]),
               mapped(args[2])},
              loc);
      map[f.result(o).index] = map[args[2].ref];  // the stored tensor aliases its parameter
      if (opt.addressed) release_dying(i);
      continue;
    }
    // A Tile result: give it storage, then write it.
    const value_id result = f.result(o);
    const type& rt = f.type_of(result);
    const bool recip = c == opcode::tile_recip;
    if (opt.addressed && opt.in_place && !recip) release_dying(i);
    type bt = rt;
    bt.kind = type_kind::buffer;
    const std::string name = std::string(f.name_of(result)) + "_buf";
    if (opt.addressed) {
      address[result.index] = arena.take(rt.bytes());
      const std::int64_t a = address[result.index];
      if (report && victim_begin >= 0 && i < last[static_cast<std::size_t>(opt.early_free)] && a < victim_end &&
          a + rt.bytes() > victim_begin)
        report->victim_overlapped = true;
      map[result.index] = b.emit1(opcode::buffer_alloc,
                                  {b.tuple(std::initializer_list<operand>{}), operand::integer(address[result.index])}, bt, name,
                                  loc);
    } else {
      map[result.index] = b.emit1(opcode::buffer_alloc, {b.tuple(std::initializer_list<operand>{})}, bt, name, loc);
    }
    if (opt.addressed && (!opt.in_place || recip)) release_dying(i);
    if (opt.addressed && static_cast<std::uint32_t>(opt.early_free) == result.index) {
      // The planner bug: the victim's storage is free again while the value is still live.
      victim_begin = address[result.index];
      victim_end = victim_begin + rt.bytes();
      arena.release(address[result.index]);
      address[result.index] = -1;
    }
    if (result.index == dropped) continue;
    const operand dst = operand::of(map[result.index]);
    if (c == opcode::tile_load) {
      b.emit0(opcode::buffer_load, {mapped(args[0]), pair_of(args[1]), b.pair(rt.shape[0], rt.shape[1]), dst}, loc);
      continue;
    }
    const auto counterpart = buffer_counterpart(c);
    std::vector<operand> bargs;
    for (const auto& a : args) bargs.push_back(mapped(a));
    bargs.push_back(dst);
    b.emit(*counterpart, bargs, {}, {}, {}, loc);
  }
  program out;
  out.file = tile.file;
  out.functions.push_back(b.finish());
  return out;
}

}  // namespace sim_test
