// SPDX-License-Identifier: Apache-2.0
/// @file emit/pto_emitter.hpp
/// The PTO-AS rules (`pto_emitter`): one member per Buffer op or family, reading the op's
/// operands by name through the typed views and building its `mlir_op` record from the PTO op
/// model (emit/pto_ops.hpp); the kernel's signature and tensor views; scalar ops as `arith`; and
/// `scf` control flow; and which rule each Buffer op gets (`pto_rules`).
#pragma once

#include <array>
#include <cstddef>
#include <iterator>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/analysis/scalar_contract.hpp"
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
#include "tile2buffer/emit/pto_values.hpp"
#include "tile2buffer/ir/coverage.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {


/// The PTO op a Buffer family member becomes: its record's `native` (reference §2.4).
/// Why a table: the emitter asks for every op it writes, and `pto_op_named` compares mnemonics.
inline constexpr std::array<pto_op, opcode_count> native_ops = [] {
  std::array<pto_op, opcode_count> t{};
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (const auto p = pto_op_named(info(static_cast<opcode>(i)).native)) t[i] = *p;
  return t;
}();
constexpr pto_op native_of(opcode c) { return native_ops[static_cast<std::size_t>(c)]; }

/// Every Buffer op of a family the record emits natively names a PTO op the facts table has, of
/// the family's form: elementwise ops take their inputs and destination as `ins`/`outs`, and an
/// op that may take `high_precision` has a `precisionType` property to carry it.
constexpr bool natives_match_pto_facts() {
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const op_record& r = info(static_cast<opcode>(i));
    if (r.dia != dialect::buffer || r.native.empty()) continue;
    const auto p = pto_op_named(r.native);
    if (!p) return false;
    const bool high_precision = (r.keywords & kw_bit(keyword::high_precision)) != 0;
    if (high_precision && property_of(*p, "precisionType") == nullptr) return false;
    if (r.family == op_family::elementwise) {
      const int inputs = r.ew == ew_kind::binary || r.ew == ew_kind::scalar_form ? 2 : 1;
      if (def_of(*p).form != native_form::ins_outs || def_of(*p).outs != static_cast<std::size_t>(inputs)) return false;
    }
  }
  return true;
}
static_assert(natives_match_pto_facts(),
              "tile2buffer: a Buffer op's record names a `native` PTO op that emit/pto_ops.hpp's facts table lacks or "
              "that does not take the family's operands");

inline constexpr std::string_view spmd_block_idx = "__pypto_spmd_block_idx";
inline constexpr std::string_view spmd_block_num = "__pypto_spmd_block_num";
inline constexpr std::string_view spmd_subblock_idx = "__pypto_spmd_subblock_idx";

class pto_emitter;
/// How one Buffer op is emitted: a member of `pto_emitter` reading the op by name.
struct pto_rule {
  opcode op;
  void (pto_emitter::*emit)(op_id);
};

/// Writes one verified, preflighted Buffer-stage kernel.
class pto_emitter : public pto_emitter_base {
 public:
  constexpr pto_emitter(const function& f, const mlir_printer& printer, target_arch target)
      : pto_emitter_base(f, printer, target) {}

  constexpr void run(text& out) {
    signature();
    tensor_views();
    indent_ = 4;
    for (const op_id o : f_.ops_of(f_.body))
      if (f_.op(o).code() != opcode::cf_return) op(o);
    emit(record("func.return", native_form::ret, {}, {}));
    printer_.function_open(out, f_.name_of(), args_, kind_attr());
    out << consts_ << views_ << body_;
    printer_.function_close(out, kind_attr());
  }


  //===--- one rule per Buffer op (the `pto_rules` table) ---===//

