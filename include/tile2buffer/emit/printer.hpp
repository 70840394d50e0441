// SPDX-License-Identifier: Apache-2.0
/// @file emit/printer.hpp
/// One emitted MLIR op as data (`mlir_op`: name, operands, results, inherent attributes, operand
/// segments, the spelling of its custom form) and the printer that renders it either in its
/// custom (native) form or in MLIR's generic op form. The emitter builds records; only this
/// printer knows the two syntaxes.
///
/// Generic form, as MLIR's own printer writes it: `%r = "name"(%a, ...) <{props}> ({regions})
/// {attrs} : (Ta, ...) -> R`. `<{...}>` is the op's properties dictionary, keys sorted by name,
/// and appears only when the op has properties: its inherent attributes (default-valued ones
/// materialised) and `operandSegmentSizes` when the op has the AttrSizedOperandSegments trait.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/detail/text.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// An SSA value as an operand: its name (without `%`) and MLIR type.
struct ssa {
  text name;
  text type;
};

/// The custom (native) spelling of an op; the generic form is the same for every op.
enum class native_form : std::uint8_t {
  constant,        ///< `%r = arith.constant V[ : T]` (the `value` property as written)
  cast,            ///< `%r = op %x : T to R`
  binary,          ///< `%r = op %a, %b : T`
  compare,         ///< `%r = arith.cmpX pred, %a, %b : T` (`pred` is the record's `aux`)
  select,          ///< `%r = arith.select %c, %a, %b : T`
  scf_if,          ///< `%r = scf.if %c -> (T) {` then `} else {` then `}`
  scf_for,         ///< `%r = scf.for %i = %lb to %ub step %s iter_args(%x = %v) -> (T) {`
  scf_while,       ///< `%r = scf.while (%x = %v) : (T) -> R {` then `} do {` then `}`
  yield,           ///< `scf.yield %a : T`; nothing when it yields no value
  yield_required,  ///< as `yield`, but a bare `scf.yield` when empty (scf.while's body)
  condition,       ///< `scf.condition(%c) %a : T`
  implicit,        ///< a terminator only the generic form writes (a region the IR left open)
  ret,             ///< `return`
  ins_outs,        ///< `op ins(%a : Ta) outs(%d : Td) [{attrs}]`
  ins_attrs_outs,  ///< `op ins(%a, %b {attrs} : Ta, Tb) outs(%d : Td)` (tcolsum: attributes inside `ins`)
  alloc_tile,      ///< `%t = pto.alloc_tile [addr = %a] [valid_row = %r] [valid_col = %c] : T`
  make_tensor_view,
  partition_view,
  subview,         ///< `%v = pto.subview %s[%o0, %o1] sizes [R, C] [valid [%r, %c]] : Ts -> Td`
  set_validshape,  ///< `pto.set_validshape %t, %r, %c : T`
  treshape,        ///< `%r = pto.treshape %t : T1 -> T2`
};

/// An inherent attribute (a property): its name, its value as MLIR prints it, and whether the
/// value is the op's declared default (the custom form elides defaults; the generic form, like
/// MLIR's printer for default-valued properties, writes them).
struct mlir_attr {
  std::string_view name;
  text value;
  bool is_default = false;
  /// The generic form's spelling when MLIR's printer writes the value differently from the
  /// custom form (a float constant: `1.500000e+00` for `1.5`); empty when they agree.
  text generic_value{};
  /// The custom form's key when the op's custom syntax renames the property (tcvt's `satmode`
  /// for the property `sat_mode`); empty when it is `name`.
  std::string_view native_name{};

  [[nodiscard]] constexpr const text& generic() const { return generic_value.empty() ? value : generic_value; }
  [[nodiscard]] constexpr std::string_view native_key() const { return native_name.empty() ? name : native_name; }
};

/// One op as the printer reads it.
struct mlir_op {
  std::string_view name;
  native_form form{};
  std::vector<ssa> operands;
  std::vector<ssa> results;
  std::vector<mlir_attr> props;
  /// `operandSegmentSizes`, one entry per declared operand group, when `segmented`.
  std::vector<std::int32_t> segments;
  bool segmented = false;
  /// `ins_outs`: how many leading operands are inputs, then how many are outputs (all the rest
  /// when `outs` is 0); operands after the outputs are inputs too (trsqrt's generic order puts
  /// its optional `tmp` after the destination, its custom form in `ins`).
  std::size_t ins = 0, outs = 0;
  text aux;
  /// Region ops: the block arguments of each region, and whether the second region is written
  /// (an `scf.if` without else has an empty second region only in the generic form).
  std::vector<std::vector<ssa>> region_args;
  bool second_region = true;
};

