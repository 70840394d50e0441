// SPDX-License-Identifier: Apache-2.0
/// @file emit/preflight.hpp
/// The emission-level contract (reference §3.3): what a verified Buffer-stage kernel must also
/// satisfy before it can be written as PTO-AS. Every violation is a located diagnostic with
/// source "emit-pto"; the emitter writes nothing for a kernel that has one.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tile2buffer/analysis/descriptor.hpp"
#include "tile2buffer/analysis/pto_abi.hpp"
#include "tile2buffer/analysis/scalar_contract.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/emit/mlir.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/walk.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

inline constexpr std::string_view pto_source = "emit-pto";

constexpr bool is_vec_buffer_dtype(dtype d) { return is_vec_transfer_dtype(d, true) || d == dtype::int16 || d == dtype::uint8; }
/// The integer of `o` when it is a literal or a value bound by `c = N` (of any integer dtype).
constexpr std::optional<std::int64_t> int_constant(const function& f, const operand& o) {
  if (o.kind == operand_kind::int_lit) return o.num;
  if (!o.is_value() || o.value().index >= f.values.size()) return std::nullopt;
  const value_info& v = f.value(o.value());
  if (v.origin() != value_origin::result || !v.def.valid() || f.op(v.def).code() != opcode::scalar_const) return std::nullopt;
  const operand c = view<opcode::scalar_const>(f, v.def).value();
  if (c.kind != operand_kind::int_lit) return std::nullopt;
  return c.num;
}

/// True when `o` is a positive integer constant: a literal, or a value bound by `c = N`.
constexpr bool positive_constant(const function& f, const operand& o) {
  const std::optional<std::int64_t> c = int_constant(f, o);
  return c && *c > 0;
}

/// The integer MLIR sees in a PTO index operand when the emitter writes an arith.constant for it:
/// a literal, or a value bound by an INDEX `c = N` (a constant of another dtype reaches an index
/// operand through arith.index_cast, which is no constant to ptoas).
constexpr std::optional<std::int64_t> index_constant(const function& f, const operand& o) {
  if (o.is_value() && (o.value().index >= f.values.size() || f.type_of(o.value()).dt != dtype::index)) return std::nullopt;
  return int_constant(f, o);
}

/// The type the PTO-AS gives value `v`: its Buffer type, except a subview's valid dim whose
/// operand is a constant, which ptoas types as min(constant, size) and rejects as `?`
/// (pto-dialect.md §4 subview) while the Buffer IR may keep it runtime. The emitter prints this
/// type and the preflight's tmatmul extents read it, so both see what ptoas sees.
constexpr type pto_type(const function& f, value_id v) {
  type t = f.type_of(v);
  const value_info& info = f.value(v);
  if (!t.is_buffer() || info.origin() != value_origin::result || f.op(info.def).code() != opcode::buffer_subview) return t;
  const typed<buffer::subview> s(f, info.def);
  if (s.valid().kind == operand_kind::none) return t;
  const auto e = s.elements(s.valid());
  for (std::size_t i = 0; i < 2 && i < e.size(); ++i)
    if (const std::optional<std::int64_t> c = index_constant(f, e[i]); c && !t.valid[i].is_static())
      t.valid[i] = extent::of(*c < t.shape[i] ? *c : t.shape[i]);
  return t;
}

class pto_preflight {
 public:
  constexpr pto_preflight(const function& f, std::vector<diagnostic>& out) : f_(f), out_(out) {}

  constexpr void run() {
    params();
    results_and_return();
    walk(f_, [&](op_id o) { op(o); });
  }

 private:
  constexpr void fail(location loc, const text& m) { out_.push_back(diagnostic{loc, text(pto_source), m, {}}); }
  constexpr text who() const { return text("@") << f_.name_of() << ": "; }

  /// The parameters against the PTO kernel ABI (analysis/pto_abi.hpp, which selection asks too).
  constexpr void params() {
    for (const param_info& p : f_.params)
      for (const text& why : pto_parameter_problems(f_, p)) fail(p.loc, who() << why);
  }

