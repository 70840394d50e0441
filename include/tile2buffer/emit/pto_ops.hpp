// SPDX-License-Identifier: Apache-2.0
/// @file emit/pto_ops.hpp
/// The PTO op model: for every PTO op the emitter writes, its mnemonic, custom form, declared
/// operand groups (in order, with their kinds) and properties (with the default that MLIR
/// materialises), as the real dialect (PTOAS 0.60, `include/PTO/IR/PTOOps.td`) declares them;
/// `pto_record` turns the operands of one use into the `mlir_op` the printer renders in either
/// form. The facts and their sources are in `docs/pto-as.md`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/emit/printer.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// The PTO ops the emitter names in code. A PTO op that only a family member becomes (found by
/// the record's `native` mnemonic, `pto_op_named`) needs no enumerator: its row follows the
/// enumerated ones in `pto_facts::table`, marked `by_name`.
// clang-format off
enum class pto_op : std::uint8_t {
  alloc_tile, make_tensor_view, partition_view, subview, set_validshape, treshape,
  tload, tstore, tmov, textract, tmatmul, tmatmul_acc,
  texpands, tadd, tsub, tmul, tdiv, tmax, tmin,
  tabs, texp, tsqrt, tneg, trelu, tlog, trecip,
  tadds, tsubs, tmuls, tdivs, tmaxs, tmins, tlrelu,
  trowsum, trowmax, trowmin, trowexpand, trowexpandsub, trowexpanddiv, trowexpandmul, trsqrt,
  tcvt, tcolsum, tcolmax, tcolmin, tcolexpand, tcolexpandadd, tcolexpandsub, tcolexpandmul, tcolexpanddiv, tcolexpandmax, tcolexpandmin, tcolexpandexpdif,
  by_name,
};
// clang-format on
inline constexpr std::size_t pto_named_ops = static_cast<std::size_t>(pto_op::by_name);

/// How many operands a declared group takes: exactly one, zero or one, or any number.
enum class group_kind : std::uint8_t { one, optional, variadic };
struct operand_group {
  std::string_view name;
  group_kind kind = group_kind::one;
};
/// An inherent attribute. An EnumAttr prints `#pto<kind case>`; a DefaultValuedAttr (with
/// `default_case`) is materialised on creation, so MLIR's generic printer always writes it.
struct property_def {
  std::string_view name;
  std::string_view enum_kind = {};
  std::string_view default_case = {};
  /// The custom syntax's key when it differs from `name` (tcvt: `satmode` for `sat_mode`).
  std::string_view native_name = {};
  /// Written in the custom form even when it equals `default_case`: the default changed between
  /// PTOAS versions (tcvt's saturation: OFF in 0.60, ON in 0.63), so an elided value means two things.
  bool always_written = false;
};

struct pto_op_def {
  pto_op op;
  std::string_view mnemonic;
  native_form form;
  std::array<operand_group, 6> groups{};  ///< declared order; unused slots have no name
  /// `ins_outs`: the group written in `outs(...)`; the groups before it are the `ins`.
  std::size_t outs = 0;
  std::array<property_def, 3> props{};

  [[nodiscard]] constexpr std::size_t group_count() const {
    std::size_t n = 0;
    while (n < groups.size() && !groups[n].name.empty()) ++n;
    return n;
  }
  /// MLIR requires AttrSizedOperandSegments (and so `operandSegmentSizes`) exactly when more
  /// than one group is optional or variadic; a single such group's size is inferred.
  [[nodiscard]] constexpr bool segmented() const {
    int variable = 0;
    for (std::size_t i = 0; i < group_count(); ++i) variable += groups[i].kind != group_kind::one;
    return variable > 1;
  }
};