/// Renders `mlir_op` records, region by region, in one of the two syntaxes.
class mlir_printer {
 public:
  constexpr explicit mlir_printer(bool generic) : generic_form_(generic) {}

  [[nodiscard]] constexpr bool writes_generic() const { return generic_form_; }

  /// A region-free op on one line at `indent`.
  constexpr void op(text& out, int indent, const mlir_op& o) const {
    if (generic_form_) return line(out, indent, generic_op(o));
    if (text s = native_op(o); !s.empty()) line(out, indent, s);
  }
  /// The opening line of a region op and the header of its first region.
  constexpr void open(text& out, int indent, const mlir_op& o) const {
    if (generic_form_) {
      text s = result_prefix(o.results) << '"' << o.name << "\"(";
      operand_list(s, o.operands);
      line(out, indent, s << ") ({");
      block_header(out, indent, o.region_args.empty() ? std::span<const ssa>{} : o.region_args[0]);
      return;
    }
    line(out, indent, native_open(o));
  }
  /// Between region 0 and region 1.
  constexpr void next_region(text& out, int indent, const mlir_op& o) const {
    if (generic_form_) {
      line(out, indent, "}, {");
      if (o.region_args.size() > 1) block_header(out, indent, o.region_args[1]);
      return;
    }
    if (o.form == native_form::scf_while) {
      line(out, indent, "} do {");
      if (o.region_args.size() > 1) block_header(out, indent, o.region_args[1]);
    } else if (o.second_region) {
      line(out, indent, "} else {");
    }
  }
  /// The closing line of a region op.
  constexpr void close(text& out, int indent, const mlir_op& o) const {
    if (!generic_form_) return line(out, indent, "}");
    text s("}) : (");
    type_list(s, o.operands);
    line(out, indent, s << ") -> " << result_types(o.results));
  }

  /// The function frame: `func.func @name(%a: T, ...) [attributes {attrs}] {` and its end, or the
  /// generic `"func.func"() <{function_type = ..., sym_name = "name"}> ({ ... }) {attrs} : () -> ()`.
  constexpr void function_open(text& out, std::string_view name, std::span<const ssa> args, std::string_view attrs) const {
    if (generic_form_) {
      out << "  \"func.func\"() <{function_type = (";
      type_list(out, args);
      out << ") -> (), sym_name = \"" << name << "\"}> ({\n";
      if (!args.empty()) {
        out << "  ^bb0(";
        for (std::size_t i = 0; i < args.size(); ++i) out << (i > 0 ? ", " : "") << '%' << args[i].name << ": " << args[i].type;
        out << "):\n";
      }
      return;
    }
    out << "  func.func @" << name << '(';
    for (std::size_t i = 0; i < args.size(); ++i) out << (i > 0 ? ", " : "") << '%' << args[i].name << ": " << args[i].type;
    out << ')';
    if (!attrs.empty()) out << " attributes {" << attrs << '}';
    out << " {\n";
  }
  constexpr void function_close(text& out, std::string_view attrs) const {
    if (!generic_form_) {
      out << "  }\n";
      return;
    }
    out << "  })";
    if (!attrs.empty()) out << " {" << attrs << '}';
    out << " : () -> ()\n";
  }
  /// The module around `body`, with its discardable attributes.
  constexpr void module(text& out, std::string_view attrs, const text& body) const {
    if (generic_form_) {
      out << "\"builtin.module\"() ({\n" << body << "})";
      if (!attrs.empty()) out << " {" << attrs << '}';
      out << " : () -> ()\n";
      return;
    }
    out << "module";
    if (!attrs.empty()) out << " attributes {" << attrs << '}';
    out << " {\n" << body << "}\n";
  }

  static constexpr void operand_list(text& out, std::span<const ssa> xs) {
    for (std::size_t i = 0; i < xs.size(); ++i) out << (i > 0 ? ", %" : "%") << xs[i].name;
  }
  static constexpr void type_list(text& out, std::span<const ssa> xs) {
    for (std::size_t i = 0; i < xs.size(); ++i) out << (i > 0 ? ", " : "") << xs[i].type;
  }
  /// `T` for one type, `(T, U)` otherwise (`()` for none): a generic op's result list.
  static constexpr text result_types(std::span<const ssa> rs) {
    if (rs.size() == 1) return rs[0].type;
    text s("(");
    type_list(s, rs);
    return s << ')';
  }

