// SPDX-License-Identifier: Apache-2.0
/// @file passes/init_storage.hpp
/// init_storage (InitMemRef): gives an unplanned device function storage. One allocation per
/// Tile value; results that are in place by definition share their source's storage (assemble,
/// matmul_acc, set_validshape, reshape/reinterpret/transpose views); windows (slices, and relabels
/// of slices) have no storage of their own; a loop result shares one allocation with its
/// iteration values (its initializer's, when nothing reads that after the loop starts); a branch
/// result gets its own (legalization retargets producers into it or moves into it).
/// An in-place result (assemble, matmul_acc) whose operand's storage is still read afterwards (by
/// the operand itself, a relabel or a window of it) gets its own allocation instead.
/// Planned functions (any tile.alloc or storage clause) pass through unchanged.
#pragma once

#include <string_view>
#include <vector>

#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/ir/create.hpp"
#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/liveness.hpp"
#include "tile2buffer/analysis/regions.hpp"
#include "tile2buffer/analysis/storage.hpp"
#include "tile2buffer/analysis/windows.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/engine/storage_alloc.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/options.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Ops whose result overwrites the storage of an operand (`storage_source`) in place.
constexpr bool writes_in_place(opcode c) { return !info(c).writes.empty() && info(c).writes == info(c).in_place_of; }

/// Guarded accumulator coalescing (reference §4.1): in `x = if p { d = tile.matmul_acc(c, ..);
/// yield d } else { yield c }` (either arm, a chain of updates, or updates in both arms) the arms
/// never both run, so the update may write c's storage although the other arm yields c, and x
/// can live there too: no Acc -> Acc copy is needed. `chain[o]` names the branch result an
/// update op `o` feeds; `root[x]` the accumulator c of a coalescible branch result x. Only
/// when c and every update are used exactly once (by the next update or the yield). Both tables
/// are empty when the function has no update inside a two-armed branch (nearly every function).
struct guarded_accumulators {
  std::vector<std::uint32_t> chain;  ///< by op: the branch result (value index) it feeds, or no_id
  std::vector<std::uint32_t> root;   ///< by value: the accumulator a branch result coalesces with, or no_id

  constexpr std::uint32_t fed_by(op_id o) const { return chain.empty() ? no_id : chain[o.index]; }
  constexpr std::uint32_t root_of(value_id x) const { return root.empty() ? no_id : root[x.index]; }
};

