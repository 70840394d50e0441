// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify/walk.hpp
/// The verifier's walk over one function: SSA visibility with a scope stack, operand kinds per
/// the catalogue signature, stage membership, and dispatch to each op's model (rule_table.hpp).
/// Iterative (an explicit region stack), so nesting depth never exhausts the call stack or the
/// constant evaluator's recursion limit; every id is range-checked before it is used.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/ir/verify/rule_table.hpp"
#include "tile2buffer/ir/verify/state.hpp"
#include "tile2buffer/ir/verify/type_rules.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// The default of `function_verifier`'s op hook: no second check rides on the walk.
struct no_op_hook {
  constexpr void operator()(op_id) const noexcept {}
};

/// Why a template: the verifier and its per-op models are compiled where `verify<>` is used, not
/// in every TU that includes it. `Hook` sees every op whose ranges the walk checked, in program
/// order (an op before its regions), so a checker of another layer (the Buffer storage proofs)
/// shares this walk instead of walking the function again.
template <class V = void, class Hook = no_op_hook>
class function_verifier {
 public:
  constexpr function_verifier(const program& p, const function_index& idx, const function& f, std::vector<diagnostic>& out,
                              Hook hook = {})
      : s_(p, idx, f, out), hook_(hook) {}

  constexpr void run() {
    const function& f = s_.f;
    if (!enum_ok(f.kind, function_kind::orchestration)) {
      s_.fail(f.loc, "function '@", s_.fn_name(), "' has an invalid kind");
      return;
    }
    // Every value needs a name entry, a storage entry and an interned type; a corrupted function
    // may lack them.
    bool arenas_ok = f.value_names.size() == f.values.size() && f.storage.size() == f.values.size();
    for (const auto& v : f.values) arenas_ok = arenas_ok && v.ty.index < f.types.size();
    if (!arenas_ok) {
      s_.fail(f.loc, "function '@", s_.fn_name(), "' has values without a name or storage entry or with an unknown type id");
      return;
    }
    if (f.op_locs.size() != f.ops.size()) {
      s_.fail(f.loc, "function '@", s_.fn_name(), "' has ops without a location entry");
      return;
    }
    check_params();
    if (!enter(f.body, op_id{}, 0, f.loc)) return;
    while (!frames_.empty()) {
      frame& top = frames_.back();
      const auto ops = f.ops_of(top.region);
      if (top.next < ops.size()) {
        const std::uint32_t pos = top.next++;
        visit(ops[pos], pos + 1 == ops.size());
      } else {
        close();
      }
    }
  }

  //===--- streaming: the same checks on a function as function_builder writes it ---===//
  // The builder reports each op as it appends it (ir/build_observer.hpp), so the rules run on
  // it while it is still in cache, and no walk follows. What differs from `run` is the order (a
  // region op is written after its regions, so the checks that need it, its regions' argument
  // types and trailing yields, wait for it) and that a malformed region op's regions were
  // checked as they were written, where `run` skips them. The arenas are the builder's own, so
  // the range checks of `visit` have nothing to find.