 private:
  static constexpr void line(text& out, int indent, std::string_view s) {
    for (int i = 0; i < indent; ++i) out << ' ';
    out << s << '\n';
  }
  static constexpr void line(text& out, int indent, const text& s) { line(out, indent, s.view()); }
  static constexpr text result_prefix(std::span<const ssa> rs) {
    text s;
    if (rs.empty()) return s;
    operand_list(s, rs);
    s << " = ";
    return s;
  }
  static constexpr void block_header(text& out, int indent, std::span<const ssa> args) {
    if (args.empty()) return;
    text s("^bb0(");
    for (std::size_t i = 0; i < args.size(); ++i) s << (i > 0 ? ", %" : "%") << args[i].name << ": " << args[i].type;
    line(out, indent, s << "):");
  }

  //===--- generic form ---===//

  /// The properties dictionary: every inherent attribute and the segment sizes, sorted by name.
  static constexpr text properties(const mlir_op& o) {
    std::vector<const mlir_attr*> sorted;
    for (const mlir_attr& a : o.props) sorted.push_back(&a);
    mlir_attr segments{"operandSegmentSizes", {}, false};
    if (o.segmented) {
      segments.value << "array<i32";
      for (std::size_t i = 0; i < o.segments.size(); ++i) segments.value << (i > 0 ? ", " : ": ") << o.segments[i];
      segments.value << '>';
      sorted.push_back(&segments);
    }
    std::sort(sorted.begin(), sorted.end(), [](const mlir_attr* a, const mlir_attr* b) { return a->name < b->name; });
    text s;
    for (std::size_t i = 0; i < sorted.size(); ++i) s << (i > 0 ? ", " : "") << sorted[i]->name << " = " << sorted[i]->generic();
    return s;
  }
  static constexpr text generic_op(const mlir_op& o) {
    text s = result_prefix(o.results) << '"' << o.name << "\"(";
    operand_list(s, o.operands);
    s << ')';
    if (const text p = properties(o); !p.empty()) s << " <{" << p << "}>";
    s << " : (";
    type_list(s, o.operands);
    return s << ") -> " << result_types(o.results);
  }

  //===--- custom form ---===//