namespace pto_facts {
inline constexpr operand_group one(std::string_view n) { return {n, group_kind::one}; }
inline constexpr operand_group opt(std::string_view n) { return {n, group_kind::optional}; }
inline constexpr operand_group many(std::string_view n) { return {n, group_kind::variadic}; }
inline constexpr property_def relu_pre_mode{"reluPreMode", "relu_pre_mode", "no_relu"};
inline constexpr property_def acc_phase{"accPhase", "acc_phase", "unspecified"};
inline constexpr property_def precision(std::string_view kind) { return {"precisionType", kind, "default"}; }
inline constexpr std::array<operand_group, 6> binary_groups{one("src0"), one("src1"), one("dst")};
inline constexpr std::array<operand_group, 6> unary_groups{one("src"), one("dst")};
inline constexpr std::array<operand_group, 6> scalar_groups{one("src"), one("scalar"), one("dst")};

/// One row per enumerated `pto_op`, in enum order, then the rows found by name (checked below).
// clang-format off
inline constexpr pto_op_def table[] = {
    {pto_op::alloc_tile, "pto.alloc_tile", native_form::alloc_tile, {opt("addr"), opt("valid_row"), opt("valid_col")}},
    {pto_op::make_tensor_view, "pto.make_tensor_view", native_form::make_tensor_view, {one("ptr"), many("shape"), many("strides")},
     0, {property_def{"layout"}}},
    {pto_op::partition_view, "pto.partition_view", native_form::partition_view, {one("source"), many("offsets"), many("sizes")}},
    {pto_op::subview, "pto.subview", native_form::subview, {one("source"), many("offsets"), opt("valid_row"), opt("valid_col")},
     0, {property_def{"sizes"}}},
    {pto_op::set_validshape, "pto.set_validshape", native_form::set_validshape, {one("source"), one("valid_row"), one("valid_col")}},
    {pto_op::treshape, "pto.treshape", native_form::treshape, {one("src")}},
    {pto_op::tload, "pto.tload", native_form::ins_outs,
     {one("src"), one("dst"), opt("pad_value"), opt("left_padding_num"), opt("right_padding_num"), opt("init_condition")},
     1},
    {pto_op::tstore, "pto.tstore", native_form::ins_outs, {one("src"), one("dst"), opt("fp"), opt("preQuantScalar")}, 1,
     {property_def{"atomicType", "atomic_type", "atomic_none"}, relu_pre_mode,
      property_def{"stPhase", "st_phase", "unspecified"}}},
    {pto_op::tmov, "pto.tmov", native_form::ins_outs, {one("src"), one("dst"), opt("fp"), opt("preQuantScalar")}, 1, {relu_pre_mode}},
    {pto_op::textract, "pto.textract", native_form::ins_outs,
     {one("src"), one("indexRow"), one("indexCol"), one("dst"), opt("fp"), opt("preQuantScalar")}, 3, {relu_pre_mode}},
    {pto_op::tmatmul, "pto.tmatmul", native_form::ins_outs, {one("lhs"), one("rhs"), one("dst")}, 2, {acc_phase}},
    {pto_op::tmatmul_acc, "pto.tmatmul.acc", native_form::ins_outs, {one("acc_in"), one("lhs"), one("rhs"), one("dst")}, 3, {acc_phase}},
    {pto_op::texpands, "pto.texpands", native_form::ins_outs, {one("scalar"), one("dst")}, 1},
    {pto_op::tadd, "pto.tadd", native_form::ins_outs, binary_groups, 2},
    {pto_op::tsub, "pto.tsub", native_form::ins_outs, binary_groups, 2},
    {pto_op::tmul, "pto.tmul", native_form::ins_outs, binary_groups, 2},
    {pto_op::tdiv, "pto.tdiv", native_form::ins_outs, binary_groups, 2, {precision("div_precision")}},
    {pto_op::tmax, "pto.tmax", native_form::ins_outs, binary_groups, 2},
    {pto_op::tmin, "pto.tmin", native_form::ins_outs, binary_groups, 2},
    {pto_op::tabs, "pto.tabs", native_form::ins_outs, unary_groups, 1},
    {pto_op::texp, "pto.texp", native_form::ins_outs, unary_groups, 1, {precision("exp_precision")}},
    {pto_op::tsqrt, "pto.tsqrt", native_form::ins_outs, unary_groups, 1, {precision("sqrt_precision")}},
    {pto_op::tneg, "pto.tneg", native_form::ins_outs, unary_groups, 1},
    {pto_op::trelu, "pto.trelu", native_form::ins_outs, unary_groups, 1},
    {pto_op::tlog, "pto.tlog", native_form::ins_outs, unary_groups, 1, {precision("log_precision")}},
    {pto_op::trecip, "pto.trecip", native_form::ins_outs, unary_groups, 1, {precision("recip_precision")}},
    {pto_op::tadds, "pto.tadds", native_form::ins_outs, scalar_groups, 2},
    {pto_op::tsubs, "pto.tsubs", native_form::ins_outs, scalar_groups, 2},
    {pto_op::tmuls, "pto.tmuls", native_form::ins_outs, scalar_groups, 2},
    {pto_op::tdivs, "pto.tdivs", native_form::ins_outs, scalar_groups, 2, {precision("div_precision")}},
    {pto_op::tmaxs, "pto.tmaxs", native_form::ins_outs, scalar_groups, 2},
    {pto_op::tmins, "pto.tmins", native_form::ins_outs, scalar_groups, 2},
    {pto_op::tlrelu, "pto.tlrelu", native_form::ins_outs, {one("src"), one("slope"), one("dst")}, 2},
    // Row reductions (0.58+: tmp optional; we always pass it, extended rollout §3.1).
    {pto_op::trowsum, "pto.trowsum", native_form::ins_outs, {one("src"), opt("tmp"), one("dst")}, 2},
    {pto_op::trowmax, "pto.trowmax", native_form::ins_outs, {one("src"), opt("tmp"), one("dst")}, 2},
    {pto_op::trowmin, "pto.trowmin", native_form::ins_outs, {one("src"), opt("tmp"), one("dst")}, 2},
    {pto_op::trowexpand, "pto.trowexpand", native_form::ins_outs, unary_groups, 1},
    // Row-broadcast arithmetic: generic (%x, %v, %tmp?, %d); we pass the mode-2 block as %v, no tmp.
    {pto_op::trowexpandsub, "pto.trowexpandsub", native_form::ins_outs, {one("src0"), one("src1"), opt("tmp"), one("dst")}, 3},
    {pto_op::trowexpanddiv, "pto.trowexpanddiv", native_form::ins_outs, {one("src0"), one("src1"), opt("tmp"), one("dst")}, 3,
     {precision("div_precision")}},
    {pto_op::trowexpandmul, "pto.trowexpandmul", native_form::ins_outs, {one("src0"), one("src1"), opt("tmp"), one("dst")}, 3},
    // Generic operand order (%x, %d, %tmp?): the optional tmp is declared after dst; never passed.
    {pto_op::trsqrt, "pto.trsqrt", native_form::ins_outs, {one("src"), one("dst"), opt("tmp")}, 1, {precision("rsqrt_precision")}},
    // tcvt (§3.7): attributes inside `ins`; generic (%x, %tmp?, %d) with materialised rmode and sat_mode.
    {pto_op::tcvt, "pto.tcvt", native_form::ins_attrs_outs, {one("src"), opt("tmp"), one("dst")}, 2,
     {property_def{"rmode", "round_mode", "CAST_RINT"}, property_def{"sat_mode", "saturation_mode", "OFF", "satmode", true}}},
    // Column reductions (§3.2): tcolsum always with tmp and the sequential isBinary = false.
    {pto_op::tcolsum, "pto.tcolsum", native_form::ins_attrs_outs, {one("src"), opt("tmp"), one("dst")}, 2,
     {property_def{"isBinary"}}},
    {pto_op::tcolmax, "pto.tcolmax", native_form::ins_outs, unary_groups, 1},
    {pto_op::tcolmin, "pto.tcolmin", native_form::ins_outs, unary_groups, 1},
    // Column broadcasts (extended rollout §3.5, §3.5b): no scratch, no properties documented.
    {pto_op::tcolexpand, "pto.tcolexpand", native_form::ins_outs, unary_groups, 1},
    {pto_op::tcolexpandadd, "pto.tcolexpandadd", native_form::ins_outs, binary_groups, 2},
    {pto_op::tcolexpandsub, "pto.tcolexpandsub", native_form::ins_outs, binary_groups, 2},
    {pto_op::tcolexpandmul, "pto.tcolexpandmul", native_form::ins_outs, binary_groups, 2},
    {pto_op::tcolexpanddiv, "pto.tcolexpanddiv", native_form::ins_outs, binary_groups, 2},
    {pto_op::tcolexpandmax, "pto.tcolexpandmax", native_form::ins_outs, binary_groups, 2},
    {pto_op::tcolexpandmin, "pto.tcolexpandmin", native_form::ins_outs, binary_groups, 2},
    {pto_op::tcolexpandexpdif, "pto.tcolexpandexpdif", native_form::ins_outs, binary_groups, 2},
};
// clang-format on
}  // namespace pto_facts
inline constexpr std::size_t pto_op_count = std::size(pto_facts::table);