  /// Starts on the builder's function, whose body is open and whose parameters are written.
  constexpr void stream_begin() {
    // Sized once to what the builder reserved, so the per-value state does not reallocate as
    // the function grows.
    s_.scope.reserve(s_.f.values.capacity());
    s_.grow();
    if (!enum_ok(s_.f.kind, function_kind::orchestration))
      s_.fail(s_.f.loc, "function '@", s_.fn_name(), "' has an invalid kind");
    check_params();
    streamed_.push_back(stream_frame{s_.f.body, s_.scope.size(), false, op_id{}, {}, {}});
  }
  /// A region of an op not yet written: its arguments are visible now, and what their types'
  /// checks report is held until the op is written, and then located at it, as `run` locates it.
  constexpr void stream_region_opened(region_id r) {
    s_.grow();
    stream_frame fr{r, s_.scope.size(), true, op_id{}, {}, {}};
    const std::size_t reported = s_.out.size();
    const span32 args = s_.f.regions[r.index].args;
    for (std::uint32_t i = 0; i < args.count; ++i) define(value_id{args.begin + i}, location{}, true);
    hold_reports(reported, fr.arg_errors);
    streamed_.push_back(static_cast<stream_frame&&>(fr));
  }
  constexpr void stream_op(op_id o) {
    s_.grow();
    stream_frame& top = streamed_.back();
    if (top.terminator.valid()) {
      s_.fail(s_.f.loc_of(top.terminator), mnemonic(s_.f.op(top.terminator).code()), " must be the last op of its region");
      top.terminator = op_id{};
    }
    const op_view v = view(o);
    hook_(o);
    bool uses_ok = true, shape_ok = true, stage_ok = true;
    check_op(v, uses_ok, shape_ok, stage_ok);
    if (is_terminator(v.code)) top.terminator = o;
    if (shape_ok && uses_ok) {
      // Only a terminator reads its enclosing region: the body's is known, another's op is not.
      if (is_terminator(v.code) && top.pending) top.deferred.push_back(o);
      else op_rules<V>[static_cast<std::size_t>(v.code)](s_, v, enclosing_region{});
    }
    if (!is_region_op(v.code)) return finish(v, stage_ok);
    for (std::uint32_t which = 0; which < v.regions.count; ++which) settle(v, which, shape_ok);
    finish(v, shape_ok || stage_ok);
  }
  constexpr void stream_region_closed(region_id r) {
    stream_frame& fr = streamed_.back();
    const auto ops = s_.f.ops_of(r);
    if (!fr.pending) check_region_end(op_id{}, 0, ops);
    close_scope(fr.mark);
    if (fr.pending) closed_.push_back(static_cast<stream_frame&&>(fr));
    streamed_.pop_back();
  }
  /// A value placed after it was written (a storage clause): the checks `define` ran on it
  /// before it had storage.
  constexpr void stream_storage_placed(value_id v) {
    const type& t = s_.f.type_of(v);
    if (!s_.f.storage_of(v).valid() || malformed_type(t)) return;  // an invalid type is reported alone
    const value_info& info = s_.f.value(v);
    if (info.origin() == value_origin::region_arg) {
      // Held with the region's other argument checks, to be located at its op.
      for (std::size_t k = streamed_.size(); k > 0; --k) {
        stream_frame& fr = streamed_[k - 1];
        if (fr.region != info.region || !fr.pending) continue;
        const std::size_t reported = s_.out.size();
        check_value_storage(s_, t, v, location{});
        hold_reports(reported, fr.arg_errors);
        return;
      }
    }
    check_value_storage(s_, t, v, info.def.valid() ? s_.f.loc_of(info.def) : s_.f.loc);
  }

 private:
  struct frame {
    region_id region;
    std::uint32_t next = 0;
    std::size_t mark = 0;  ///< scope size when the region opened
    op_id owner;           ///< invalid for the function body
    std::uint32_t which = 0;
  };
  /// Streaming: a region being written or closed before its op is.
  struct stream_frame {
    region_id region;
    std::size_t mark = 0;                ///< scope size when the region opened
    bool pending = false;                ///< its op is not written yet (`settle` finishes the region then)
    op_id terminator;                    ///< the last op written, if it is a terminator
    std::vector<op_id> deferred;         ///< its terminators, whose rules need the region's op
    std::vector<diagnostic> arg_errors;  ///< its arguments' types', to be located at its op
  };

  /// Streaming: region `which` of region op `v`, now written. `shaped`: `v`'s operands and
  /// regions have the expected form (else `run` would not have entered them).
  constexpr void settle(const op_view& v, std::uint32_t which, bool shaped) {
    const region_id r{v.regions.begin + which};
    std::size_t k = closed_.size();
    while (k > 0 && closed_[k - 1].region != r) --k;
    if (k == 0) {  // reserved but never opened: empty, as `run` finds it
      if (shaped) check_region_end(v.id, which, s_.f.ops_of(r));
      return;
    }
    stream_frame fr = static_cast<stream_frame&&>(closed_[k - 1]);
    closed_.erase(closed_.begin() + static_cast<std::ptrdiff_t>(k - 1));
    if (!shaped) return;
    for (diagnostic& d : fr.arg_errors) {
      d.loc = v.loc;
      s_.out.push_back(static_cast<diagnostic&&>(d));
    }
    check_region_end(v.id, which, s_.f.ops_of(r));
    for (const op_id o : fr.deferred) {
      const op_view t = view(o);
      op_rules<V>[static_cast<std::size_t>(t.code)](s_, t, enclosing_region{v.id, which});
    }
  }

  /// Streaming: moves what was reported since `reported` into `held` (located later).
  constexpr void hold_reports(std::size_t reported, std::vector<diagnostic>& held) {
    for (std::size_t k = reported; k < s_.out.size(); ++k) held.push_back(static_cast<diagnostic&&>(s_.out[k]));
    s_.out.erase(s_.out.begin() + static_cast<std::ptrdiff_t>(reported), s_.out.end());
  }