template <class = void>
constexpr guarded_accumulators find_guarded_accumulators(const function& f, const window_facts& windows) {
  guarded_accumulators g;
  bool update = false, branch = false;
  for (const op_node& n : f.ops) {
    update = update || writes_in_place(n.code());
    branch = branch || (is_branch_op(n.code()) && n.region_count == 2);
  }
  if (!update || !branch) return g;
  g.chain.assign(f.ops.size(), no_id);
  g.root.assign(f.values.size(), no_id);
  std::vector<std::uint32_t> uses(f.values.size(), 0);
  const auto count = [&](const operand& x, auto& self) -> void {
    if (x.is_value()) ++uses[x.ref];
    if (x.kind == operand_kind::tuple)
      for (const operand& e : f.elements(x)) self(e, self);
  };
  for (std::uint32_t o = 0; o < f.ops.size(); ++o) {
    for (const operand& x : f.args(op_id{o})) count(x, count);
    for (const kwarg& k : f.kwargs_of(op_id{o})) count(k.value, count);
  }
  const std::vector<region_id> enclosing = enclosing_regions(f);
  // Whether op `o` (or the region op owning a region argument) sits inside region op `a`.
  const auto inside = [&](op_id o, op_id a) {
    for (op_id x = o; x.valid(); x = f.region(enclosing[x.index]).parent)
      if (x == a) return true;
    return false;
  };
  for (std::uint32_t i = 0; i < f.ops.size(); ++i) {
    const op_id br{i};
    const op_node& n = f.op(br);
    if (!is_branch_op(n.code()) || n.region_count != 2) continue;
    const op_id ya = trailing_yield(f, f.region_of(br, 0)), yb = trailing_yield(f, f.region_of(br, 1));
    if (!ya.valid() || !yb.valid()) continue;
    for (std::uint32_t k = 0; k < n.results.count; ++k) {
      const value_id x = f.result(br, k);
      const type& t = f.type_of(x);
      if (!t.is_tile() || t.space != memory_space::acc) continue;
      std::vector<op_id> updates;
      // The accumulator an arm's yield starts from: back through updates made directly in that arm.
      const auto start = [&](std::uint32_t arm, op_id y) -> value_id {
        if (k >= f.args(y).size() || !f.args(y)[k].is_value()) return {};
        value_id v = f.args(y)[k].value();
        for (std::size_t guard = 0; guard <= f.ops.size(); ++guard) {
          const value_info& info = f.value(v);
          if (info.origin() != value_origin::result || enclosing[info.def.index] != f.region_of(br, arm)) return v;
          if (!writes_in_place(f.op(info.def).code()) || uses[v.index] != 1) return {};
          const operand acc = written_operand(f, info.def);
          if (!acc.is_value()) return {};
          updates.push_back(info.def);
          v = acc.value();
        }
        return {};
      };
      const value_id c = start(0, ya);
      if (!c.valid() || start(1, yb) != c || updates.empty() || uses[c.index] != 2) continue;
      if (!f.type_of(c).is_tile() || windows.is_window(c)) continue;
      // The accumulator comes from outside the branch (a region argument's `def` is its region op).
      if (const op_id def = f.value(c).def; def.valid() && inside(def, br)) continue;
      g.root[x.index] = c.index;
      for (const op_id u : updates) g.chain[u.index] = x.index;
    }
  }
  return g;
}