/// Rows in enum order, then `by_name` rows; mnemonics unique; an `ins_outs` op's `outs` group is
/// a required one after at least one input.
constexpr bool pto_table_is_well_formed() {
  for (std::size_t i = 0; i < pto_op_count; ++i) {
    const pto_op_def& d = pto_facts::table[i];
    const bool placed = i < pto_named_ops ? static_cast<std::size_t>(d.op) == i : d.op == pto_op::by_name;
    if (!placed || d.group_count() == 0) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (pto_facts::table[j].mnemonic == d.mnemonic) return false;
    if ((d.form == native_form::ins_outs || d.form == native_form::ins_attrs_outs) &&
        (d.outs == 0 || d.outs >= d.group_count() || d.groups[d.outs].kind != group_kind::one))
      return false;
  }
  return true;
}
static_assert(pto_table_is_well_formed(), "tile2buffer: emit/pto_ops.hpp pto_facts::table must have one row per pto_op, "
                                          "in enum order, each ins/outs op naming a required outs group");

constexpr const pto_op_def& def_of(pto_op op) { return pto_facts::table[static_cast<std::size_t>(op)]; }

/// The PTO op whose mnemonic is `name` (`pto.trowexpanddiv`), if the table has it. A row after
/// the enumerated ones is named by its position (the first is `pto_op::by_name`'s value).
constexpr std::optional<pto_op> pto_op_named(std::string_view name) {
  for (std::size_t i = 0; i < pto_op_count; ++i)
    if (pto_facts::table[i].mnemonic == name) return static_cast<pto_op>(i);
  return std::nullopt;
}