  constexpr void check_params() {
    for (const auto& p : s_.f.params) {
      define(p.value, p.loc, true);
      const type* t = s_.type_of(p.value);
      if (t == nullptr) continue;
      if (s_.is_device() && t->is_tile())
        s_.fail(p.loc, "device function '@", s_.fn_name(), "' cannot take Tile parameter '", s_.label(p.value),
                "': device Tile parameters require the Buffer helper ABI recipe");
      if (p.dir != direction::in && !t->is_tensor())
        s_.fail(p.loc, "parameter '", s_.label(p.value), "' has a direction but only tensor parameters take one");
    }
  }

  //===--- SSA ---===//
  constexpr bool use(const operand& o, const op_view& v) {
    switch (o.kind) {
      case operand_kind::value: return s_.use(o.value(), v.loc);
      case operand_kind::tuple: {
        if (!in_bounds(o.tuple(), s_.f.operands.size())) {
          s_.fail(v.loc, v.mn, " has a malformed tuple operand");
          return false;
        }
        bool ok = true;
        for (const auto& e : s_.f.elements(o)) {
          if (e.kind == operand_kind::tuple) {
            s_.fail(v.loc, v.mn, " operands must not nest tuples");
            ok = false;
          } else if (e.is_value()) {
            ok = s_.use(e.value(), v.loc) && ok;
          }
        }
        return ok;
      }
      case operand_kind::symbol:
        if (o.num < 0 || !in_bounds(span32{o.ref, static_cast<std::uint32_t>(o.num)}, s_.f.names.size())) {
          s_.fail(v.loc, v.mn, " has a malformed symbol operand");
          return false;
        }
        return true;
      default: return true;
    }
  }

  /// Defines a value at `loc`: checks its type (with the value itself not yet visible), then opens it.
  constexpr void define(value_id v, location loc, bool check_stage) {
    if (!s_.known(v)) {
      s_.fail(loc, "definition of unknown value %", static_cast<std::int64_t>(v.index));
      return;
    }
    if (s_.values[v.index] != value_state::undefined) {
      s_.fail(loc, "value '", s_.label(v), "' is defined more than once");
      return;
    }
    check_type(v, loc, check_stage);
    s_.values[v.index] = value_state::visible;
    s_.scope.push_back(v);
  }

  constexpr void check_type(value_id v, location loc, bool check_stage) { check_value_type(s_, v, loc, check_stage); }

  //===--- regions ---===//
  constexpr bool enter(region_id r, op_id owner, std::uint32_t which, location loc) {
    if (r.index >= s_.f.regions.size()) {
      s_.fail(loc, "reference to unknown region #", static_cast<std::int64_t>(r.index));
      return false;
    }
    if (s_.region_seen[r.index] != 0) {
      s_.fail(loc, "region #", static_cast<std::int64_t>(r.index), " belongs to more than one op");
      return false;
    }
    s_.region_seen[r.index] = 1;
    const region_info& ri = s_.f.regions[r.index];
    if (!in_bounds(ri.ops, s_.f.region_ops.size()) || !in_bounds(ri.args, s_.f.values.size())) {
      s_.fail(loc, "region #", static_cast<std::int64_t>(r.index), " is malformed");
      return false;
    }
    frames_.push_back(frame{r, 0, s_.scope.size(), owner, which});
    for (std::uint32_t i = 0; i < ri.args.count; ++i) define(value_id{ri.args.begin + i}, loc, true);
    return true;
  }

  /// Enters region `which` (or the next well-formed one) of `owner`, or finishes `owner`.
  constexpr void advance(const op_view& owner, std::uint32_t which) {
    for (; which < owner.regions.count; ++which)
      if (enter(region_id{owner.regions.begin + which}, owner.id, which, owner.loc)) return;
    finish(owner, true);
  }

  constexpr void close() {
    const region_id region = frames_.back().region;
    const op_id owner = frames_.back().owner;
    const std::uint32_t which = frames_.back().which;
    const std::size_t mark = frames_.back().mark;
    check_region_end(owner, which, s_.f.ops_of(region));
    close_scope(mark);
    frames_.pop_back();
    if (owner.valid()) advance(view(owner), which + 1);
  }

  /// Ends the values defined since the scope had `mark` entries: they are out of scope now.
  constexpr void close_scope(std::size_t mark) {
    while (s_.scope.size() > mark) {
      s_.values[s_.scope.back().index] = value_state::out_of_scope;
      s_.scope.pop_back();
    }
  }