  constexpr void alloc(op_id o) {
    const view<opcode::buffer_alloc> a(f_, o);
    const ssa h = value(a.result());
    const type& t = a.result_type();
    std::vector<ssa> groups[3];
    if (a.address().kind != operand_kind::none) groups[0].push_back(scalar(a.address(), dtype::int64));
    const auto valid = a.elements(a.init_valid());
    std::size_t next = 0;
    for (std::size_t d = 0; d < 2; ++d)
      if (t.valid[d].is_runtime() && next < valid.size()) groups[1 + d].push_back(index(valid[next++]));
    emit(pto_record(pto_op::alloc_tile, {groups[0], groups[1], groups[2]}, one(h)));
  }
  constexpr void set_validshape(op_id o) {
    const view<opcode::buffer_set_validshape> s(f_, o);
    const auto ext = s.elements(s.valid());
    const ssa ops[] = {value(s.buffer().value()), index(ext[0]), index(ext[1])};
    emit(pto_record(pto_op::set_validshape, {one(ops[0]), one(ops[1]), one(ops[2])}, {}));
  }
  constexpr void load(op_id o) {
    const typed<buffer::load> l(f_, o);
    const ssa pv = partition(l.tensor(), l.offsets(), l.valid());
    const ssa dst = value(l.dest().value());
    emit(pto_record(pto_op::tload, {one(pv), one(dst)}, {}));
  }
  constexpr void store(op_id o) {
    const typed<buffer::store> s(f_, o);
    const ssa pv = partition(s.tensor(), s.offsets(), s.valid());
    const ssa src = value(s.source().value());
    emit(pto_record(pto_op::tstore, {one(src), one(pv)}, {}));
  }
  constexpr void copy(op_id o) {
    const typed<buffer::copy> c(f_, o);
    const ssa src = value(c.source().value()), dst = value(c.dest().value());
    emit(pto_record(pto_op::tmov, {one(src), one(dst)}, {}));
  }
  constexpr void subview(op_id o) {
    const typed<buffer::subview> v(f_, o);
    const ssa src = value(v.source().value());
    // Its type is pto_type's: a constant valid operand makes that dim static.
    const ssa r = value(v.result());
    const type& rt = v.result_type();
    const auto offs = v.elements(v.offsets());
    const ssa offsets[] = {index(offs[0]), index(offs[1])};
    std::vector<ssa> valid[2];
    if (v.valid().kind != operand_kind::none) {
      const auto e = v.elements(v.valid());
      valid[0].push_back(index(e[0]));
      valid[1].push_back(index(e[1]));
    }
    // `sizes` is an I64ArrayAttr: `[R, C]` (a DenseI64ArrayAttr `array<i64: ...>` is rejected).
    const pto_set sizes{"sizes", text("[") << rt.shape[0] << ", " << rt.shape[1] << ']'};
    emit(pto_record(pto_op::subview, {one(src), offsets, valid[0], valid[1]}, one(r), std::span<const pto_set>(&sizes, 1)));
  }
  constexpr void reshape(op_id o) {
    const typed<buffer::reshape> v(f_, o);
    const ssa src = value(v.source().value());
    const ssa r = value(v.result());
    emit(pto_record(pto_op::treshape, {one(src)}, one(r)));
  }
  constexpr void extract(op_id o) {
    const view<opcode::buffer_extract> x(f_, o);
    const ssa ins[] = {value(x.source().value()), index(x.row()), index(x.col())};
    const ssa dst = value(x.dest().value());
    emit(pto_record(pto_op::textract, {one(ins[0]), one(ins[1]), one(ins[2]), one(dst)}, {}));
  }
  constexpr void matmul(op_id o) {
    const view<opcode::buffer_matmul> m(f_, o);
    const ssa lhs = value(m.lhs().value()), rhs = right_operand(m.lhs().value(), m.rhs().value());
    const ssa dst = value(m.dest().value());
    emit(pto_record(pto_op::tmatmul, {one(lhs), one(rhs), one(dst)}, {}));
  }
  constexpr void matmul_acc(op_id o) {
    // The running sum is named as the first input and repeated as the output.
    const view<opcode::buffer_matmul_acc> m(f_, o);
    const ssa acc = value(m.dest().value());
    const ssa lhs = value(m.lhs().value()), rhs = right_operand(m.lhs().value(), m.rhs().value());
    emit(pto_record(pto_op::tmatmul_acc, {one(acc), one(lhs), one(rhs), one(acc)}, {}));
  }
  /// The Right operand as tmatmul must see it. The product sums over the Left's valid K, and the
  /// Right may be valid over more rows (reference §2.6); ptoas wants the two K extents equal
  /// (pto-dialect.md §4), so a wider Right is narrowed by a whole-tile subview whose valid rows
  /// are the Left's K. The preflight (matmul_extents_problem) rejects the runtime cases.
  constexpr ssa right_operand(value_id left, value_id right) {
    const type l = pto_type(f_, left), r = pto_type(f_, right);
    const ssa whole = value(right);
    if (!l.valid[1].is_static() || !r.valid[0].is_static() || l.valid[1].number == r.valid[0].number) return whole;
    type narrowed = r;
    narrowed.valid[0] = l.valid[1];
    const ssa k_view{ssa_.take((text(name_of(right)) << "_k").view()), value_type(narrowed, target_)};
    const ssa offsets[] = {constant("0", dtype::index), constant("0", dtype::index)};
    const ssa rows = constant(int_literal(l.valid[1].number).view(), dtype::index);
    const ssa cols = constant(int_literal(r.valid[1].number).view(), dtype::index);
    const pto_set sizes{"sizes", text("[") << r.shape[0] << ", " << r.shape[1] << ']'};
    emit(pto_record(pto_op::subview, {one(whole), offsets, one(rows), one(cols)}, one(k_view),
                    std::span<const pto_set>(&sizes, 1)));
    return k_view;
  }
  /// Row reductions: `ins(%x, %tmp) outs(%dst)`, the scratch always passed.
  constexpr void row_reduction(op_id o) {
    const pto_op p = native_of(f_.op(o).code());
    const ssa src = value(named_operand<"source">(f_, o).value());
    const ssa tmp = value(named_operand<"tmp">(f_, o).value());
    const ssa dst = value(named_operand<"dest">(f_, o).value());
    emit(pto_record(p, {one(src), one(tmp), one(dst)}, {}));
  }
  /// Column reductions: with a scratch (col_sum) `tcolsum ins(%x, %tmp {isBinary = false} : ...)
  /// outs(%dst)` (the sequential form, §3.2), else `tcolmax`/`tcolmin ins(%x) outs(%dst)`.
  constexpr void col_reduction(op_id o) {
    const opcode c = f_.op(o).code();
    const ssa src = value(named_operand<"source">(f_, o).value());
    const ssa dst = value(named_operand<"dest">(f_, o).value());
    if (!info(c).scratch.empty()) {
      const ssa tmp = value(named_operand<"tmp">(f_, o).value());
      const pto_set sequential{"isBinary", text("false")};
      emit(pto_record(native_of(c), {one(src), one(tmp), one(dst)}, {}, std::span<const pto_set>(&sequential, 1)));
      return;
    }
    emit(pto_record(native_of(c), {one(src), one(dst)}, {}));
  }
  /// Cast: `tcvt ins(%x {rmode = #pto<round_mode M>, satmode = #pto<saturation_mode S>} : Tx)
  /// outs(%dst : Td)`: M the ISA name of the rounding the simulator applies for the pair and the
  /// op's mode, S whether it saturates (ir/cast.hpp), always written (PTOAS 0.63 changed its
  /// default); no tmp (the accepted pairs need none).
  constexpr void cast(op_id o) {
    const int mode = cast_mode(f_.kwarg_of(o, keyword::mode));
    const operand source = named_operand<"source">(f_, o), dest = named_operand<"dest">(f_, o);
    const dtype from = f_.type_of(source.value()).dt, to = f_.type_of(dest.value()).dt;
    const ssa src = value(source.value());
    const ssa dst = value(dest.value());
    const std::array<pto_set, 2> set{pto_set{"rmode", text(isa_name(cast_rounding(from, to, mode)))},
                                     pto_set{"sat_mode", text(cast_saturates(from, to) ? "ON" : "OFF")}};
    emit(pto_record(pto_op::tcvt, {one(src), {}, one(dst)}, {}, std::span<const pto_set>(set)));
  }
  /// Row broadcast: `trowexpand ins(%v) outs(%dst)`.
  constexpr void row_expand(op_id o) {
    const ssa src = value(named_operand<"source">(f_, o).value());
    const ssa dst = value(named_operand<"dest">(f_, o).value());
    emit(pto_record(native_of(f_.op(o).code()), {one(src), one(dst)}, {}));
  }
  /// Row-broadcast arithmetic, mode 2: `ins(%x, %blk) outs(%dst)`, no tmp.
  constexpr void row_expand_arith(op_id o) {
    const pto_op p = native_of(f_.op(o).code());
    const ssa x = value(named_operand<"source">(f_, o).value());
    const ssa blk = value(named_operand<"blk">(f_, o).value());
    const ssa dst = value(named_operand<"dest">(f_, o).value());
    emit(pto_record(p, {one(x), one(blk), {}, one(dst)}, {}));
  }
  /// Column broadcast: `tcolexpand ins(%w) outs(%dst)`.
  constexpr void col_expand(op_id o) {
    const ssa src = value(named_operand<"source">(f_, o).value());
    const ssa dst = value(named_operand<"dest">(f_, o).value());
    emit(pto_record(native_of(f_.op(o).code()), {one(src), one(dst)}, {}));
  }
  /// Column-broadcast arithmetic: `tcolexpand<op> ins(%x, %w) outs(%dst)`.
  constexpr void col_expand_arith(op_id o) {
    const ssa x = value(named_operand<"source">(f_, o).value());
    const ssa w = value(named_operand<"vector">(f_, o).value());
    const ssa dst = value(named_operand<"dest">(f_, o).value());
    emit(pto_record(native_of(f_.op(o).code()), {one(x), one(w), one(dst)}, {}));
  }
  /// SPMD queries read the kernel ABI parameters the signature appended.
  constexpr void query(op_id o) {
    const opcode c = f_.op(o).code();
    const std::string_view abi = c == opcode::buffer_get_block_idx   ? spmd_block_idx
                                 : c == opcode::buffer_get_block_num ? spmd_block_num
                                                                     : spmd_subblock_idx;
    const ssa r = value(f_.result(o));
    emit(cast_record("arith.index_cast", ssa{text(abi), text("i32")}, r));
  }
  /// Elementwise: inputs in recipe order, then the destination; element scalars in the
  /// destination's element type.
  constexpr void elementwise(op_id o) {
    const opcode c = f_.op(o).code();
    const pto_op p = native_of(c);
    const operand dest = named_operand<"dest">(f_, o);
    const ssa dst = value(dest.value());
    const dtype element = f_.type_of(dest.value()).dt;
    std::vector<ssa> ins;
    const auto input = [&](const operand& x) {
      // Why not `?:`: g++ 12 misjudges the lifetime of a class temporary chosen by a conditional
      // in constant evaluation ("use of allocated storage after deallocation").
      if (x.is_value() && f_.type_of(x.value()).is_buffer()) ins.push_back(value(x.value()));
      else ins.push_back(scalar(x, element));
    };
    switch (info(c).ew) {
      case ew_kind::binary:
        input(named_operand<"lhs">(f_, o));
        input(named_operand<"rhs">(f_, o));
        break;
      case ew_kind::unary: input(named_operand<"source">(f_, o)); break;
      case ew_kind::scalar_form:
        input(named_operand<"source">(f_, o));
        input(named_operand<"scalar">(f_, o));
        break;
      case ew_kind::fill: input(named_operand<"value">(f_, o)); break;
      case ew_kind::none: return;
    }
    std::vector<pto_set> set;
    if (high_precision_set(f_, o)) set.push_back(pto_set{"precisionType", text("high_precision")});
    if (ins.size() == 2) emit(pto_record(p, {one(ins[0]), one(ins[1]), one(dst)}, {}, set));
    else if (const operand tmp = named_operand<"tmp">(f_, o); tmp.is_value())  // trsqrt's generic order (%x, %d, %tmp)
      emit(pto_record(p, {one(ins[0]), one(dst), one(value(tmp.value()))}, {}, set));
    else emit(pto_record(p, {one(ins[0]), one(dst)}, {}, set));
  }


