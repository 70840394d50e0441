// SPDX-License-Identifier: Apache-2.0
/// @file checks/buffer.hpp
/// The Buffer IR verifier (reference §4.4) on top of the structural verifier: descriptors, window
/// provenance, and the pairwise storage proofs — elementwise inputs against their destination
/// (exact or disjoint; `recip` strictly disjoint) and copies through views. A check, not a pass,
/// because three readers ask it: the verify_buffer pass, lower on its own output, and the PTO
/// emitter on the kernel it is given (emit/ includes nothing from passes/).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/analysis/descriptor.hpp"
#include "tile2buffer/analysis/regions.hpp"
#include "tile2buffer/analysis/storage_overlap.hpp"
#include "tile2buffer/detail/checked.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/build_observer.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/ir/walk.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// Where a Buffer handle's bytes are: its root allocation, the byte offset of its first element
/// in that root (for a runtime offset, the start of the source window it lies in), the byte span it may touch, and whether the root is
/// addressed (then `address` is the root's effective address).
struct provenance {
  bool known = false;
  value_id root;
  std::int64_t offset = 0;
  std::int64_t span = 0;
  std::int64_t pitch = 0;  ///< row pitch in bytes (inherited by subviews)
  std::optional<std::int64_t> address;
  bool precise = true;  ///< false: [offset, offset + span) only bounds the window (runtime offsets)
};

class buffer_checker {
 public:
  constexpr explicit buffer_checker(const function& f) : f_(f), prov_of_(f.values.size(), no_id) {}

  constexpr std::vector<diagnostic> run() {
    walk(f_, [&](op_id o) { visit(o); });
    return take_errors();
  }
  /// One op, in program order: for a walk this checker shares (the structural verifier's), or
  /// as a builder writes the function.
  constexpr void check(op_id o) {
    cover(prov_of_, f_.values, no_id);
    visit(o);
  }
  constexpr std::vector<diagnostic> take_errors() { return static_cast<std::vector<diagnostic>&&>(errors_); }