  /// How region `which` of `owner_id` (the function body when invalid) must end.
  constexpr void check_region_end(op_id owner_id, std::uint32_t which, std::span<const op_id> ops) {
    const op_node* last = nullptr;
    if (!ops.empty() && ops.back().index < s_.f.ops.size()) last = &s_.f.ops[ops.back().index];
    const opcode last_code = last != nullptr ? last->code() : opcode::count_;
    if (!owner_id.valid()) {
      if (!s_.f.results.empty() && last_code != opcode::cf_return)
        s_.fail(s_.f.loc, "function '@", s_.fn_name(), "' must end with a return of its ",
                static_cast<std::int64_t>(s_.f.results.size()), " result(s)");
    } else {
      const op_view owner = view(owner_id);
      if (owner.code == opcode::cf_while && which == 0) {
        // Why: a condition region may end in the comparison itself instead of `yield`.
        bool ok = last_code == opcode::cf_yield;
        if (!ok && last != nullptr && last->results.count == 1) {
          const type* t = s_.type_of(value_id{last->results.begin});
          ok = t != nullptr && t->is_scalar() && t->dt == dtype::bool_;
        }
        if (!ok) s_.fail(owner.loc, "while condition region must yield one BOOL");
      } else if (last_code != opcode::cf_yield && owner.results.count != 0) {
        s_.fail(owner.loc, owner.mn, " region must end with a yield of ", static_cast<std::int64_t>(owner.results.count),
                " value(s)");
      }
    }
  }

  //===--- ops ---===//
  /// The view of an op whose ranges were already checked by `visit`.
  constexpr op_view view(op_id o) const { return checked_view(s_.f, o); }

  constexpr void visit(op_id o, bool last) {
    if (o.index >= s_.f.ops.size()) {
      const op_id owner = frames_.back().owner;
      s_.fail(owner.valid() ? s_.f.loc_of(owner) : s_.f.loc, "region lists unknown op #", static_cast<std::int64_t>(o.index));
      return;
    }
    const op_node& n = s_.f.ops[o.index];
    if (s_.op_seen[o.index] != 0) {
      s_.fail(s_.f.loc_of(o), "op #", static_cast<std::int64_t>(o.index), " is listed in more than one region");
      return;
    }
    s_.op_seen[o.index] = 1;
    if (static_cast<std::size_t>(n.code()) >= opcode_count) {
      s_.fail(s_.f.loc_of(o), "op #", static_cast<std::int64_t>(o.index), " has an invalid opcode");
      return;
    }
    if (!in_bounds(n.args, s_.f.operands.size()) || !in_bounds(n.kwargs, s_.f.kwargs.size()) ||
        !in_bounds(n.results, s_.f.values.size()) || !in_bounds(n.regions(), s_.f.regions.size())) {
      s_.fail(s_.f.loc_of(o), mnemonic(n.code()), " has malformed operand, keyword, result or region ranges");
      return;
    }
    const op_view v = view(o);
    hook_(o);
    bool uses_ok = true, shape_ok = true, stage_ok = true;
    check_op(v, uses_ok, shape_ok, stage_ok);
    if (is_terminator(v.code) && !last) s_.fail(v.loc, v.mn, " must be the last op of its region");
    // Why: an undefined or invisible operand is reported once, not again as a type mismatch.
    if (shape_ok && uses_ok) check_rules(v);
    if (is_region_op(v.code) && shape_ok) advance(v, 0);
    else finish(v, stage_ok);
  }

  /// An op's operands, keywords, signature, result and region counts and stage.
  constexpr void check_op(const op_view& v, bool& uses_ok, bool& shape_ok, bool& stage_ok) {
    const op_info& row = info(v.code);
    for (const auto& a : v.args) uses_ok = use(a, v) && uses_ok;
    check_kwargs(v, row);
    shape_ok = check_signature(v);
    if (row.results == arity::none && v.results.count != 0) {
      s_.fail(v.loc, v.mn, " must not have results");
      shape_ok = false;
    } else if (row.results == arity::one && v.results.count != 1) {
      s_.fail(v.loc, v.mn, " must have exactly one result");
      shape_ok = false;
    }
    if (v.regions.count != region_count(v.code)) {
      s_.fail(v.loc, v.mn, " must own ", static_cast<std::int64_t>(region_count(v.code)), " region(s), has ",
              static_cast<std::int64_t>(v.regions.count));
      shape_ok = false;
    }
    stage_ok = check_op_stage(v);
  }

  /// Defines the results of an op once its operands (and regions) have been checked.
  constexpr void finish(const op_view& v, bool check_stage) {
    for (std::uint32_t i = 0; i < v.results.count; ++i) define(value_id{v.results.begin + i}, v.loc, check_stage);
  }