 private:
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
      // A one-column tensor (the preflight admits it only as a column-vector transfer's GM side)
      // is the DN view of its contiguous column, strides [1, N], its layout written out: PTOAS
      // infers DN only from constant shapes, and a2a3 moves a DN tile only through a DN view.
      const bool dn = t.shape[1] == 1;
      const std::int64_t s0 = dn ? 1 : t.has_stride ? t.stride[0] : t.shape[1];
      const std::int64_t s1 = dn ? t.shape[0] : t.has_stride ? t.stride[1] : 1;
      const ssa dims[] = {constant(int_literal(t.shape[0]).view(), dtype::index),
                          constant(int_literal(t.shape[1]).view(), dtype::index)};
      const ssa strides[] = {constant(int_literal(s0).view(), dtype::index), constant(int_literal(s1).view(), dtype::index)};
      const ssa tv{ssa_.take((text("tv") << tensors++).view()), tensor_view_type(t.dt)};
      views_of_[p.value.index] = tv.name;
      const pto_set layout{"layout", text("#pto.layout<dn>")};
      printer_.op(views_, 4,
                  pto_record(pto_op::make_tensor_view, {one(value(p.value)), dims, strides}, one(tv),
                             dn ? std::span<const pto_set>(&layout, 1) : std::span<const pto_set>{}));
    }
  }

  /// `pto.partition_view` of a tensor parameter for a load or store window.
  constexpr ssa partition(const operand& tensor, const operand& offsets, const operand& extents) {
    const value_id t = tensor.value();
    const dtype d = f_.type_of(t).dt;
    const auto offs = f_.elements(offsets);
    const auto exts = f_.elements(extents);
    const ssa o0 = index(offs[0]), o1 = index(offs[1]), e0 = index(exts[0]), e1 = index(exts[1]);
    // A runtime extent is a dynamic dimension `?` of the view type (pto-dialect.md §2).
    text pty("!pto.partition_tensor_view<");
    for (const operand& e : exts) {
      if (e.kind == operand_kind::int_lit) pty << e.num;
      else pty << '?';
      pty << 'x';
    }
    pty << mlir_type(d) << '>';
    const ssa tv{views_of_[t.index], tensor_view_type(d)};
    const ssa pv{ssa_.take("pv"), pty};
    const ssa os[] = {o0, o1}, es[] = {e0, e1};
    emit(pto_record(pto_op::partition_view, {one(tv), os, es}, one(pv)));
    return pv;
  }

  //===--- scalar ops ---===//

  /// The dtype scalar operands of `o` are computed in: a value operand's, else the result's.
  constexpr dtype operand_dtype(op_id o) const {
    for (const operand& a : f_.args(o))
      if (a.is_value() && f_.type_of(a.value()).is_scalar()) return f_.type_of(a.value()).dt;
    return f_.type_of(f_.result(o)).dt;
  }
  constexpr void binary(std::string_view op, const ssa& a, const ssa& b, const ssa& r) {
    const ssa ops[] = {a, b};
    emit(record(op, native_form::binary, ops, one(r)));
  }
  constexpr void scalar_op(op_id o) {
    const opcode c = f_.op(o).code();
    const value_id res = f_.result(o);
    const dtype rd = f_.type_of(res).dt;
    if (c == opcode::scalar_const) {
      // Keep the op's own name: a constant bound in the source is a named value there.
      const operand v = view<opcode::scalar_const>(f_, o).value();
      const ssa r = value(res);
      text lit;
      if (rd == dtype::bool_) lit << (v.num != 0 ? "true" : "false");
      else if (is_float(rd)) append_decimal(lit, v.num, v.kind == operand_kind::float_lit ? v.exp10 : 0);
      else lit << v.num;
      if (is_unsigned(rd)) {
        // Bind the name to the reinterpreted constant.
        names_[res.index] = constant(lit.view(), rd).name;
        return;
      }
      emit(constant_record(lit.view(), r, rd));
      return;
    }
    if (c == opcode::scalar_cast) {
      const operand v = view<opcode::scalar_cast>(f_, o).value();
      const ssa x = scalar(v, v.is_value() ? f_.type_of(v.value()).dt : rd);
      const ssa y = convert(x, v.is_value() ? f_.type_of(v.value()).dt : rd, rd);
      // Why rebind rather than copy: MLIR has no plain SSA copy, and a cast to the same type is a no-op.
      names_[res.index] = y.name;
      return;
    }
    const dtype od = operand_dtype(o);
    const bool flt = is_float(od);
    if (c == opcode::scalar_not) {
      const ssa x = scalar(view<opcode::scalar_not>(f_, o).arg(), dtype::bool_);
      const ssa t = constant("true", dtype::bool_);
      binary("arith.xori", x, t, value(res));
      return;
    }
    const ssa a = scalar(named_operand<"lhs">(f_, o), od), b = scalar(named_operand<"rhs">(f_, o), od);
    // The record's operation: a comparison (`arith.cmpi`/`cmpf` with MLIR's predicate numbers),
    // an `arith` op, or floor modulo built from remsi.
    const auto cmp = [&](int i, std::string_view in, int fp, std::string_view fn) {
      names_[res.index] = compare(flt, flt ? fp : i, flt ? fn : in, a, b, f_.name_of(res)).name;
    };
    switch (info(c).fn) {
      case scalar_fn::lt: return cmp(2, "slt", 4, "olt");
      case scalar_fn::le: return cmp(3, "sle", 5, "ole");
      case scalar_fn::eq: return cmp(0, "eq", 1, "oeq");
      case scalar_fn::ne: return cmp(1, "ne", 13, "une");
      case scalar_fn::gt: return cmp(4, "sgt", 2, "ogt");
      case scalar_fn::ge: return cmp(5, "sge", 3, "oge");
      case scalar_fn::add: binary(flt ? "arith.addf" : "arith.addi", a, b, value(res)); return;
      case scalar_fn::sub: binary(flt ? "arith.subf" : "arith.subi", a, b, value(res)); return;
      case scalar_fn::mul: binary(flt ? "arith.mulf" : "arith.muli", a, b, value(res)); return;
      case scalar_fn::min: binary(flt ? "arith.minimumf" : "arith.minsi", a, b, value(res)); return;
      case scalar_fn::max: binary(flt ? "arith.maximumf" : "arith.maxsi", a, b, value(res)); return;
      case scalar_fn::logical_and: binary("arith.andi", a, b, value(res)); return;
      case scalar_fn::logical_or: binary("arith.ori", a, b, value(res)); return;
      case scalar_fn::floordiv: binary("arith.floordivsi", a, b, value(res)); return;
      case scalar_fn::mod: {
        // Floor modulo (the sign follows the divisor): remsi, then add the divisor when the
        // remainder is nonzero and its sign differs from the divisor's.
        const ssa r = value(res);
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
        const ssa ops[] = {fix, adj, rem};
        emit(record("arith.select", native_form::select, ops, one(r)));
        return;
      }
      case scalar_fn::none:
      case scalar_fn::logical_not: return;  // not two-operand (the preflight and `not` above)
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
  /// A region's ops, then its terminator. `yield_types` are the values it yields (results of the
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
      const auto vals = view<opcode::cf_yield>(f_, o).values();
      std::vector<ssa> ops;
      if (kind == region_kind::while_cond) {
        if (vals.empty()) ops.push_back(constant("false", dtype::bool_));
        else ops.push_back(scalar(vals[0], dtype::bool_));
        ops.insert(ops.end(), forward.begin(), forward.end());
        emit(record("scf.condition", native_form::condition, ops, {}));
        continue;
      }
      for (std::size_t i = 0; i < vals.size() && i < yield_types.size(); ++i) {
        const ssa& want = yield_types[i];
        // A yielded literal takes the result's type; a value keeps its own (the verifier matched them).
        ops.push_back(carried(vals[i], result_dtype(want)));
      }
      // scf.while has no implicit terminator: its body writes `scf.yield` even when empty.
      emit(record("scf.yield", kind == region_kind::while_body ? native_form::yield_required : native_form::yield, ops, {}));
    }
    // A region the IR leaves open: only the generic form spells the terminator MLIR implies.
    if (!terminated) emit(record(kind == region_kind::while_cond ? "scf.condition" : "scf.yield", native_form::implicit, {}, {}));
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

  constexpr void if_op(op_id o) {
    const view<opcode::cf_if> v(f_, o);
    const ssa cond = scalar(v.cond(), dtype::bool_);
    mlir_op r = record("scf.if", native_form::scf_if, one(cond), results_of(o));
    const region_id then_r = f_.region_of(o, 0), else_r = f_.region_of(o, 1);
    r.second_region = !r.results.empty() || !f_.ops_of(else_r).empty();
    printer_.open(body_, indent_, r);
    region(then_r, region_kind::branch, r.results, {});
    printer_.next_region(body_, indent_, r);
    if (r.second_region) region(else_r, region_kind::branch, r.results, {});
    printer_.close(body_, indent_, r);
  }
  constexpr void for_op(op_id o) {
    const view<opcode::cf_for> v(f_, o);
    std::vector<ssa> ops{index(v.start()), index(v.stop()), index(v.step())};
    const region_id body = f_.region_of(o, 0);
    const std::vector<ssa> rs = results_of(o);
    const auto inits = v.inits();
    for (std::size_t k = 0; k < inits.size(); ++k)
      ops.push_back(carried(inits[k], k < rs.size() ? result_dtype(rs[k]) : dtype::index));
    mlir_op r = record("scf.for", native_form::scf_for, ops, rs);
    r.region_args.push_back(region_args(body));
    printer_.open(body_, indent_, r);
    region(body, region_kind::for_body, rs, {});
    printer_.close(body_, indent_, r);
  }
  constexpr void while_op(op_id o) {
    const view<opcode::cf_while> v(f_, o);
    const std::vector<ssa> rs = results_of(o);
    const region_id cond = f_.region_of(o, 0), body = f_.region_of(o, 1);
    const auto inits = v.inits();
    std::vector<ssa> ops;
    for (std::size_t i = 0; i < inits.size(); ++i)
      ops.push_back(carried(inits[i], i < rs.size() ? result_dtype(rs[i]) : dtype::index));
    mlir_op r = record("scf.while", native_form::scf_while, ops, rs);
    r.region_args.push_back(region_args(cond));
    r.region_args.push_back(region_args(body));
    printer_.open(body_, indent_, r);
    region(cond, region_kind::while_cond, {}, r.region_args[0]);
    printer_.next_region(body_, indent_, r);
    region(body, region_kind::while_body, rs, {});
    printer_.close(body_, indent_, r);
  }

  constexpr void buffer_op(op_id o);
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
};