 private:
  constexpr void fail(op_id o, text msg) {
    errors_.push_back(diagnostic{f_.loc_of(o), text("verify-buffer"), static_cast<text&&>(msg), {}});
  }
  static constexpr value_id value_of(const operand& x) { return x.is_value() ? x.value() : value_id{}; }
  /// Buffer handles are never yielded, carried or returned: storage identity is explicit, so a
  /// handle flowing through control flow would be an implicit alias.
  constexpr void check_no_escaping_handle(op_id o) {
    const opcode c = f_.op(o).code();
    const std::string_view how = has_trait(c, trait::exits_function) ? "returned"
                                 : is_terminator(c)                  ? "yielded"
                                                                     : "a region result or carry";
    // A region op's own operands are carried only into a loop (an if's condition is a scalar).
    const auto operands = is_loop_op(c) ? loop_inits(f_, o) : is_region_op(c) ? std::span<const operand>{} : f_.args(o);
    for (const operand& x : operands)
      if (x.is_value() && f_.type_of(x.value()).is_buffer())
        fail(o, text("Buffer handle '") << f_.name_of(x.value()) << "' cannot be " << how);
    for (std::uint32_t i = 0; is_region_op(c) && i < f_.op(o).results.count; ++i)
      if (f_.type_of(f_.result(o, i)).is_buffer())
        fail(o, text("Buffer handle '") << f_.name_of(f_.result(o, i)) << "' cannot be " << how);
  }
  constexpr void visit(op_id o) {
    const op_node& n = f_.op(o);
    const opcode c = n.code();
    if (is_terminator(c) || is_region_op(c)) check_no_escaping_handle(o);
    if (!is_buffer_op(c)) return;
    if (has_trait(c, trait::allocates)) {
      const value_id h = f_.result(o);
      const type& t = f_.type_of(h);
      if (const operand address = typed<buffer::alloc>(f_, o).address(); address.kind != operand_kind::none) {
        if (address.kind == operand_kind::int_lit && address.num >= 0) {
          // Why here and not only in the planners: an address written in the input is the
          // caller's plan, and nothing else checks that it lies inside the space.
          if (detail::sum_exceeds(address.num, t.bytes(), space_capacity(t.space)))
            fail(o, text("buffer.alloc of ") << t.bytes() << " bytes at address " << address.num << " exceeds " << name(t.space)
                                             << ", which holds " << space_capacity(t.space) << " bytes");
        } else fail(o, text("buffer.alloc requires a nonnegative constant placed address"));
      }
      prov_of_[h.index] = allocated;
      check_descriptor(o, t);
      return;
    }
    if (has_trait(c, trait::relabel) || has_trait(c, trait::window)) {
      const value_id src = value_of(in_place_operand(f_, o));
      const value_id h = f_.result(o);
      const type& t = f_.type_of(h);
      check_descriptor(o, t);
      if (!src.valid() || !prov(src).known) {
        fail(o, text(mnemonic(c)) << " requires proven source-window provenance");
        return;
      }
      provenance p = prov(src);
      if (has_trait(c, trait::relabel)) {
        if (t.bytes() != f_.type_of(src).bytes()) fail(o, text("buffer.reshape must preserve the physical byte size"));
        p.pitch = t.row_bytes();
        if (p.precise) p.span = t.bytes();
      } else {
        const auto off = f_.elements(typed<buffer::subview>(f_, o).offsets());
        const std::int64_t es = element_bytes(t.dt);
        if (p.precise && off.size() == 2 && off[0].kind == operand_kind::int_lit && off[1].kind == operand_kind::int_lit) {
          p.offset += off[0].num * p.pitch + off[1].num * es;
          p.span = (t.shape[0] - 1) * p.pitch + t.shape[1] * es;
        } else {
          // A runtime offset may place the window anywhere inside its source window: keep the
          // source's range (the safe over-approximation) and forget exactness.
          p.precise = false;
        }
      }
      set_prov(h, p);
      return;
    }
    // The written storage against each input it must not partially overlap: exactly its window
    // (in place) only where the op allows it, once per distinct input (`add(w, w, d)`).
    if (!has_disjoint_operands(c)) return;
    const auto inputs = disjoint_operands(f_, o);
    const value_id dst = value_of(written_operand(f_, o));
    const bool exact_allowed = has_trait(c, trait::may_alias_exactly);
    const operand tmp = scratch_operand(f_, o);
    const value_id scratch = tmp.is_value() ? tmp.value() : value_id{};
    // The scratch's pairs are proved below, where the message names it.
    if (inputs[0].kind != operand_kind::none && value_of(inputs[0]) != scratch) prove(o, value_of(inputs[0]), dst, exact_allowed);
    if (inputs[1].kind != operand_kind::none && value_of(inputs[1]) != value_of(inputs[0]) && value_of(inputs[1]) != scratch)
      prove(o, value_of(inputs[1]), dst, exact_allowed);
    // A scratch (clobbered, or holding a broadcast block) must be disjoint from every other
    // operand, the destination included, and must not be named twice (`row_sum(a, a, s)`).
    if (!scratch.valid()) return;
    int named = 0;
    for (const operand& x : f_.args(o)) {
      if (!x.is_value()) continue;
      if (x.value() == scratch) ++named;
      else if (f_.type_of(x.value()).is_buffer()) prove(o, x.value(), scratch, false, scratch);
    }
    if (named > 1) prove(o, scratch, scratch, false, scratch);
  }

  constexpr void check_descriptor(op_id o, const type& t) {
    if (!t.is_buffer()) return;
    if (t.space == memory_space::vec) {
      // A column vector (extended rollout) stores its R elements contiguously: R * esize is what
      // must be 32-byte aligned, as a row's bytes are for a row-major tile.
      const bool column = is_column_vector(t);
      if (!is_dense_vec(t) && !column) fail(o, text("Vec buffer descriptors must be dense row-major or [R, 1] column vectors"));
      if (t.dt != dtype::uint8 && t.dt != dtype::int16 && !is_vec_transfer_dtype(t.dt, true))
        fail(o, text("Vec buffer descriptor dtype ") << name(t.dt) << " is not FP16/BF16/FP32/INT8/INT16/INT32/UINT8");
      if (column ? t.bytes() % 32 != 0 : t.row_bytes() % 32 != 0)
        fail(o, text(column ? "a column-vector Buffer descriptor needs R * element bytes aligned to 32 bytes"
                            : "Buffer descriptor needs physical rows aligned to 32 bytes"));
    } else if (text why = matrix_descriptor_problem(t); !why.empty()) {
      fail(o, text("a matrix Buffer descriptor ") << why);
    }
  }