  constexpr void check_kwargs(const op_view& v, const op_info& row) {
    std::uint16_t seen = 0;
    for (const auto& kw : v.kws) {
      if (!enum_ok(kw.key, static_cast<keyword>(keyword_names.size() - 1))) {
        s_.fail(v.loc, v.mn, " has an unknown keyword");
        continue;
      }
      const std::string_view key = keyword_names[static_cast<std::size_t>(kw.key)];
      const std::uint16_t bit = kw_bit(kw.key);
      if ((row.keywords & bit) == 0) s_.fail(v.loc, v.mn, " does not accept keyword '", key, "'");
      if ((seen & bit) != 0) s_.fail(v.loc, v.mn, " keyword '", key, "' is given more than once");
      seen = static_cast<std::uint16_t>(seen | bit);
      if (kw.value.is_value()) {
        s_.use(kw.value.value(), v.loc);
      } else if (!kw.value.is_literal()) {
        s_.fail(v.loc, v.mn, " keyword '", key, "' must be a literal or a scalar value");
      } else if ((kw.key == keyword::high_precision || kw.key == keyword::pre_relu) && kw.value.kind != operand_kind::bool_lit) {
        s_.fail(v.loc, v.mn, " keyword '", key, "' must be true or false");
      }
    }
  }

  /// Operand kinds per the catalogue signature (see `op_info`).
  constexpr bool check_signature(const op_view& v) {
    const signature& sig = signature_of(v.code);
    const std::size_t n = v.args.size();
    if (!sig.accepts(n)) {
      text want;
      want << static_cast<std::int64_t>(sig.min);
      if (sig.variadic) want << " or more";
      else if (sig.size != sig.min) want << " to " << static_cast<std::int64_t>(sig.size);
      s_.fail(v.loc, v.mn, " expects ", want, " operand(s), got ", static_cast<std::int64_t>(n));
      return false;
    }
    bool ok = true;
    // Operands past the listed letters are the `*` tail: values or literals, as `at` says.
    for (std::size_t k = 0; k < n; ++k) ok = kind_ok(v, sig.at(k), v.args[k], k) && ok;
    return ok;
  }

  constexpr bool kind_ok(const op_view& v, char letter, const operand& o, std::size_t k) {
    bool ok = false;
    std::string_view want;
    switch (letter) {
      case 'v':
        ok = o.is_value();
        want = "a value";
        break;
      case 's':
      case '*':
        ok = o.is_value() || o.is_literal();
        want = "a value or a literal";
        break;
      case 'p':
        ok = o.kind == operand_kind::tuple && o.tuple().count == 2;
        want = "a pair (a, b)";
        break;
      case 't':
        ok = o.kind == operand_kind::tuple;
        want = "a tuple";
        break;
      case 'm':
        ok = o.kind == operand_kind::space && o.num >= 0 && o.num <= static_cast<std::int64_t>(memory_space::acc);
        want = "a memory space";
        break;
      case 'd':
        ok = o.kind == operand_kind::dtype && o.num >= 0 && o.num <= static_cast<std::int64_t>(dtype::index);
        want = "a dtype";
        break;
      case 'f':
        ok = o.kind == operand_kind::symbol;
        want = "a function symbol";
        break;
      default: break;
    }
    if (!ok) s_.fail(v.loc, v.mn, " operand ", static_cast<std::int64_t>(k), " must be ", want);
    return ok;
  }

  constexpr bool check_op_stage(const op_view& v) {
    const dialect d = dialect_of(v.code);
    if (s_.is_orchestration()) {
      if (d == dialect::tile || d == dialect::buffer) {
        s_.fail(v.loc, v.mn, " is not allowed in an orchestration function");
        return false;
      }
    } else if (d == dialect::orchestration) {
      s_.fail(v.loc, v.mn, " is only allowed in orchestration functions: a device function cannot submit tasks");
      return false;
    } else if (s_.buffer_stage() && d == dialect::tile) {
      s_.fail(v.loc, v.mn, " is not allowed in a Buffer-stage function");
      return false;
    } else if (s_.tile_stage() && d == dialect::buffer) {
      s_.fail(v.loc, v.mn, " is not allowed in a Tile-stage function");
      return false;
    }
    return true;
  }

  constexpr void check_rules(const op_view& v) {
    const frame& top = frames_.back();
    op_rules<V>[static_cast<std::size_t>(v.code)](s_, v, enclosing_region{top.owner, top.which});
  }

  verify_state s_;
  std::vector<frame> frames_;
  std::vector<stream_frame> streamed_;  ///< streaming: the open regions, innermost last
  std::vector<stream_frame> closed_;    ///< streaming: closed regions whose op is not written yet
  Hook hook_;
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