//===--- which rule each Buffer op gets ---===//
// A family's members share their family's rule (`family_rule`), the other ops have their own
// (`single_pto_rules`), and every Buffer op has exactly one (ir/coverage.hpp;
// `buffer_op_needs_one_pto_rule<opcode::...>` names a gap).

/// The rule of a family's Buffer members: one per family, whatever its members.
constexpr void (pto_emitter::*family_rule(op_family f))(op_id) {
  switch (f) {
    case op_family::elementwise: return &pto_emitter::elementwise;
    case op_family::row_reduction: return &pto_emitter::row_reduction;
    case op_family::col_reduction: return &pto_emitter::col_reduction;
    case op_family::row_broadcast: return &pto_emitter::row_expand;
    case op_family::col_broadcast: return &pto_emitter::col_expand;
    case op_family::row_broadcast_arith: return &pto_emitter::row_expand_arith;
    case op_family::col_broadcast_arith: return &pto_emitter::col_expand_arith;
    case op_family::cast: return &pto_emitter::cast;
    case op_family::spmd_query: return &pto_emitter::query;
    case op_family::single:
    case op_family::scalar_arith:
    case op_family::scalar_compare:
    case op_family::scalar_logic:
    case op_family::control: return nullptr;
  }
  return nullptr;
}
/// The ops with a rule of their own; every other Buffer op gets its family's.
inline constexpr pto_rule single_pto_rules[] = {
    {opcode::buffer_alloc, &pto_emitter::alloc},     {opcode::buffer_set_validshape, &pto_emitter::set_validshape},
    {opcode::buffer_load, &pto_emitter::load},       {opcode::buffer_store, &pto_emitter::store},
    {opcode::buffer_copy, &pto_emitter::copy},       {opcode::buffer_subview, &pto_emitter::subview},
    {opcode::buffer_reshape, &pto_emitter::reshape}, {opcode::buffer_extract, &pto_emitter::extract},
    {opcode::buffer_matmul, &pto_emitter::matmul},   {opcode::buffer_matmul_acc, &pto_emitter::matmul_acc},
};
inline constexpr std::size_t family_rule_count = [] {
  std::size_t n = 0;
  for (std::size_t i = 0; i < opcode_count; ++i)
    n += is_buffer_op(static_cast<opcode>(i)) && family_rule(family_of(static_cast<opcode>(i))) != nullptr;
  return n;
}();
/// The rule of every Buffer op; `pto_rules_cover_buffer_ops` checks there is exactly one each.
inline constexpr auto pto_rules = [] {
  std::array<pto_rule, std::size(single_pto_rules) + family_rule_count> rules{};
  std::size_t n = 0;
  for (const pto_rule& r : single_pto_rules) rules[n++] = r;
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const auto c = static_cast<opcode>(i);
    if (is_buffer_op(c) && family_rule(family_of(c)) != nullptr) rules[n++] = pto_rule{c, family_rule(family_of(c))};
  }
  return rules;
}();