  constexpr void results_and_return() {
    if (text why = pto_results_problem(f_); !why.empty()) {
      fail(f_.loc, who() << why);
      return;
    }
    const auto body = f_.ops_of(f_.body);
    if (body.empty() || f_.op(body.back()).code() != opcode::cf_return) {
      fail(f_.loc, who() << "the body must end with one top-level return");
      return;
    }
    const op_id ret = body.back();
    const auto vals = f_.args(ret);
    for (std::size_t i = 0; i < vals.size(); ++i) {
      const operand& v = vals[i];
      const bool param = v.is_value() && v.value().index < f_.values.size() &&
                         f_.value(v.value()).origin() == value_origin::param && f_.type_of(v.value()).is_tensor();
      if (!param || i >= f_.results.size() || !(f_.type_of(v.value()) == f_.results[i])) {
        fail(f_.loc_of(ret), who() << "return value " << static_cast<std::int64_t>(i)
                                   << " must be a GM tensor parameter whose type equals the declared result");
        return;
      }
    }
    // A return anywhere else would end the kernel early, which the single native `return` cannot say.
    walk(f_, [&](op_id o) {
      if (o != ret && f_.op(o).code() == opcode::cf_return)
        fail(f_.loc_of(o), who() << "a return inside a region has no PTO form; only the final top-level return");
    });
  }

  constexpr void descriptor(const type& t, location loc, std::string_view what) {
    if (!t.is_buffer()) return;
    if (t.space == memory_space::vec) {
      if (!is_vec_buffer_dtype(t.dt))
        fail(loc, who() << what << " holds " << name(t.dt)
                        << " in Vec; PTO Vec tiles are FP16, BF16, FP32, INT32, INT16, INT8 or UINT8");
      if (is_column_vector(t)) {
        if (t.bytes() % 32 != 0)
          fail(loc,
               who() << what << " is a column vector of " << t.bytes() << " bytes; PTO needs R * element bytes aligned to 32");
        return;
      }
      if (!is_dense_vec(t))
        fail(loc, who() << what << " is a Vec buffer that is not dense row-major (no boxes, pad or compaction)");
      return;
    }
    if (text why = matrix_descriptor_problem(t); !why.empty()) fail(loc, who() << what << ' ' << why);
  }

  constexpr void scalar_result_only(op_id o, std::string_view what) {
    const op_node& n = f_.op(o);
    for (std::uint32_t i = 0; i < n.results.count; ++i)
      if (!f_.type_of(f_.result(o, i)).is_scalar()) {
        fail(f_.loc_of(o), who() << what << " result " << static_cast<std::int64_t>(i)
                                 << " is not a scalar; native control flow has only scalar region results and carries");
        return;
      }
    for (std::uint32_t r = 0; r < n.region_count; ++r) {
      const region_info& reg = f_.region(f_.region_of(o, r));
      for (std::uint32_t a = 0; a < reg.args.count; ++a)
        if (!f_.type_of(value_id{reg.args.begin + a}).is_scalar()) {
          fail(f_.loc_of(o),
               who() << what << " carries a non-scalar value; native control flow has only scalar region results and carries");
          return;
        }
    }
  }

  constexpr void tensor_param(op_id o, const operand& t, bool write) {
    const location loc = f_.loc_of(o);
    if (!t.is_value() || t.value().index >= f_.values.size() || f_.value(t.value()).origin() != value_origin::param) {
      fail(loc, who() << mnemonic(f_.op(o).code()) << " must " << (write ? "write" : "read") << " a GM tensor parameter");
      return;
    }
    if (text why = parameter_direction_problem(f_, t.value(), write); !why.empty())
      fail(loc, who() << mnemonic(f_.op(o).code()) << ' ' << why);
  }