  /// The attribute dictionary of the custom form: the properties that differ from their default.
  static constexpr text set_attrs(const mlir_op& o) {
    text s;
    for (const mlir_attr& a : o.props)
      if (!a.is_default) s << (s.empty() ? "" : ", ") << a.native_key() << " = " << a.value;
    return s;
  }
  static constexpr text native_op(const mlir_op& o) {
    const auto& x = o.operands;
    const text r = result_prefix(o.results);
    // The type after `:` (or `to`/`->`): the result's, else the first operand's.
    const auto rt = [&]() -> const text& { return o.results.empty() ? x.front().type : o.results.front().type; };
    switch (o.form) {
      case native_form::constant: return text(r) << o.name << ' ' << o.props.front().value;
      case native_form::cast: return text(r) << o.name << " %" << x[0].name << " : " << x[0].type << " to " << rt();
      case native_form::binary: return text(r) << o.name << " %" << x[0].name << ", %" << x[1].name << " : " << rt();
      case native_form::compare:
        return text(r) << o.name << ' ' << o.aux << ", %" << x[0].name << ", %" << x[1].name << " : " << x[0].type;
      case native_form::select:
        return text(r) << o.name << " %" << x[0].name << ", %" << x[1].name << ", %" << x[2].name << " : " << rt();
      case native_form::yield:
      case native_form::yield_required: {
        if (x.empty()) return text(o.form == native_form::yield_required ? std::string_view("scf.yield") : "");
        text s("scf.yield ");
        operand_list(s, x);
        s << " : ";
        type_list(s, x);
        return s;
      }
      case native_form::condition: {
        text s = text("scf.condition(%") << x[0].name << ')';
        if (x.size() > 1) {
          s << ' ';
          operand_list(s, std::span<const ssa>(x).subspan(1));
          s << " : ";
          type_list(s, std::span<const ssa>(x).subspan(1));
        }
        return s;
      }
      case native_form::implicit: return {};
      case native_form::ret: return text("return");
      case native_form::ins_outs:
      case native_form::ins_attrs_outs: {
        const std::span<const ssa> all(x);
        const std::size_t outs = o.outs == 0 ? all.size() - o.ins : o.outs;
        std::vector<ssa> ins(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(o.ins));
        ins.insert(ins.end(), all.begin() + static_cast<std::ptrdiff_t>(o.ins + outs), all.end());
        const bool inside = o.form == native_form::ins_attrs_outs;
        text s(o.name);
        s << " ins(";
        operand_list(s, ins);
        if (inside)
          if (const text a = set_attrs(o); !a.empty()) s << " {" << a << '}';
        s << " : ";
        type_list(s, ins);
        s << ") outs(";
        operand_list(s, all.subspan(o.ins, outs));
        s << " : ";
        type_list(s, all.subspan(o.ins, outs));
        s << ')';
        if (!inside)
          if (const text a = set_attrs(o); !a.empty()) s << " {" << a << '}';
        return s;
      }
      case native_form::alloc_tile: {
        constexpr std::string_view clauses[] = {" addr = %", " valid_row = %", " valid_col = %"};
        text s = text(r) << o.name;
        std::size_t k = 0;
        for (std::size_t g = 0; g < 3 && g < o.segments.size(); ++g)
          if (o.segments[g] != 0) s << clauses[g] << x[k++].name;
        return s << " : " << rt();
      }
      case native_form::make_tensor_view: {
        text s = text(r) << o.name << " %" << x[0].name << ", shape = [%" << x[1].name << ", %" << x[2].name << "], strides = [%"
                         << x[3].name << ", %" << x[4].name << ']';
        if (const text a = set_attrs(o); !a.empty()) s << " {" << a << '}';
        return s << " : " << rt();
      }
      case native_form::partition_view:
        return text(r) << o.name << " %" << x[0].name << ", offsets = [%" << x[1].name << ", %" << x[2].name << "], sizes = [%"
                       << x[3].name << ", %" << x[4].name << "] : " << x[0].type << " -> " << rt();
      case native_form::subview: {
        text s = text(r) << o.name << " %" << x[0].name << "[%" << x[1].name << ", %" << x[2].name << "] sizes ";
        for (const mlir_attr& a : o.props)
          if (a.name == "sizes") s << a.value;
        if (x.size() == 5) s << " valid [%" << x[3].name << ", %" << x[4].name << ']';
        return s << " : " << x[0].type << " -> " << rt();
      }
      case native_form::set_validshape:
        return text(o.name) << " %" << x[0].name << ", %" << x[1].name << ", %" << x[2].name << " : " << x[0].type;
      case native_form::treshape: return text(r) << o.name << " %" << x[0].name << " : " << x[0].type << " -> " << rt();
      case native_form::scf_if:
      case native_form::scf_for:
      case native_form::scf_while: break;  // region ops open with `native_open`
    }
    return {};
  }
  static constexpr text native_open(const mlir_op& o) {
    const auto& x = o.operands;
    text s = result_prefix(o.results);
    const std::span<const ssa> first = o.region_args.empty() ? std::span<const ssa>{} : o.region_args[0];
    if (o.form == native_form::scf_if) {
      s << "scf.if %" << x[0].name;
      if (!o.results.empty()) {
        s << " -> (";
        type_list(s, o.results);
        s << ')';
      }
      return s << " {";
    }
    if (o.form == native_form::scf_for) {
      s << "scf.for %" << (first.empty() ? text("i") : first[0].name) << " = %" << x[0].name << " to %" << x[1].name << " step %"
        << x[2].name;
      if (x.size() > 3) {
        s << " iter_args(";
        for (std::size_t i = 3; i < x.size(); ++i)
          s << (i > 3 ? ", %" : "%") << (i - 2 < first.size() ? first[i - 2].name : text("x")) << " = %" << x[i].name;
        s << ") -> (";
        type_list(s, o.results);
        s << ')';
      }
      return s << " {";
    }
    // scf.while: the condition region's arguments are named in the init list.
    s << "scf.while (";
    for (std::size_t i = 0; i < x.size(); ++i)
      s << (i > 0 ? ", %" : "%") << (i < first.size() ? first[i].name : text("x")) << " = %" << x[i].name;
    s << ") : (";
    type_list(s, x);
    return s << ") -> " << result_types(o.results) << " {";
  }

  bool generic_form_;
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