/// Gives unplanned kernel `f` its storage in place: one `tile.alloc` per storage family in front
/// of the body (appended to the arenas, so every existing op and value keeps its id) and each
/// Tile value's allocation. `windows`: the window facts of `f` (the kernel analyses' own).
/// Why in place, not a rewrite: the kernel gains allocations and nothing else, and cloning
/// every op was about a third of the pass.
template <class = void>
constexpr void add_function_storage(function& f, const window_facts& windows) {
  const program_order order(f);
  const std::vector<std::uint32_t> last = last_uses(f, order);
  // owner[v]: the value whose allocation v lives in (itself for a fresh allocation); no_id = none.
  std::vector<std::uint32_t> owner(f.values.size(), no_id);
  // family_last[o]: the last use of any value defined so far in owner o's storage (windows included).
  std::vector<std::uint32_t> family_last(f.values.size(), 0);
  std::vector<value_id> fresh;  // values that get their own allocation, in program order
  const auto join = [&](value_id v, std::uint32_t family) { family_last[family] = std::max(family_last[family], last[v.index]); };
  const auto own = [&](value_id v) {
    owner[v.index] = v.index;
    fresh.push_back(v);
    join(v, v.index);
  };
  // A loop result is a version newer than anything its body reads: its uses join the family only
  // once the loop's body has been walked (else no in-place write in the body could share it).
  std::vector<std::pair<std::uint32_t, value_id>> after_loop;  // (loop end, result)
  const guarded_accumulators guarded = find_guarded_accumulators(f, windows);
  // Whether no value of `family` but `c` is read after position `at`. The results of a loop
  // enclosing `at` are exempt: they are the carry's later versions, which take the update. A
  // scan of every value, run only for guarded branch results (rare).
  const auto sole_live = [&](std::uint32_t family, std::uint32_t c, std::uint32_t at) {
    for (std::uint32_t v = 0; v < f.values.size(); ++v) {
      if (v == c || !f.type_of(value_id{v}).is_tile()) continue;
      const value_info& info = f.value(value_id{v});
      if (info.origin() == value_origin::result && is_loop_op(f.op(info.def).code()) && order.pos(info.def) < at &&
          order.end(info.def) >= at)
        continue;
      const bool member = owner[v] == family ||
                          (windows.is_window(value_id{v}) && owner[windows.storage_of(value_id{v}).index] == family);
      if (member && last[v] > at) return false;
    }
    return true;
  };
  // The value both arms of two-armed branch `o` yield as result `i`, if they yield one value.
  const auto same_yield = [&](op_id o, std::uint32_t i) -> value_id {
    if (!is_branch_op(f.op(o).code()) || f.op(o).region_count != 2) return {};
    const op_id a = trailing_yield(f, f.region_of(o, 0)), b = trailing_yield(f, f.region_of(o, 1));
    if (!a.valid() || !b.valid() || i >= f.args(a).size() || i >= f.args(b).size()) return {};
    const operand x = f.args(a)[i], y = f.args(b)[i];
    return x.is_value() && y.is_value() && x.value() == y.value() ? x.value() : value_id{};
  };
  walk(f, [&](op_id o) {
    std::erase_if(after_loop, [&](const std::pair<std::uint32_t, value_id>& e) {
      if (e.first >= order.pos(o)) return false;
      join(e.second, owner[e.second.index]);
      return true;
    });
    const op_node& n = f.op(o);
    const opcode c = n.code();
    if (n.results.count == 0) return;
    if (is_loop_op(c)) {
      // A carry lives in its initializer's storage when nothing reads that storage once the
      // loop has started (and no other carry of the loop took it); otherwise in its own, and
      // legalization copies the initializer in before the loop.
      const auto inits = loop_inits(f, o);
      std::vector<std::uint32_t> taken;
      for (std::uint32_t i = 0; i < n.results.count; ++i) {
        const value_id res = f.result(o, i);
        if (!f.type_of(res).is_tile()) continue;
        std::uint32_t family = no_id;
        if (i < inits.size() && inits[i].is_value() && !windows.is_window(inits[i].value())) {
          const std::uint32_t from = owner[inits[i].value().index];
          if (from != no_id && family_last[from] <= order.pos(o) && std::find(taken.begin(), taken.end(), from) == taken.end())
            family = from;
        }
        if (family == no_id) {
          owner[res.index] = res.index;
          fresh.push_back(res);
        } else {
          owner[res.index] = family;
          taken.push_back(family);
        }
        after_loop.emplace_back(order.end(o), res);
        for (std::uint32_t r = 0; r < n.region_count; ++r) {
          const value_id it = iteration_value(f, o, f.region_of(o, r), i);
          owner[it.index] = owner[res.index];
          join(it, owner[res.index]);
        }
      }
      return;
    }
    for (std::uint32_t i = 0; i < n.results.count; ++i) {
      const value_id res = f.result(o, i);
      if (!f.type_of(res).is_tile()) continue;
      // A coalescible branch result takes its accumulator's storage when nothing of that storage
      // is read after the branch and nothing but the accumulator is read from the branch on (the
      // arms' reads of it are on exclusive paths; a relabel's source or a sibling relabel would
      // see the update).
      if (const std::uint32_t c = guarded.root_of(res);
          c != no_id && owner[c] != no_id && family_last[owner[c]] <= order.end(o) && sole_live(owner[c], c, order.pos(o))) {
        owner[res.index] = owner[c];
        join(res, owner[c]);
        continue;
      }
      if (windows.is_window(res)) {  // lives in its storage tile's bytes
        if (const std::uint32_t family = owner[windows.storage_of(res).index]; family != no_id) join(res, family);
        continue;
      }
      // Both arms yield the same value: the result is that value on every path, so it keeps its
      // window (reference §4.1: "if both arms already yield the same physical window, keep it").
      if (const value_id same = same_yield(o, i); same.valid() && owner[same.index] != no_id && !windows.is_window(same)) {
        owner[res.index] = owner[same.index];
        join(res, owner[same.index]);
        continue;
      }
      if (const auto src = storage_source(f, o); src && src->is_value() && owner[src->ref] != no_id) {
        const std::uint32_t family = owner[src->ref];
        // An in-place write shares its operand's storage only when no older value in that
        // storage is read afterwards; otherwise the result gets its own and lowering copies.
        const std::uint32_t fed = guarded.fed_by(o);
        const bool coalesced = fed != no_id && owner[fed] == family;  // a guarded update, see above
        if (!writes_in_place(c) || coalesced || family_last[family] <= order.pos(o)) {
          owner[res.index] = family;
          join(res, family);
          continue;
        }
      }
      own(res);
    }
  });
  // One tile.alloc per fresh allocation and the allocation handle's type (storage is the
  // values', not their types'): reserved exactly, no arena grows twice.
  const std::size_t values = f.values.size();
  function_builder::arena_sizes sizes{.values = values + fresh.size(),
                                      .ops = f.ops.size() + fresh.size(),
                                      .region_ops = f.region_ops.size() + fresh.size(),
                                      .regions = f.regions.size(),
                                      .operands = f.operands.size() + 2 * fresh.size(),
                                      .kwargs = f.kwargs.size(),
                                      .names = f.names.size(),
                                      .types = f.types.size() + 1};
  for (const value_id v : fresh) sizes.names += 4 + f.value_names[v.index].count;  // mem_<name>
  function_builder b(static_cast<function&&>(f));
  b.reserve(sizes);
  std::vector<value_id> mem(values);
  b.reopen_front(b.fn().body);
  for (const value_id v : fresh) {
    const function& g = b.fn();
    mem[v.index] = emit_alloc_for(b, g, v, g.value(v).def.valid() ? g.loc_of(g.value(v).def) : g.loc);
  }
  b.close_region();
  for (std::uint32_t i = 0; i < values; ++i)
    if (owner[i] != no_id) b.set_storage(value_id{i}, value_storage{mem[owner[i]], 0});
  f = b.finish();
}