  /// The storage proof of reference §4.4 for (source, destination); with `scratch` (one of the
  /// two), the pair is the op's scratch operand and another operand, and the message names them.
  constexpr void prove(op_id o, value_id src, value_id dst, bool exact_allowed, value_id scratch = {}) {
    if (!src.valid() || !dst.valid()) return;
    const std::string_view m = mnemonic(f_.op(o).code());
    const auto scratch_pair = [&] {
      const value_id other = src == scratch ? dst : src;
      return text(m) << " scratch " << info(f_.op(o).code()).scratch << " must not overlap '" << f_.name_of(other) << "' (";
    };
    if (src == dst) {
      if (!exact_allowed)
        fail(o, scratch.valid() ? scratch_pair() << "it is the same buffer)"
                                : text(m) << " requires a destination distinct from its source");
      return;
    }
    const type& ts = f_.type_of(src);
    const type& td = f_.type_of(dst);
    if (ts.space != td.space) return;
    const provenance a = prov(src);
    const provenance b = prov(dst);
    if (!a.known || !b.known) return fail(o, text(m) << " requires proven allocation provenance");
    std::int64_t sa = a.offset, sb = b.offset;
    if (a.root != b.root) {
      if (!a.address && !b.address) return;  // distinct addressless allocations are fresh storage
      // Not provable: an addressless range beside an addressed one, or an address past 2^63.
      const auto placed = [](std::int64_t off, const std::optional<std::int64_t>& at) {
        return at ? checked_sum(off, *at) : std::nullopt;
      };
      const std::optional<std::int64_t> xa = placed(sa, a.address), xb = placed(sb, b.address);
      if (!xa || !xb) return fail(o, text(m) << " requires provably disjoint constant addresses or addressless allocations");
      sa = *xa;
      sb = *xb;
    }
    const bool exact = a.precise && b.precise && sa == sb && a.span == b.span && ts.shape == td.shape;
    if (exact && exact_allowed) return;
    if (sum_exceeds(sb, b.span, sa) && sum_exceeds(sa, a.span, sb)) {
      // Why both phrases for a partial overlap of a strictly disjoint op: hosts match either.
      text why = scratch.valid() ? scratch_pair() << disjoint_phrase : text(m) << ' ';
      if (!scratch.valid() && (exact_allowed || !exact)) why << partial_phrase;
      if (!scratch.valid() && !exact_allowed) why << (exact ? "" : ": it ") << disjoint_phrase;
      if (!a.precise || !b.precise) why << (scratch.valid() ? "; " : " (") << "a runtime window offset may reach the other range";
      if (scratch.valid() || !a.precise || !b.precise) why << ')';
      fail(o, static_cast<text&&>(why));
    }
  }

  const function& f_;
  // Why an index per value, and a record only per view: most values are scalars or allocations
  // (whose provenance their alloc states), and lower's output is checked while its Tile kernel
  // is still held (a record per handle was 11 MB of the 100k-op line's peak).
  static constexpr std::uint32_t allocated = no_id - 1;  ///< prov_of_: an allocation already checked
  constexpr provenance prov(value_id v) const {
    const std::uint32_t at = prov_of_[v.index];
    if (at == no_id) return provenance{};
    if (at != allocated) return provs_[at];
    const type& t = f_.type_of(v);
    provenance p{true, v, 0, t.bytes(), t.row_bytes(), std::nullopt, true};
    const operand address = typed<buffer::alloc>(f_, f_.value(v).def).address();
    if (address.kind == operand_kind::int_lit && address.num >= 0) p.address = address.num;
    return p;
  }
  constexpr void set_prov(value_id v, const provenance& p) {
    if (prov_of_[v.index] == no_id) {
      prov_of_[v.index] = static_cast<std::uint32_t>(provs_.size());
      provs_.push_back(p);
    } else {
      provs_[prov_of_[v.index]] = p;
    }
  }
  std::vector<std::uint32_t> prov_of_;  ///< by value: its record in provs_, or no_id
  std::vector<provenance> provs_;       ///< per view (subview, reshape) checked
  std::vector<diagnostic> errors_;
};

