// SPDX-License-Identifier: Apache-2.0
/// @file emit/pto.hpp
/// PTO-AS emission of Buffer-stage kernels (reference §6): one `func.func` per kernel with the
/// tensor-then-scalar signature, SPMD ABI parameters when queried, hoisted constants, one
/// `pto.make_tensor_view` per tensor parameter, then the native form of every Buffer op and
/// `scf` control flow carrying scalars only. The same program can be written in MLIR's generic
/// op form, which any MLIR parser reads (`mlir-opt --allow-unregistered-dialect`).
///
/// Generic form of the `pto` ops (the dialect is not registered with upstream MLIR, so this is
/// our projection of the custom syntax, checked for SSA, region and type structure only): every
/// operand group becomes positional operands with `operandSegmentSizes` (`ins`/`outs`; alloc_tile's
/// addr/valid_row/valid_col; subview's source/offsets/valid; make_tensor_view and partition_view's
/// base/shape-or-offsets/strides-or-sizes), subview's static `sizes` becomes `array<i64: R, C>`,
/// and the precision attribute stays a discardable attribute. `func`, `arith`, `scf` and
/// `builtin` ops use their registered generic forms, which mlir-opt fully verifies.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/detail/decimal.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/emit/mlir.hpp"
#include "tile2buffer/emit/preflight.hpp"
#include "tile2buffer/ir/elementwise.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/verify.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/passes/verify_buffer.hpp"