/// The property `name` of `op`, or nullptr.
constexpr const property_def* property_of(pto_op op, std::string_view name) {
  for (const property_def& p : def_of(op).props)
    if (!p.name.empty() && p.name == name) return &p;
  return nullptr;
}

/// A property value set by this use: `name = value` (an EnumAttr value is just its case).
struct pto_set {
  std::string_view name;
  text value;
};

/// The record of one use of `op`: `groups` are the operands of the declared groups in order
/// (trailing absent groups may be left out), `set` the properties this use gives.
constexpr mlir_op pto_record(pto_op op, std::initializer_list<std::span<const ssa>> groups, std::span<const ssa> results,
                             std::span<const pto_set> set = {}) {
  const pto_op_def& d = def_of(op);
  mlir_op r;
  r.name = d.mnemonic;
  r.form = d.form;
  r.results.assign(results.begin(), results.end());
  r.segmented = d.segmented();
  std::size_t g = 0;
  for (const std::span<const ssa> group : groups) {
    const bool outs = g == d.outs && (d.form == native_form::ins_outs || d.form == native_form::ins_attrs_outs);
    if (outs) r.ins = r.operands.size();
    r.operands.insert(r.operands.end(), group.begin(), group.end());
    if (outs) r.outs = group.size();
    r.segments.push_back(static_cast<std::int32_t>(group.size()));
    ++g;
  }
  for (; g < d.group_count(); ++g) r.segments.push_back(0);
  for (const property_def& p : d.props) {
    if (p.name.empty()) continue;
    const pto_set* given = nullptr;
    for (const pto_set& s : set)
      if (s.name == p.name) given = &s;
    const auto spelled = [&](std::string_view value) {
      text v;
      if (p.enum_kind.empty()) return v << value;
      return v << "#pto<" << p.enum_kind << ' ' << value << '>';
    };
    if (given != nullptr)
      r.props.push_back(mlir_attr{
          p.name, spelled(given->value.view()), !p.always_written && given->value.view() == p.default_case, {}, p.native_name});
    else if (!p.default_case.empty())
      r.props.push_back(mlir_attr{p.name, spelled(p.default_case), !p.always_written, {}, p.native_name});
  }
  return r;
}

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