/// The storage proofs as a `function_verifier` hook: they share its walk, or its stream.
struct prove_each {
  buffer_checker* checker;
  constexpr void operator()(op_id o) const { checker->check(o); }
};

}  // namespace detail

/// What a Buffer-stage function's checks found while it was written (`written_buffer_check`).
struct written_check_result {
  std::vector<diagnostic> structural;
  std::vector<diagnostic> proofs;
};

namespace detail {
/// The structural verifier and the Buffer storage proofs on each op as `function_builder` writes
/// it: `lower` checks its output so, and does not walk it again. Attach it to the builder once
/// the function's parameters and stage are written; read `result` once it is finished.
class written_buffer_check final : public build_observer {
 public:
  constexpr explicit written_buffer_check(const function& being_written)
      : index_(no_callees_), checker_(being_written),
        verifier_(no_callees_, index_, being_written, structural_, prove_each{&checker_}) {
    verifier_.stream_begin();
  }
  // Why user-provided: g++-12's constant evaluator calls an implicit virtual destructor "before
  // its definition" when an optional destroys this.
  constexpr ~written_buffer_check() override {}
  written_buffer_check(const written_buffer_check&) = delete;
  written_buffer_check& operator=(const written_buffer_check&) = delete;
  constexpr void region_opened(region_id r) override { verifier_.stream_region_opened(r); }
  constexpr void op_emitted(op_id o) override { verifier_.stream_op(o); }
  constexpr void region_closed(region_id r) override { verifier_.stream_region_closed(r); }
  constexpr void storage_placed(value_id v) override { verifier_.stream_storage_placed(v); }

  /// The diagnostics of the finished function. A function with structural errors is proved by a
  /// walk of its own, as `buffer_errors` proves it.
  constexpr written_check_result result(const function& finished) {
    written_check_result r{static_cast<std::vector<diagnostic>&&>(structural_), {}};
    r.proofs = r.structural.empty() ? checker_.take_errors() : buffer_checker(finished).run();
    return r;
  }

 private:
  // Why no program: a device function calls none (`submit` is orchestration-only).
  program no_callees_;
  function_index index_;
  std::vector<diagnostic> structural_;
  buffer_checker checker_;
  function_verifier<void, prove_each> verifier_;
};
}  // namespace detail

/// The structural verifier on the whole program, then the Buffer storage proofs on every
/// Buffer-stage function: verify_buffer's diagnostics (the pipeline checks with this without
/// copying the program), and what `lower` asks of its output. One walk per function: the proofs
/// ride on the verifier's walk. A function the verifier finds malformed is proved by a walk of
/// its own instead, as before the two shared one (the verifier does not descend into a malformed
/// region op, the proofs do), so the diagnostics are the same either way. `written[i]`, when
/// set, holds what function `i`'s checks found as it was written (lower's output): it is not
/// walked again.
template <class = void>
constexpr std::vector<diagnostic> buffer_errors(const program& p, std::span<std::optional<written_check_result>> written = {}) {
  std::vector<diagnostic> proofs;
  const auto add_proofs = [&](std::vector<diagnostic>& proven, const function& f) {
    name_function(proven, f.name_of());
    for (auto& d : proven) proofs.push_back(static_cast<diagnostic&&>(d));
  };
  std::vector<diagnostic> out = detail::verify_functions(
      p, [&](std::uint32_t i, const detail::function_index& index, const function& f, std::vector<diagnostic>& found) {
        if (i < written.size() && written[i]) {
          for (auto& d : written[i]->structural) found.push_back(static_cast<diagnostic&&>(d));
          add_proofs(written[i]->proofs, f);
          return;
        }
        if (f.stage != ir_stage::buffer) {
          detail::function_verifier<>(p, index, f, found).run();
          return;
        }
        detail::buffer_checker checker(f);
        const std::size_t before = found.size();
        detail::function_verifier<void, detail::prove_each>(p, index, f, found, detail::prove_each{&checker}).run();
        std::vector<diagnostic> proven = found.size() == before ? checker.take_errors() : detail::buffer_checker(f).run();
        add_proofs(proven, f);
      });
  for (auto& d : proofs) out.push_back(static_cast<diagnostic&&>(d));
  return out;
}

}  // namespace v0
}  // namespace tile2buffer