namespace tile2buffer {
inline namespace v0 {

/// How `emit_pto` writes a program.
struct pto_options {
  bool generic = false;        ///< MLIR generic op form instead of the PTO-AS custom forms
  std::string_view kernel{};   ///< emit only this function (empty: every Buffer-stage kernel)
};

namespace detail {

/// The native PTO form of one elementwise Buffer op (reference §2.4): its mnemonic and, for ops
/// that take `high_precision`, the precision attribute kind. The op list is the catalogue's; this
/// table only adds the PTO spellings and is checked against the catalogue below.
struct pto_native {
  opcode op;
  std::string_view mnemonic;
  std::string_view precision = {};
};
inline constexpr std::array<pto_native, tile_elementwise_count> pto_natives{{
    {opcode::buffer_full, "pto.texpands"},
    {opcode::buffer_add, "pto.tadd"},
    {opcode::buffer_mul, "pto.tmul"},
    {opcode::buffer_sub, "pto.tsub"},
    {opcode::buffer_div, "pto.tdiv", "div_precision"},
    {opcode::buffer_maximum, "pto.tmax"},
    {opcode::buffer_minimum, "pto.tmin"},
    {opcode::buffer_abs, "pto.tabs"},
    {opcode::buffer_exp, "pto.texp"},
    {opcode::buffer_sqrt, "pto.tsqrt"},
    {opcode::buffer_neg, "pto.tneg"},
    {opcode::buffer_relu, "pto.trelu"},
    {opcode::buffer_log, "pto.tlog", "log_precision"},
    {opcode::buffer_recip, "pto.trecip", "recip_precision"},
    {opcode::buffer_adds, "pto.tadds"},
    {opcode::buffer_subs, "pto.tsubs"},
    {opcode::buffer_muls, "pto.tmuls"},
    {opcode::buffer_divs, "pto.tdivs"},
    {opcode::buffer_maximums, "pto.tmaxs"},
    {opcode::buffer_minimums, "pto.tmins"},
    {opcode::buffer_lrelu, "pto.tlrelu"},
}};
/// Every row is a Buffer op, the rows cover the catalogue's elementwise family exactly, and an op
/// has a precision kind exactly when the catalogue lets it take `high_precision`.
constexpr bool pto_natives_match_catalogue() {
  for (const auto& n : pto_natives)
    if (!is_buffer_op(n.op) || n.precision.empty() == ((info(n.op).keywords & kw_bit(keyword::high_precision)) != 0))
      return false;
  return covers_tile_elementwise(pto_natives, [](const pto_native& n) { return n.op; });
}
static_assert(pto_natives_match_catalogue(),
              "tile2buffer: emit/pto.hpp pto_natives must have one Buffer row per elementwise op of the op catalogue");

constexpr const pto_native* native_of(opcode c) {
  for (const auto& n : pto_natives)
    if (n.op == c) return &n;
  return nullptr;
}
/// The native PTO mnemonic of an elementwise Buffer op, or empty.
constexpr std::string_view native_mnemonic(opcode c) {
  const pto_native* n = native_of(c);
  return n ? n->mnemonic : std::string_view{};
}
/// The precision attribute kind of ops that take `high_precision`, or empty.
constexpr std::string_view precision_kind(opcode c) {
  const pto_native* n = native_of(c);
  return n ? n->precision : std::string_view{};
}

inline constexpr std::string_view spmd_block_idx = "__pypto_spmd_block_idx";
inline constexpr std::string_view spmd_block_num = "__pypto_spmd_block_num";
inline constexpr std::string_view spmd_subblock_idx = "__pypto_spmd_subblock_idx";

/// An SSA value as an operand: its name (without `%`) and MLIR type.
struct ssa {
  text name;
  text type;
};

/// Writes one verified, preflighted Buffer-stage kernel.
class pto_emitter {
 public:
  constexpr pto_emitter(const function& f, bool generic) : f_(f), generic_(generic), names_(f.values.size()) {}

  constexpr void run(text& out) {
    signature();
    tensor_views();
    indent_ = 4;
    for (const op_id o : f_.ops_of(f_.body))
      if (f_.op(o).code() != opcode::cf_return) op(o);
    line(generic_ ? std::string_view("\"func.return\"() : () -> ()") : std::string_view("return"));

    if (generic_) {
      out << "  \"func.func\"() <{function_type = (";
      for (std::size_t i = 0; i < args_.size(); ++i) out << (i > 0 ? ", " : "") << args_[i].type;
      out << ") -> (), sym_name = \"" << f_.name_of() << "\"}> ({\n";
      if (!args_.empty()) {
        out << "  ^bb0(";
        for (std::size_t i = 0; i < args_.size(); ++i)
          out << (i > 0 ? ", " : "") << '%' << args_[i].name << ": " << args_[i].type;
        out << "):\n";
      }
    } else {
      out << "  func.func @" << f_.name_of() << '(';
      for (std::size_t i = 0; i < args_.size(); ++i)
        out << (i > 0 ? ", " : "") << '%' << args_[i].name << ": " << args_[i].type;
      out << ')';
      if (!kind_attr().empty()) out << " attributes {" << kind_attr() << '}';
      out << " {\n";
    }
    out << consts_ << views_ << body_;
    if (generic_) {
      out << "  })";
      if (!kind_attr().empty()) out << " {" << kind_attr() << '}';
      out << " : () -> ()\n";
    } else {
      out << "  }\n";
    }
  }

 private:
  //===--- names and lines ---===//

  [[nodiscard]] constexpr std::string_view kind_attr() const {
    if (f_.kind == function_kind::aic) return "pto.kernel_kind = #pto.kernel_kind<cube>";
    if (f_.kind == function_kind::aiv) return "pto.kernel_kind = #pto.kernel_kind<vector>";
    return {};
  }
  constexpr const text& name_of(value_id v) {
    if (names_[v.index].empty()) names_[v.index] = ssa_.take(f_.name_of(v));
    return names_[v.index];
  }
  constexpr ssa value(value_id v) { return ssa{name_of(v), value_type(f_.type_of(v))}; }
  constexpr void line(std::string_view s) {
    for (int i = 0; i < indent_; ++i) body_ << ' ';
    body_ << s << '\n';
  }
  constexpr void line(const text& s) { line(s.view()); }
  static constexpr void operand_list(text& out, std::span<const ssa> xs) {
    for (std::size_t i = 0; i < xs.size(); ++i) out << (i > 0 ? ", %" : "%") << xs[i].name;
  }
  static constexpr void type_list(text& out, std::span<const ssa> xs) {
    for (std::size_t i = 0; i < xs.size(); ++i) out << (i > 0 ? ", " : "") << xs[i].type;
  }
  /// `[%r = ]"op"(%a, ...) [<{props}>] [{attrs}] : (Ta, ...) -> R` with R one type, a
  /// parenthesized list, or `()`.
  constexpr text generic_op(std::string_view op, std::span<const ssa> operands, std::span<const ssa> results,
                            std::string_view props = {}, std::string_view attrs = {}) {
    text s;
    if (!results.empty()) {
      operand_list(s, results);
      s << " = ";
    }
    s << '"' << op << "\"(";
    operand_list(s, operands);
    s << ')';
    if (!props.empty()) s << " <{" << props << "}>";
    if (!attrs.empty()) s << " {" << attrs << '}';
    s << " : (";
    type_list(s, operands);
    s << ") -> ";
    if (results.size() == 1) {
      s << results[0].type;
    } else {
      s << '(';
      type_list(s, results);
      s << ')';
    }
    return s;
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
      consts_ << "    " << cast_line("builtin.unrealized_conversion_cast", bits, r) << '\n';
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
    consts_ << "    ";
    if (generic_) {
      consts_ << '%' << n << " = \"arith.constant\"() <{value = " << literal;
      if (d != dtype::bool_) consts_ << " : " << ty;
      consts_ << "}> : () -> " << ty << '\n';
    } else {
      consts_ << '%' << n << " = arith.constant " << literal;
      if (d != dtype::bool_) consts_ << " : " << ty;
      consts_ << '\n';
    }
    return ssa{n, ty};
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

  constexpr text cast_line(std::string_view op, const ssa& x, const ssa& r) {
    if (generic_) return generic_op(op, std::span<const ssa>(&x, 1), std::span<const ssa>(&r, 1));
    return text("%") << r.name << " = " << op << " %" << x.name << " : " << x.type << " to " << r.type;
  }
  constexpr ssa cast(std::string_view op, const ssa& x, dtype to) {
    const ssa r{ssa_.take("cast"), text(mlir_type(to))};
    line(cast_line(op, x, r));
    return r;
  }
  constexpr ssa compare(bool is_float_cmp, int predicate, std::string_view pred_name, const ssa& a, const ssa& b,
                        std::string_view base = "cmp") {
    const ssa r{ssa_.take(base), text("i1")};
    if (generic_) {
      const ssa ops[] = {a, b};
      line(generic_op(is_float_cmp ? "arith.cmpf" : "arith.cmpi", ops, std::span<const ssa>(&r, 1),
                      (text("predicate = ") << predicate << " : i64").view()));
    } else {
      line(text("%") << r.name << " = " << (is_float_cmp ? "arith.cmpf " : "arith.cmpi ") << pred_name << ", %" << a.name
                     << ", %" << b.name << " : " << a.type);
    }
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

  //===--- signature and tensor views ---===//

  constexpr void signature() {
    for (const std::string_view reserved : {spmd_block_idx, spmd_block_num, spmd_subblock_idx}) ssa_.reserve(reserved);
    int n = 0;
    for (const bool tensors : {true, false})
      for (const param_info& p : f_.params) {
        if (f_.type_of(p.value).is_tensor() != tensors) continue;
        names_[p.value.index] = ssa_.take((text("arg") << n++).view());
        args_.push_back(value(p.value));
      }
    bool block = false, subblock = false;
    walk(f_, [&](op_id o) {
      const opcode c = f_.op(o).code();
      block = block || c == opcode::buffer_get_block_idx || c == opcode::buffer_get_block_num;
      subblock = subblock || c == opcode::buffer_get_subblock_idx;
    });
    if (block) {
      args_.push_back(ssa{text(spmd_block_idx), text("i32")});
      args_.push_back(ssa{text(spmd_block_num), text("i32")});
    }
    if (subblock) args_.push_back(ssa{text(spmd_subblock_idx), text("i32")});
  }
  constexpr void tensor_views() {
    views_of_.assign(f_.values.size(), text{});
    std::int64_t tensors = 0;
    for (const param_info& p : f_.params) {
      const type& t = f_.type_of(p.value);
      if (!t.is_tensor()) continue;
      const std::int64_t s0 = t.has_stride ? t.stride[0] : t.shape[1];
      const std::int64_t s1 = t.has_stride ? t.stride[1] : 1;
      const ssa dims[] = {constant(int_literal(t.shape[0]).view(), dtype::index),
                          constant(int_literal(t.shape[1]).view(), dtype::index)};
      const ssa strides[] = {constant(int_literal(s0).view(), dtype::index),
                             constant(int_literal(s1).view(), dtype::index)};
      const ssa tv{ssa_.take((text("tv") << tensors++).view()), tensor_view_type(t.dt)};
      views_of_[p.value.index] = tv.name;
      views_ << "    ";
      if (generic_) {
        const ssa ops[] = {value(p.value), dims[0], dims[1], strides[0], strides[1]};
        views_ << generic_op("pto.make_tensor_view", ops, std::span<const ssa>(&tv, 1),
                             "operandSegmentSizes = array<i32: 1, 2, 2>");
      } else {
        views_ << '%' << tv.name << " = pto.make_tensor_view %" << name_of(p.value) << ", shape = [%" << dims[0].name
               << ", %" << dims[1].name << "], strides = [%" << strides[0].name << ", %" << strides[1].name
               << "] : " << tv.type;
      }
      views_ << '\n';
    }
  }

  //===--- ops ---===//

  /// `pto.partition_view` of a tensor parameter for a load or store window.
  constexpr ssa partition(const operand& tensor, const operand& offsets, const operand& extents) {
    const value_id t = tensor.value();
    const dtype d = f_.type_of(t).dt;
    const auto offs = f_.elements(offsets);
    const auto exts = f_.elements(extents);
    const ssa o0 = index(offs[0]), o1 = index(offs[1]), e0 = index(exts[0]), e1 = index(exts[1]);
    text pty("!pto.partition_tensor_view<");
    for (const operand& e : exts) {
      if (e.kind == operand_kind::int_lit) pty << e.num;
      else pty << '?';
      pty << 'x';
    }
    pty << mlir_type(d) << '>';
    const ssa tv{views_of_[t.index], tensor_view_type(d)};
    const ssa pv{ssa_.take("pv"), pty};
    if (generic_) {
      const ssa ops[] = {tv, o0, o1, e0, e1};
      line(generic_op("pto.partition_view", ops, std::span<const ssa>(&pv, 1), "operandSegmentSizes = array<i32: 1, 2, 2>"));
    } else {
      line(text("%") << pv.name << " = pto.partition_view %" << tv.name << ", offsets = [%" << o0.name << ", %" << o1.name
                     << "], sizes = [%" << e0.name << ", %" << e1.name << "] : " << tv.type << " -> " << pv.type);
    }
    return pv;
  }
  /// A destination-passing op: `op ins(%a, ... : Ta, ...) outs(%d : Td) [{attrs}]`.
  constexpr void ins_outs(std::string_view op, std::span<const ssa> ins, std::span<const ssa> outs,
                          std::string_view attrs = {}) {
    if (generic_) {
      std::vector<ssa> all(ins.begin(), ins.end());
      all.insert(all.end(), outs.begin(), outs.end());
      const text seg = text("operandSegmentSizes = array<i32: ") << static_cast<std::int64_t>(ins.size()) << ", "
                                                                 << static_cast<std::int64_t>(outs.size()) << '>';
      line(generic_op(op, all, {}, seg.view(), attrs));
      return;
    }
    text s(op);
    s << " ins(";
    operand_list(s, ins);
    s << " : ";
    type_list(s, ins);
    s << ") outs(";
    operand_list(s, outs);
    s << " : ";
    type_list(s, outs);
    s << ')';
    if (!attrs.empty()) s << " {" << attrs << '}';
    line(s);
  }

  constexpr void buffer_op(op_id o) {
    const op_node& n = f_.op(o);
    const opcode c = n.code();
    const auto args = f_.args(o);
    const auto val = [&](std::size_t i) { return value(args[i].value()); };
    switch (c) {
      case opcode::buffer_alloc: {
        const ssa h = value(f_.result(o));
        const type& t = f_.type_of(f_.result(o));
        std::vector<ssa> ops;
        std::int64_t n_addr = 0;
        if (args.size() == 2) {
          ops.push_back(scalar(args[1], dtype::int64));
          n_addr = 1;
        }
        const auto valid = f_.elements(args[0]);
        std::size_t next = 0;
        std::int64_t seg[2] = {0, 0};
        for (int d = 0; d < 2; ++d)
          if (t.valid[static_cast<std::size_t>(d)].is_runtime() && next < valid.size()) {
            ops.push_back(index(valid[next++]));
            seg[d] = 1;
          }
        if (generic_) {
          const text props = text("operandSegmentSizes = array<i32: ") << n_addr << ", " << seg[0] << ", " << seg[1] << '>';
          line(generic_op("pto.alloc_tile", ops, std::span<const ssa>(&h, 1), props.view()));
        } else {
          text s = text("%") << h.name << " = pto.alloc_tile";
          std::size_t k = 0;
          if (n_addr != 0) s << " addr = %" << ops[k++].name;
          if (seg[0] != 0) s << " valid_row = %" << ops[k++].name;
          if (seg[1] != 0) s << " valid_col = %" << ops[k++].name;
          s << " : " << h.type;
          line(s);
        }
        return;
      }
      case opcode::buffer_set_validshape: {
        const auto ext = f_.elements(args[1]);
        const ssa ops[] = {val(0), index(ext[0]), index(ext[1])};
        if (generic_) line(generic_op("pto.set_validshape", ops, {}));
        else
          line(text("pto.set_validshape %") << ops[0].name << ", %" << ops[1].name << ", %" << ops[2].name << " : "
                                            << ops[0].type);
        return;
      }
      case opcode::buffer_load: {
        const ssa pv = partition(args[0], args[1], args[2]);
        const ssa dst = val(3);
        ins_outs("pto.tload", std::span<const ssa>(&pv, 1), std::span<const ssa>(&dst, 1));
        return;
      }
      case opcode::buffer_store: {
        const ssa pv = partition(args[3], args[1], args[2]);
        const ssa src = val(0);
        ins_outs("pto.tstore", std::span<const ssa>(&src, 1), std::span<const ssa>(&pv, 1));
        return;
      }
      case opcode::buffer_copy: {
        const ssa src = val(0), dst = val(1);
        ins_outs("pto.tmov", std::span<const ssa>(&src, 1), std::span<const ssa>(&dst, 1));
        return;
      }
      case opcode::buffer_subview: {
        const ssa src = val(0);
        const ssa r = value(f_.result(o));
        const type& rt = f_.type_of(f_.result(o));
        const auto offs = f_.elements(args[1]);
        std::vector<ssa> ops{src, index(offs[0]), index(offs[1])};
        const bool has_valid = args.size() == 3;
        if (has_valid) {
          const auto v = f_.elements(args[2]);
          ops.push_back(index(v[0]));
          ops.push_back(index(v[1]));
        }
        if (generic_) {
          const text props = text("operandSegmentSizes = array<i32: 1, 2, ") << (has_valid ? 2 : 0)
                                                                            << ">, sizes = array<i64: " << rt.shape[0]
                                                                            << ", " << rt.shape[1] << '>';
          line(generic_op("pto.subview", ops, std::span<const ssa>(&r, 1), props.view()));
        } else {
          text s = text("%") << r.name << " = pto.subview %" << src.name << "[%" << ops[1].name << ", %" << ops[2].name
                             << "] sizes [" << rt.shape[0] << ", " << rt.shape[1] << ']';
          if (has_valid) s << " valid [%" << ops[3].name << ", %" << ops[4].name << ']';
          s << " : " << src.type << " -> " << r.type;
          line(s);
        }
        return;
      }
      case opcode::buffer_reshape: {
        const ssa src = val(0);
        const ssa r = value(f_.result(o));
        if (generic_) line(generic_op("pto.treshape", std::span<const ssa>(&src, 1), std::span<const ssa>(&r, 1)));
        else line(text("%") << r.name << " = pto.treshape %" << src.name << " : " << src.type << " -> " << r.type);
        return;
      }
      case opcode::buffer_extract: {
        const ssa ins[] = {val(0), index(args[1]), index(args[2])};
        const ssa dst = val(3);
        ins_outs("pto.textract", ins, std::span<const ssa>(&dst, 1));
        return;
      }
      case opcode::buffer_matmul: {
        const ssa ins[] = {val(0), val(1)};
        const ssa dst = val(2);
        ins_outs("pto.tmatmul", ins, std::span<const ssa>(&dst, 1));
        return;
      }
      case opcode::buffer_matmul_acc: {
        // The running sum is named as the first input and repeated as the output.
        const ssa ins[] = {val(2), val(0), val(1)};
        const ssa dst = val(2);
        ins_outs("pto.tmatmul.acc", ins, std::span<const ssa>(&dst, 1));
        return;
      }
      case opcode::buffer_get_block_idx:
      case opcode::buffer_get_block_num:
      case opcode::buffer_get_subblock_idx: {
        const std::string_view abi = c == opcode::buffer_get_block_idx   ? spmd_block_idx
                                     : c == opcode::buffer_get_block_num ? spmd_block_num
                                                                         : spmd_subblock_idx;
        const ssa r = value(f_.result(o));
        line(cast_line("arith.index_cast", ssa{text(abi), text("i32")}, r));
        return;
      }
      default: break;
    }
    // Elementwise: inputs in recipe order, then the destination.
    const std::string_view native = native_mnemonic(c);
    const ssa dst = val(args.size() - 1);
    const dtype element = f_.type_of(args.back().value()).dt;
    std::vector<ssa> ins;
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
      // Why not `?:`: g++ 12 misjudges the lifetime of a class temporary chosen by a conditional
      // in constant evaluation ("use of allocated storage after deallocation").
      if (args[i].is_value() && f_.type_of(args[i].value()).is_buffer()) ins.push_back(val(i));
      else ins.push_back(scalar(args[i], element));
    }
    text attrs;
    const auto hp = f_.kwarg_of(o, keyword::high_precision);
    if (!precision_kind(c).empty() && hp && hp->kind == operand_kind::bool_lit && hp->num != 0)
      attrs << "precisionType = #pto<" << precision_kind(c) << " high_precision>";
    ins_outs(native, ins, std::span<const ssa>(&dst, 1), attrs.view());
  }

  //===--- scalar ops ---===//

  /// The dtype scalar operands of `o` are computed in: a value operand's, else the result's.
  constexpr dtype operand_dtype(op_id o) const {
    for (const operand& a : f_.args(o))
      if (a.is_value() && f_.type_of(a.value()).is_scalar()) return f_.type_of(a.value()).dt;
    return f_.type_of(f_.result(o)).dt;
  }
  constexpr void binary(std::string_view op, const ssa& a, const ssa& b, const ssa& r) {
    if (generic_) {
      const ssa ops[] = {a, b};
      line(generic_op(op, ops, std::span<const ssa>(&r, 1)));
    } else {
      line(text("%") << r.name << " = " << op << " %" << a.name << ", %" << b.name << " : " << r.type);
    }
  }
  constexpr void scalar_op(op_id o) {
    const opcode c = f_.op(o).code();
    const auto args = f_.args(o);
    const value_id res = f_.result(o);
    const dtype rd = f_.type_of(res).dt;
    if (c == opcode::scalar_const) {
      // Keep the op's own name: a constant bound in the source is a named value there.
      const ssa r = value(res);
      text lit;
      if (rd == dtype::bool_) lit << (args[0].num != 0 ? "true" : "false");
      else if (is_float(rd)) append_decimal(lit, args[0].num, args[0].kind == operand_kind::float_lit ? args[0].exp10 : 0);
      else lit << args[0].num;
      if (is_unsigned(rd)) {
        // Bind the name to the reinterpreted constant.
        names_[res.index] = constant(lit.view(), rd).name;
        return;
      }
      if (generic_) {
        text props = text("value = ") << lit;
        if (rd != dtype::bool_) props << " : " << r.type;
        line(generic_op("arith.constant", {}, std::span<const ssa>(&r, 1), props.view()));
      } else {
        text s = text("%") << r.name << " = arith.constant " << lit;
        if (rd != dtype::bool_) s << " : " << r.type;
        line(s);
      }
      return;
    }
    if (c == opcode::scalar_cast) {
      const ssa x = scalar(args[0], args[0].is_value() ? f_.type_of(args[0].value()).dt : rd);
      const ssa y = convert(x, args[0].is_value() ? f_.type_of(args[0].value()).dt : rd, rd);
      // Why rebind rather than copy: MLIR has no plain SSA copy, and a cast to the same type is a no-op.
      names_[res.index] = y.name;
      return;
    }
    const dtype od = operand_dtype(o);
    const bool flt = is_float(od);
    if (c == opcode::scalar_not) {
      const ssa x = scalar(args[0], dtype::bool_);
      const ssa t = constant("true", dtype::bool_);
      binary("arith.xori", x, t, value(res));
      return;
    }
    const ssa a = scalar(args[0], od), b = scalar(args[1], od);
    if (is_comparison(c)) {
      struct pred {
        int i;
        std::string_view in;
        int f;
        std::string_view fn;
      };
      constexpr pred preds[] = {{2, "slt", 4, "olt"}, {3, "sle", 5, "ole"}, {0, "eq", 1, "oeq"},
                                {1, "ne", 13, "une"}, {4, "sgt", 2, "ogt"}, {5, "sge", 3, "oge"}};
      const pred& p = preds[static_cast<std::size_t>(c) - static_cast<std::size_t>(opcode::scalar_lt)];
      names_[res.index] = compare(flt, flt ? p.f : p.i, flt ? p.fn : p.in, a, b, f_.name_of(res)).name;
      return;
    }
    const ssa r = value(res);
    switch (c) {
      case opcode::scalar_add: binary(flt ? "arith.addf" : "arith.addi", a, b, r); return;
      case opcode::scalar_sub: binary(flt ? "arith.subf" : "arith.subi", a, b, r); return;
      case opcode::scalar_mul: binary(flt ? "arith.mulf" : "arith.muli", a, b, r); return;
      case opcode::scalar_min: binary(flt ? "arith.minimumf" : "arith.minsi", a, b, r); return;
      case opcode::scalar_max: binary(flt ? "arith.maximumf" : "arith.maxsi", a, b, r); return;
      case opcode::scalar_and: binary("arith.andi", a, b, r); return;
      case opcode::scalar_or: binary("arith.ori", a, b, r); return;
      case opcode::scalar_floordiv: binary("arith.floordivsi", a, b, r); return;
      case opcode::scalar_mod: {
        // Floor modulo (the sign follows the divisor): remsi, then add the divisor when the
        // remainder is nonzero and its sign differs from the divisor's.
        const ssa rem{ssa_.take("rem"), r.type};
        binary("arith.remsi", a, b, rem);
        const ssa zero = constant("0", od);
        const ssa nonzero = compare(false, 1, "ne", rem, zero);
        const ssa rneg = compare(false, 2, "slt", rem, zero);
        const ssa bneg = compare(false, 2, "slt", b, zero);
        const ssa differ{ssa_.take("sign"), text("i1")};
        binary("arith.xori", rneg, bneg, differ);
        const ssa fix{ssa_.take("fix"), text("i1")};
        binary("arith.andi", nonzero, differ, fix);
        const ssa adj{ssa_.take("adj"), r.type};
        binary("arith.addi", rem, b, adj);
        if (generic_) {
          const ssa ops[] = {fix, adj, rem};
          line(generic_op("arith.select", ops, std::span<const ssa>(&r, 1)));
        } else {
          line(text("%") << r.name << " = arith.select %" << fix.name << ", %" << adj.name << ", %" << rem.name << " : "
                         << r.type);
        }
        return;
      }
      default: return;
    }
  }

  //===--- control flow ---===//

  enum class region_kind : std::uint8_t { branch, for_body, while_cond, while_body };

  /// The scalar results of region op `o` as operands (names and types).
  constexpr std::vector<ssa> results_of(op_id o) {
    std::vector<ssa> rs;
    for (std::uint32_t i = 0; i < f_.op(o).results.count; ++i) rs.push_back(value(f_.result(o, i)));
    return rs;
  }
  constexpr std::vector<ssa> region_args(region_id r) {
    std::vector<ssa> as;
    for (std::uint32_t i = 0; i < f_.region(r).args.count; ++i) as.push_back(value(f_.arg(r, i)));
    return as;
  }
  constexpr text result_prefix(std::span<const ssa> rs) {
    text s;
    if (rs.empty()) return s;
    operand_list(s, rs);
    s << " = ";
    return s;
  }
  /// A region's ops, then its terminator. `types` are the values it yields (results of the
  /// region op); `forward` are what a while condition passes on.
  constexpr void region(region_id r, region_kind kind, std::span<const ssa> yield_types, std::span<const ssa> forward) {
    indent_ += 2;
    bool terminated = false;
    for (const op_id o : f_.ops_of(r)) {
      if (f_.op(o).code() != opcode::cf_yield) {
        op(o);
        continue;
      }
      terminated = true;
      const auto vals = f_.args(o);
      if (kind == region_kind::while_cond) {
        std::vector<ssa> ops;
        if (vals.empty()) ops.push_back(constant("false", dtype::bool_));
        else ops.push_back(scalar(vals[0], dtype::bool_));
        ops.insert(ops.end(), forward.begin(), forward.end());
        if (generic_) {
          line(generic_op("scf.condition", ops, {}));
        } else {
          text s = text("scf.condition(%") << ops[0].name << ')';
          if (!forward.empty()) {
            s << ' ';
            operand_list(s, forward);
            s << " : ";
            type_list(s, forward);
          }
          line(s);
        }
        continue;
      }
      std::vector<ssa> ops;
      for (std::size_t i = 0; i < vals.size() && i < yield_types.size(); ++i) {
        const ssa& want = yield_types[i];
        // A yielded literal takes the result's type; a value keeps its own (the verifier matched them).
        ops.push_back(carried(vals[i], result_dtype(want)));
      }
      if (generic_) {
        line(generic_op("scf.yield", ops, {}));
      } else if (!ops.empty()) {
        text s("scf.yield ");
        operand_list(s, ops);
        s << " : ";
        type_list(s, ops);
        line(s);
      } else if (kind == region_kind::while_body) {
        line("scf.yield");  // scf.while has no implicit terminator
      }
    }
    if (!terminated && generic_) line(kind == region_kind::while_cond ? "\"scf.condition\"() : () -> ()"
                                                                      : "\"scf.yield\"() : () -> ()");
    indent_ -= 2;
  }
  /// A carried scalar (loop init or yielded value): a literal takes the carry's dtype `want`,
  /// a value keeps its own type (the verifier has matched the two).
  constexpr ssa carried(const operand& o, dtype want) {
    if (o.is_value()) return value(o.value());
    return literal(o, want);
  }
  /// The dtype whose MLIR spelling is `s.type` (region results are scalars).
  static constexpr dtype result_dtype(const ssa& s) {
    for (std::size_t i = 0; i < dtype_names.size(); ++i)
      if (mlir_type(static_cast<dtype>(i)) == s.type.view()) return static_cast<dtype>(i);
    return dtype::index;
  }
  constexpr text block_header(std::span<const ssa> args) {
    text s;
    if (args.empty()) return s;
    s << "^bb0(";
    for (std::size_t i = 0; i < args.size(); ++i) s << (i > 0 ? ", %" : "%") << args[i].name << ": " << args[i].type;
    s << "):";
    return s;
  }
  constexpr void header_line(const text& s) {
    if (s.empty()) return;
    for (int i = 0; i < indent_; ++i) body_ << ' ';
    body_ << s << '\n';
  }

  constexpr void if_op(op_id o) {
    const auto args = f_.args(o);
    const ssa cond = scalar(args[0], dtype::bool_);
    const std::vector<ssa> rs = results_of(o);
    const region_id then_r = f_.region_of(o, 0), else_r = f_.region_of(o, 1);
    const bool has_else = !rs.empty() || !f_.ops_of(else_r).empty();
    if (generic_) {
      line(result_prefix(rs) << "\"scf.if\"(%" << cond.name << ") ({");
      region(then_r, region_kind::branch, rs, {});
      if (has_else) {
        line("}, {");
        region(else_r, region_kind::branch, rs, {});
        line(text("}) : (i1) -> ") << types_text(rs));
      } else {
        line(text("}, {\n") << indent_text() << "}) : (i1) -> " << types_text(rs));
      }
      return;
    }
    text head = result_prefix(rs) << "scf.if %" << cond.name;
    if (!rs.empty()) head << " -> (" << types_text_bare(rs) << ')';
    line(head << " {");
    region(then_r, region_kind::branch, rs, {});
    if (has_else) {
      line("} else {");
      region(else_r, region_kind::branch, rs, {});
    }
    line("}");
  }
  constexpr void for_op(op_id o) {
    const auto args = f_.args(o);
    const ssa lb = index(args[0]), ub = index(args[1]), step = index(args[2]);
    const region_id body = f_.region_of(o, 0);
    const std::vector<ssa> rs = results_of(o);
    std::vector<ssa> inits;
    for (std::size_t i = 3; i < args.size(); ++i) {
      const std::size_t k = i - 3;
      inits.push_back(carried(args[i], k < rs.size() ? result_dtype(rs[k]) : dtype::index));
    }
    const std::vector<ssa> bargs = region_args(body);
    if (generic_) {
      std::vector<ssa> ops{lb, ub, step};
      ops.insert(ops.end(), inits.begin(), inits.end());
      text s = result_prefix(rs) << "\"scf.for\"(";
      operand_list(s, ops);
      line(s << ") ({");
      header_line(block_header(bargs));
      region(body, region_kind::for_body, rs, {});
      s = text("}) : (");
      type_list(s, ops);
      line(s << ") -> " << types_text(rs));
      return;
    }
    text head = result_prefix(rs) << "scf.for %" << (bargs.empty() ? text("i") : bargs[0].name) << " = %" << lb.name
                                  << " to %" << ub.name << " step %" << step.name;
    if (!inits.empty()) {
      head << " iter_args(";
      for (std::size_t i = 0; i < inits.size(); ++i)
        head << (i > 0 ? ", %" : "%") << (i + 1 < bargs.size() ? bargs[i + 1].name : text("x")) << " = %"
             << inits[i].name;
      head << ") -> (" << types_text_bare(rs) << ')';
    }
    line(head << " {");
    region(body, region_kind::for_body, rs, {});
    line("}");
  }
  constexpr void while_op(op_id o) {
    const auto args = f_.args(o);
    const std::vector<ssa> rs = results_of(o);
    const region_id cond = f_.region_of(o, 0), body = f_.region_of(o, 1);
    std::vector<ssa> inits;
    for (std::size_t i = 0; i < args.size(); ++i)
      inits.push_back(carried(args[i], i < rs.size() ? result_dtype(rs[i]) : dtype::index));
    const std::vector<ssa> cargs = region_args(cond), bargs = region_args(body);
    if (generic_) {
      text s = result_prefix(rs) << "\"scf.while\"(";
      operand_list(s, inits);
      line(s << ") ({");
      header_line(block_header(cargs));
      region(cond, region_kind::while_cond, {}, cargs);
      line("}, {");
      header_line(block_header(bargs));
      region(body, region_kind::while_body, rs, {});
      s = text("}) : (");
      type_list(s, inits);
      line(s << ") -> " << types_text(rs));
      return;
    }
    text head = result_prefix(rs) << "scf.while (";
    for (std::size_t i = 0; i < inits.size(); ++i)
      head << (i > 0 ? ", %" : "%") << (i < cargs.size() ? cargs[i].name : text("x")) << " = %" << inits[i].name;
    head << ") : (";
    type_list(head, inits);
    line(head << ") -> " << types_text(rs) << " {");
    region(cond, region_kind::while_cond, {}, cargs);
    line("} do {");
    header_line(block_header(bargs));
    region(body, region_kind::while_body, rs, {});
    line("}");
  }
  static constexpr text types_text_bare(std::span<const ssa> rs) {
    text s;
    type_list(s, rs);
    return s;
  }
  static constexpr text types_text(std::span<const ssa> rs) {
    if (rs.size() == 1) return rs[0].type;
    return text("(") << types_text_bare(rs) << ')';
  }
  constexpr text indent_text() const {
    text s;
    for (int i = 0; i < indent_; ++i) s << ' ';
    return s;
  }

  constexpr void op(op_id o) {
    const opcode c = f_.op(o).code();
    switch (dialect_of(c)) {
      case dialect::buffer: buffer_op(o); return;
      case dialect::scalar: scalar_op(o); return;
      case dialect::control:
        if (c == opcode::cf_if) if_op(o);
        else if (c == opcode::cf_for) for_op(o);
        else if (c == opcode::cf_while) while_op(o);
        return;
      default: return;  // the preflight rejected everything else
    }
  }

  struct constant_entry {
    text literal;
    text type;
    text name;
  };

  const function& f_;
  bool generic_;
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

/// Checks one Buffer-stage kernel of `p` for emission: the IR verifier, the preflight, then the
/// Buffer storage proofs of `verify_buffer` (a kernel may come here without the pipeline).
/// Empty when `f` can be emitted.
constexpr std::vector<diagnostic> check_pto(const program& p, const function& f) {
  std::vector<diagnostic> out;
  if (!f.is_device()) {
    out.push_back(diagnostic{f.loc, text(detail::pto_source),
                             text("@") << f.name_of() << " is an orchestration function; PTO-AS holds device kernels only",
                             {}});
    return out;
  }
  if (f.stage != ir_stage::buffer) {
    out.push_back(diagnostic{f.loc, text(detail::pto_source),
                             text("@") << f.name_of()
                                       << " is a Tile-stage kernel; the PTO emitter writes Buffer-stage kernels only "
                                          "(legacy Tile emission is out of scope)",
                             {}});
    return out;
  }
  // A checker's findings, reported by the emitter as invalid Buffer IR.
  const auto invalid_ir = [&](std::vector<diagnostic> found) {
    for (diagnostic& d : found) {
      d.message = text("Invalid Buffer IR (") << d.source << "): " << d.message;
      d.source = text(detail::pto_source);
      out.push_back(static_cast<diagnostic&&>(d));
    }
  };
  invalid_ir(verify(p, f));
  // The preflight and the storage proofs read only verified IR: malformed arenas never reach
  // them. The preflight first: where both object, its emission-level message is the one to read.
  if (out.empty()) detail::pto_preflight(f, out).run();
  if (out.empty()) invalid_ir(detail::buffer_checker(f).run());
  return out;
}

/// PTO-AS text for the Buffer-stage kernels of `p`, in one `module`. Orchestration functions
/// are host code and are skipped (a comment says so); a Tile-stage kernel is an error, as is
/// any kernel the preflight rejects. With `o.kernel`, only that function is emitted.
constexpr result<text> emit_pto(const program& p, const pto_options& o = {}) {
  result<text> out;
  text funcs;
  bool found = o.kernel.empty();
  for (const function& f : p.functions) {
    if (!o.kernel.empty() && f.name_of() != o.kernel) continue;
    found = true;
    if (o.kernel.empty() && !f.is_device()) {
      funcs << "  // @" << f.name_of() << ": orchestration (host code), not emitted\n";
      continue;
    }
    std::vector<diagnostic> errors = check_pto(p, f);
    if (!errors.empty()) {
      for (auto& d : errors) out.errors.push_back(static_cast<diagnostic&&>(d));
      continue;
    }
    detail::pto_emitter(f, o.generic).run(funcs);
  }
  if (!found)
    out.errors.push_back(diagnostic{location{}, text(detail::pto_source),
                                    text("no function named @") << o.kernel << " in the program", {}});
  if (!out.errors.empty()) return out;
  if (o.generic) out.value << "\"builtin.module\"() ({\n" << funcs << "}) : () -> ()\n";
  else out.value << "module {\n" << funcs << "}\n";
  return out;
}

}  // namespace v0
}  // namespace tile2buffer