/// The first Buffer opcode without exactly one rule in `rules`, or `opcode_count` (ir/coverage.hpp).
template <std::size_t N>
constexpr std::size_t first_buffer_op_without_rule(const std::array<pto_rule, N>& rules) {
  return first_coverage_gap<opcode_count>(
             rules, [](const pto_rule& r) { return static_cast<std::size_t>(r.op); },
             [](std::size_t c) { return is_buffer_op(static_cast<opcode>(c)) ? entries::exactly_one : entries::none; })
      .key;
}
/// Undefined: the compiler's error names the Buffer op that has no (or two) PTO rules.
template <opcode C>
struct buffer_op_needs_one_pto_rule;
template <std::size_t I>
constexpr bool pto_rules_cover_buffer_ops() {
  if constexpr (I < opcode_count) return sizeof(buffer_op_needs_one_pto_rule<static_cast<opcode>(I)>) > 0;
  else return true;
}
static_assert(pto_rules_cover_buffer_ops<first_buffer_op_without_rule(pto_rules)>(),
              "tile2buffer: emit/pto.hpp pto_rules must have exactly one rule per Buffer op; add one to the table");

inline constexpr auto pto_rule_index = [] {
  std::array<std::size_t, opcode_count> at{};
  for (std::size_t i = 0; i < pto_rules.size(); ++i) at[static_cast<std::size_t>(pto_rules[i].op)] = i;
  return at;
}();

constexpr void pto_emitter::buffer_op(op_id o) {
  (this->*pto_rules[pto_rule_index[static_cast<std::size_t>(f_.op(o).code())]].emit)(o);
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