  constexpr void op(op_id o) {
    const op_node& n = f_.op(o);
    const opcode c = n.code();
    const auto args = f_.args(o);
    const location loc = f_.loc_of(o);
    for (std::uint32_t i = 0; i < n.results.count; ++i) {
      const type& t = f_.type_of(f_.result(o, i));
      if (!t.is_buffer() && !t.is_scalar()) {
        // A GM loop carry or branch result: lowering replaces it by the parameter it aliases.
        fail(loc, who() << "'" << mnemonic(c) << "' defines a value that is neither a buffer nor a scalar"
                        << (is_region_op(c) ? "; native control flow has only scalar region results and carries" : ""));
        return;
      }
      descriptor(t, loc, (text("the result of '") << mnemonic(c) << "'").view());
    }
    switch (dialect_of(c)) {
      case dialect::tile:
      case dialect::orchestration: fail(loc, who() << "'" << mnemonic(c) << "' has no PTO form in a Buffer-stage kernel"); return;
      case dialect::scalar: scalar_op(o); return;
      case dialect::control: control_op(o); return;
      case dialect::buffer: break;
    }
    switch (c) {
      case opcode::buffer_load:
        if (args.size() == 4) tensor_param(o, view<opcode::buffer_load>(f_, o).tensor(), false);
        return;
      case opcode::buffer_store:
        if (args.size() == 4) tensor_param(o, view<opcode::buffer_store>(f_, o).tensor(), true);
        return;
      case opcode::buffer_set_validshape:
        if (const operand h = view<opcode::buffer_set_validshape>(f_, o).buffer();
            h.is_value() && h.value().index < f_.values.size()) {
          const type& t = f_.type_of(h.value());
          if (!(t.valid[0].is_runtime() && t.valid[1].is_runtime()))
            fail(loc, who() << "buffer.set_validshape needs a buffer whose valid extents are both runtime ('?')");
        }
        return;
      case opcode::buffer_matmul:
      case opcode::buffer_matmul_acc:
        if (text why = matmul_extents_problem(o); !why.empty()) fail(loc, who() << why);
        return;
      default: break;
    }
    if (text why = precision_flag_problem(f_, o); !why.empty()) fail(loc, who() << why);
    // ptoas's elementwise ops hold no unsigned element type and take signless scalars only (a
    // `ui8` scalar operand is rejected by its operand constraint): UINT8 is the byte roots' type.
    if (const operand d = named_operand<"dest">(f_, o); info(c).ew != ew_kind::none && d.is_value() &&
                                                        d.value().index < f_.values.size() &&
                                                        is_unsigned(f_.type_of(d.value()).dt)) {
      fail(loc, who() << "'" << mnemonic(c) << "' on a " << name(f_.type_of(d.value()).dt)
                      << " buffer has no PTO form; PTO elementwise ops take signless element types only");
      return;
    }
    // Element scalars: a literal must be representable in the destination's element type.
    const ew_kind ew = info(c).ew;
    const operand dest = named_operand<"dest">(f_, o);
    if ((ew == ew_kind::scalar_form || ew == ew_kind::fill) && dest.is_value() && dest.value().index < f_.values.size()) {
      const operand s = ew == ew_kind::fill ? named_operand<"value">(f_, o) : named_operand<"scalar">(f_, o);
      const dtype dst = f_.type_of(dest.value()).dt;
      if (s.kind == operand_kind::float_lit && !is_float(dst))
        fail(loc, who() << "a float literal cannot be the element scalar of a buffer of " << name(dst));
    }
  }

  constexpr void scalar_op(op_id o) {
    if (text why = scalar_op_problem(f_, o); !why.empty()) fail(f_.loc_of(o), who() << why);
  }

  /// ptoas checks tmatmul's M, K and N on "logical" extents, the valid extent when static and the
  /// physical one when runtime, and wants Left [M, K], Right [K, N] and Acc [M, N] to agree
  /// exactly (pto-dialect.md §4). A Right valid over more static rows than the Left's static K
  /// is narrowed by the emitter (pto_emitter::right_operand); any other disagreement, which a
  /// runtime extent brings, has no PTO form.
  constexpr text matmul_extents_problem(op_id o) const {
    const auto args = f_.args(o);
    const operand lo = named_operand<"lhs">(f_, o), ro = named_operand<"rhs">(f_, o), d = named_operand<"dest">(f_, o);
    if (args.empty() || !lo.is_value() || !ro.is_value() || !d.is_value()) return {};
    const type l = pto_type(f_, lo.value()), r = pto_type(f_, ro.value()), a = pto_type(f_, d.value());
    if (!l.is_buffer() || !r.is_buffer() || !a.is_buffer()) return {};
    const auto logical = [](const type& t, std::size_t axis) {
      return t.valid[axis].is_static() ? t.valid[axis].number : t.shape[axis];
    };
    const bool narrowed = l.valid[1].is_static() && r.valid[0].is_static() && r.valid[1].is_static() &&
                          r.valid[0].number > l.valid[1].number;
    text why;
    if (logical(l, 1) != logical(r, 0) && !narrowed)
      why << "the Left's K (" << logical(l, 1) << ") and the Right's (" << logical(r, 0) << ')';
    else if (logical(l, 0) != logical(a, 0))
      why << "the Left's M (" << logical(l, 0) << ") and the Acc's (" << logical(a, 0) << ')';
    else if (logical(r, 1) != logical(a, 1))
      why << "the Right's N (" << logical(r, 1) << ") and the Acc's (" << logical(a, 1) << ')';
    if (why.empty()) return why;
    return text("'") << mnemonic(f_.op(o).code()) << "': " << why
                     << " differ; ptoas's tmatmul takes M, K, N as the valid extents, or the physical ones where "
                        "the valid extent is runtime ('?'), and needs them equal";
  }