/// Whether function `i` of `p` is an unplanned Tile-stage kernel (then its analyses are cached).
template <class = void>
constexpr bool needs_storage(const program& p, std::size_t i, analysis_cache& cache) {
  const function& f = p.functions[i];
  return f.is_device() && f.stage == ir_stage::tile && !cache.get(p, i).storage.planned();
}
}  // namespace detail

template <class = void>
constexpr result<program> init_storage(const program& p, const options&, analysis_cache& cache) {
  result<program> r;
  r.value.file = p.file;
  r.value.functions.reserve(p.functions.size());
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    r.value.functions.push_back(p.functions[i]);
    if (!detail::needs_storage(p, i, cache)) continue;
    kernel_analyses& k = cache.get_mutable(p, i);
    detail::add_function_storage(r.value.functions.back(), k.windows);
    cache.replace(i, kernel_analyses(static_cast<kernel_analyses&&>(k), r.value.functions.back()));
  }
  return r;
}
/// On a program the caller owns: each kernel gains its storage where it is, and other functions
/// are not copied.
template <class = void>
constexpr void init_storage_in_place(program& p, analysis_cache& cache) {
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    if (!detail::needs_storage(p, i, cache)) continue;
    kernel_analyses& k = cache.get_mutable(p, i);
    detail::add_function_storage(p.functions[i], k.windows);
    // Selection reads the kernel's analyses next: hand on what storage did not change.
    cache.replace(i, kernel_analyses(static_cast<kernel_analyses&&>(k), p.functions[i]));
  }
}
template <class = void>
constexpr result<program> init_storage(const program& p, const options& opts) {
  analysis_cache cache;
  return init_storage(p, opts, cache);
}

/// The pass as pass sets register it (passes/table.hpp).
struct init_storage_pass {
  static constexpr std::string_view name = "init_storage";
  template <class Recipes>
  static constexpr result<program> run(const program& p, const options& opts, analysis_cache& cache) {
    return init_storage(p, opts, cache);
  }
  template <class Recipes>
  static constexpr void run_in_place(program& p, const options&, analysis_cache& cache, std::vector<diagnostic>&) {
    init_storage_in_place(p, cache);
  }
};

}  // namespace v0
}  // namespace tile2buffer
