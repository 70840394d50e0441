// SPDX-License-Identifier: Apache-2.0
/// @file emit/pto_values.hpp
/// What every PTO-AS rule writes with (`pto_emitter_base`): one kernel's emission state, its SSA
/// names and types, the records the printer renders, hoisted constants and scalar conversions.
/// The rules themselves (one per Buffer op, scalar ops, control flow) are `pto_emitter`
/// (emit/pto_emitter.hpp), which derives from it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/detail/decimal.hpp"
#include "tile2buffer/detail/mlir_float.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/emit/mlir.hpp"
#include "tile2buffer/emit/preflight.hpp"
#include "tile2buffer/emit/printer.hpp"
#include "tile2buffer/emit/pto_ops.hpp"
#include "tile2buffer/ir/cast.hpp"
#include "tile2buffer/ir/elementwise.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/walk.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

class pto_emitter_base {
 protected:
  constexpr pto_emitter_base(const function& f, const mlir_printer& printer, target_arch target)
      : f_(f), printer_(printer), target_(target), names_(f.values.size()) {}

  //===--- names and records ---===//

  [[nodiscard]] constexpr std::string_view kind_attr() const {
    if (f_.kind == function_kind::aic) return "pto.kernel_kind = #pto.kernel_kind<cube>";
    if (f_.kind == function_kind::aiv) return "pto.kernel_kind = #pto.kernel_kind<vector>";
    return {};
  }
  constexpr const text& name_of(value_id v) {
    if (names_[v.index].empty()) names_[v.index] = ssa_.take(f_.name_of(v));
    return names_[v.index];
  }
  constexpr ssa value(value_id v) { return ssa{name_of(v), value_type(pto_type(f_, v), target_)}; }
  static constexpr std::span<const ssa> one(const ssa& x) { return std::span<const ssa>(&x, 1); }
  constexpr void emit(const mlir_op& r) { printer_.op(body_, indent_, r); }
  static constexpr mlir_op record(std::string_view name, native_form form, std::span<const ssa> operands,
                                  std::span<const ssa> results) {
    mlir_op r;
    r.name = name;
    r.form = form;
    r.operands.assign(operands.begin(), operands.end());
    r.results.assign(results.begin(), results.end());
    // The default-valued properties MLIR materialises on these arith ops, so its generic printer
    // writes them. arith.trunci gets none: MLIR 22 gives it overflowFlags, but LLVM 19 (which
    // PTOAS 0.60 builds on) declares no property there, and `<{...}>` on it would be rejected.
    constexpr std::string_view overflow[] = {"arith.addi", "arith.subi", "arith.muli"};
    constexpr std::string_view fastmath[] = {"arith.addf",     "arith.subf",     "arith.mulf", "arith.divf",
                                             "arith.minimumf", "arith.maximumf", "arith.cmpf"};
    for (const std::string_view n : overflow)
      if (n == name) r.props.push_back(mlir_attr{"overflowFlags", text("#arith.overflow<none>"), true});
    for (const std::string_view n : fastmath)
      if (n == name) r.props.push_back(mlir_attr{"fastmath", text("#arith.fastmath<none>"), true});
    return r;
  }
  static constexpr mlir_op cast_record(std::string_view op, const ssa& x, const ssa& r) {
    return record(op, native_form::cast, one(x), one(r));
  }

  //===--- constants (hoisted) ---===//

  /// The hoisted constant `literal : type`, defined once per function.
  constexpr ssa constant(std::string_view literal, dtype d) {
    const text ty(mlir_type(d));
    for (const auto& c : consts_list_)
      if (c.literal == literal && c.type == ty) return ssa{c.name, ty};
    if (is_unsigned(d)) {
      // arith constants are signless: define the same bits as iN, then reinterpret.
      const ssa bits = constant(literal, signless(d));
      const text n = ssa_.take((text("c") << literal << '_' << ty).view());
      const ssa r{n, ty};
      printer_.op(consts_, 4, cast_record("builtin.unrealized_conversion_cast", bits, r));
      consts_list_.push_back(constant_entry{text(literal), ty, n});
      return r;
    }
    text base;
    if (d == dtype::bool_) base << literal;
    else if (is_float(d)) base << "cst";
    else if (d == dtype::index) base << 'c' << literal;
    else base << 'c' << literal << '_' << ty;
    const text n = ssa_.take(base.view());
    consts_list_.push_back(constant_entry{text(literal), ty, n});
    const ssa r{n, ty};
    printer_.op(consts_, 4, constant_record(literal, r, d));
    return r;
  }
  /// `arith.constant`: its `value` property is the literal, typed unless it is an i1; a float
  /// literal is spelled as written in the custom form and as MLIR prints its value in the generic one.
  static constexpr mlir_op constant_record(std::string_view literal, const ssa& r, dtype d) {
    mlir_op c = record("arith.constant", native_form::constant, {}, one(r));
    text v(literal);
    if (d != dtype::bool_) v << " : " << r.type;
    text generic;
    if (is_float(d)) {
      append_mlir_float(generic, literal, d == dtype::fp16 ? binary16 : d == dtype::bf16 ? bfloat16 : binary32);
      generic << " : " << r.type;
    }
    c.props.push_back(mlir_attr{"value", v, false, generic});
    return c;
  }
  static constexpr text int_literal(std::int64_t v) { return text() << v; }