  constexpr void control_op(op_id o) {
    const op_node& n = f_.op(o);
    switch (n.code()) {
      case opcode::cf_if: {
        scalar_result_only(o, "if");
        const operand cond = view<opcode::cf_if>(f_, o).cond();
        const auto d = cond.kind == operand_kind::none ? std::nullopt : scalar_dtype(f_, cond);
        if (cond.kind == operand_kind::none || (cond.kind != operand_kind::bool_lit && d != dtype::bool_))
          fail(f_.loc_of(o), who() << "an if condition must be a BOOL value");
        return;
      }
      case opcode::cf_for: {
        scalar_result_only(o, "for");
        const region_info& body = f_.region(f_.region_of(o, 0));
        if (body.args.count == 0 || f_.type_of(value_id{body.args.begin}).dt != dtype::index)
          fail(f_.loc_of(o), who() << "a for loop needs an INDEX induction variable");
        const view<opcode::cf_for> loop(f_, o);
        for (const operand bound : {loop.start(), loop.stop()}) {
          if (bound.kind == operand_kind::none) continue;
          const auto d = scalar_dtype(f_, bound);
          if (bound.kind != operand_kind::int_lit && !(d && (*d == dtype::index || is_signed_integer(*d))))
            fail(f_.loc_of(o), who() << "for-loop bounds must be INDEX or signed integers");
        }
        if (loop.step().kind == operand_kind::none || !positive_constant(f_, loop.step()))
          fail(f_.loc_of(o), who() << "a for-loop step must be a provably positive constant");
        return;
      }
      case opcode::cf_while: scalar_result_only(o, "while"); return;
      default: return;
    }
  }

  const function& f_;
  std::vector<diagnostic>& out_;
};

/// The PTOAS level of a module follows its Buffer IR: `ptoas --pto-level=level3` takes an `addr`
/// on every pto.alloc_tile, level1/level2 take none (pto-dialect.md §1), so a module that
/// addresses some allocations and not others is rejected at either level. Fed every kernel of
/// one module; reports the first allocation that disagrees with the first one seen.
class pto_level_check {
 public:
  constexpr void add(const function& f, std::vector<diagnostic>& out) {
    walk(f, [&](op_id o) {
      if (reported_ || f.op(o).code() != opcode::buffer_alloc) return;
      const typed<buffer::alloc> a(f, o);
      const bool addressed = a.address().kind != operand_kind::none;
      const std::string_view name = f.name_of(a.result());
      if (!seen_) {
        seen_ = true;
        first_addressed_ = addressed;
        first_ = text("'") << name << "' (@" << f.name_of() << ')';
        first_loc_ = a.loc();
        return;
      }
      if (addressed == first_addressed_) return;
      reported_ = true;
      const text m = text("@") << f.name_of() << ": buffer.alloc '" << name
                               << (addressed ? "' has an address but " : "' has no address but ") << first_
                               << (addressed ? " has none" : " has one")
                               << "; a PTO module takes addr on every pto.alloc_tile (ptoas --pto-level=level3) or on "
                                  "none (level2), never on some";
      out.push_back(diagnostic{a.loc(),
                               text(pto_source),
                               m,
                               {note{first_loc_, text(first_) << (first_addressed_ ? " is addressed here" : " is here")}}});
    });
  }

  /// The `--pto-level` a module of the kernels fed in needs, for the line that heads it: "level3"
  /// when its allocations carry addresses, "level2" when they carry none, empty without any.
  [[nodiscard]] constexpr std::string_view needed() const {
    if (!seen_) return {};
    return first_addressed_ ? "level3" : "level2";
  }

 private:
  bool seen_ = false;
  bool reported_ = false;
  bool first_addressed_ = false;
  text first_;
  location first_loc_{};
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