  /// A literal operand as a constant of dtype `d`.
  constexpr ssa literal(const operand& o, dtype d) {
    text lit;
    if (d == dtype::bool_) {
      lit << ((o.kind == operand_kind::bool_lit || o.kind == operand_kind::int_lit) && o.num != 0 ? "true" : "false");
    } else if (is_float(d)) {
      if (o.kind == operand_kind::float_lit) append_decimal(lit, o.num, o.exp10);
      else append_decimal(lit, o.num, 0);
    } else {
      lit << o.num;  // integers and bools (as 0/1); float literals are rejected by the preflight
    }
    return constant(lit.view(), d);
  }

  //===--- scalar conversions ---===//

  constexpr ssa cast(std::string_view op, const ssa& x, dtype to) {
    const ssa r{ssa_.take("cast"), text(mlir_type(to))};
    emit(cast_record(op, x, r));
    return r;
  }
  constexpr ssa compare(bool is_float_cmp, int predicate, std::string_view pred_name, const ssa& a, const ssa& b,
                        std::string_view base = "cmp") {
    const ssa r{ssa_.take(base), text("i1")};
    const ssa ops[] = {a, b};
    mlir_op c = record(is_float_cmp ? "arith.cmpf" : "arith.cmpi", native_form::compare, ops, one(r));
    c.aux = text(pred_name);
    c.props.push_back(mlir_attr{"predicate", text() << predicate << " : i64", false});
    emit(c);
    return r;
  }
  /// `x` (of dtype `from`) as a value of dtype `to`.
  constexpr ssa convert(const ssa& x, dtype from, dtype to) {
    if (from == to) return x;
    if (is_unsigned(from)) {
      const ssa bits = cast("builtin.unrealized_conversion_cast", x, signless(from));
      if (to == signless(from)) return bits;
      // Unsigned values widen with zero extension before becoming anything wider.
      const ssa wide = bit_width(from) < 64 ? cast("arith.extui", bits, dtype::int64) : bits;
      return convert(wide, dtype::int64, to);
    }
    if (is_unsigned(to)) {
      const ssa bits = convert(x, from, signless(to));
      return cast("builtin.unrealized_conversion_cast", bits, to);
    }
    if (from == dtype::bool_) {
      if (to == dtype::index) return cast("arith.index_castui", x, to);
      if (is_float(to)) return cast("arith.uitofp", x, to);
      return cast("arith.extui", x, to);
    }
    if (to == dtype::bool_) {
      const ssa zero = constant(is_float(from) ? std::string_view("0.0") : std::string_view("0"), from);
      return is_float(from) ? compare(true, 13, "une", x, zero) : compare(false, 1, "ne", x, zero);
    }
    if (from == dtype::index) {
      if (is_float(to)) return cast("arith.sitofp", cast("arith.index_cast", x, dtype::int64), to);
      return cast("arith.index_cast", x, to);
    }
    if (to == dtype::index) {
      if (is_float(from)) return cast("arith.index_cast", cast("arith.fptosi", x, dtype::int64), to);
      return cast("arith.index_cast", x, to);
    }
    if (is_float(from) && is_float(to)) {
      if (bit_width(from) == bit_width(to)) return cast("arith.truncf", cast("arith.extf", x, dtype::fp32), to);
      return cast(bit_width(from) < bit_width(to) ? "arith.extf" : "arith.truncf", x, to);
    }
    if (is_float(from)) return cast("arith.fptosi", x, to);
    if (is_float(to)) return cast("arith.sitofp", x, to);
    return cast(bit_width(from) < bit_width(to) ? "arith.extsi" : "arith.trunci", x, to);
  }
  /// Any scalar operand (literal or value) as a value of dtype `want`.
  constexpr ssa scalar(const operand& o, dtype want) {
    if (o.is_literal()) return literal(o, want);
    const value_id v = o.value();
    return convert(value(v), f_.type_of(v).dt, want);
  }
  constexpr ssa index(const operand& o) { return scalar(o, dtype::index); }


  struct constant_entry {
    text literal;
    text type;
    text name;
  };

  const function& f_;
  const mlir_printer& printer_;
  target_arch target_;
  ssa_names ssa_;
  std::vector<text> names_;
  std::vector<text> views_of_;
  std::vector<ssa> args_;
  std::vector<constant_entry> consts_list_;
  text consts_;
  text views_;
  text body_;
  int indent_ = 4;
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
