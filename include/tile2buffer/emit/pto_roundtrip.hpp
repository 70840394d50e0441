// SPDX-License-Identifier: Apache-2.0
/// @file emit/pto_roundtrip.hpp
/// The PTO-AS round trip (issue 52 item 10): emit a program's Buffer-stage kernels, read the
/// PTO-AS back into Buffer IR (`emit/pto_read.hpp`) and require it structurally equal to the
/// Buffer IR it came from. The checker dialect (tests/pto-dialect) proves the text is well-formed
/// PTO; this proves it says what the Buffer IR says: every keyword the emitter translates (rounding
/// mode and saturation, precision, layouts, valid operands, addresses, isBinary), every operand's
/// wiring, every type, in both directions.
///
/// Structural equality is `ir/equal.hpp`'s (same ops in order, operands wired alike, values
/// corresponding one to one, names ignored) up to what the PTO form cannot carry, which the
/// comparison normalizes on the original's side:
/// - parameters: compared in the PTO order (tensor parameters first), without names or directions;
///   a tensor's strides as numbers (an explicit stride equal to the default reads back as none);
/// - the function's results and `return`'s operands (a kernel returns nothing in PTO-AS);
/// - `scalar.const` ops: a use of one is compared as the literal it binds;
/// - scalar conversions: an explicit `cast` (and the conversion the emitter inserts where an
///   operand's dtype differs from what its use takes) is compared by its source, except a
///   conversion to BOOL, which PTO-AS spells `x != 0` (compared as that); which steps a conversion
///   takes is checked by the reader (signedness) and typed by MLIR (tests/pto-dialect), not here;
/// - a Left tile's block layout (ptoas's parser sets it per target; the emitter prints that one);
/// - a subview's valid dim bound by an INDEX constant, which ptoas types as min(constant, size);
/// - an empty `yield` (MLIR ends every region with a terminator whether the IR wrote it or not);
/// - the whole-tile subview the emitter narrows a wider Right with before `tmatmul`
///   (docs/pto-as.md): compared as part of the matmul;
/// - a cast's `mode` by the rounding it means for its dtype pair (ir/cast.hpp: 0 and 1 both mean
///   RINT), and `high_precision = false` as no keyword.
/// Float literals are compared as the bits their constant's type holds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/detail/decimal.hpp"
#include "tile2buffer/detail/mlir_float.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/emit/mlir.hpp"
#include "tile2buffer/emit/pto.hpp"
#include "tile2buffer/emit/pto_read.hpp"
#include "tile2buffer/ir/cast.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

inline constexpr std::string_view pto_roundtrip_source = "pto-roundtrip";

/// The text of line `line` of `s` (1-based), trimmed, cut to `width` bytes.
inline std::string_view source_line(std::string_view s, std::uint32_t line, std::size_t width = 200) {
  for (std::uint32_t l = 1; l < line; ++l) {
    const std::size_t nl = s.find('\n');
    if (nl == std::string_view::npos) return {};
    s.remove_prefix(nl + 1);
  }
  s = s.substr(0, s.find('\n'));
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return s.substr(0, width);
}

/// Compares one kernel with the function read back from its PTO-AS; the first difference.
class pto_roundtrip_compare {
 public:
  pto_roundtrip_compare(const function& a, const function& b, std::span<const pto_read_literal> literals, target_arch target)
      : a_(a), b_(b), lits_(literals), target_(target), a_to_b_(a.values.size(), no_id), b_to_a_(b.values.size(), no_id),
        b_alias_(b.values.size(), no_id) {}

  /// The first difference, if any: where in the original, what, and the read-back op's PTO-AS location.
  struct difference {
    location orig;
    text message;
    location pto;
  };
  std::optional<difference> run() {
    if (a_.kind != b_.kind)
      return differ(a_.loc, b_.loc,
                    text("its kind ") << name(a_.kind) << " reads back as " << name(b_.kind) << " (pto.kernel_kind)");
    if (b_.target != std::optional<target_arch>(target_))
      return differ(a_.loc, b_.loc, text("its target ") << name(target_) << " reads back as another pto.target_arch");
    std::vector<const param_info*> params;
    for (const bool tensors : {true, false})
      for (const param_info& p : a_.params)
        if (a_.type_of(p.value).is_tensor() == tensors) params.push_back(&p);
    if (params.size() != b_.params.size())
      return differ(a_.loc, b_.loc,
                    text("its ") << static_cast<std::int64_t>(params.size()) << " parameters read back as "
                                 << static_cast<std::int64_t>(b_.params.size()));
    for (std::size_t i = 0; i < params.size(); ++i)
      if (!bind(params[i]->value, b_.params[i].value))
        return differ(params[i]->loc, b_.loc,
                      text("parameter '") << a_.name_of(params[i]->value) << "' of type "
                                          << describe(a_.type_of(params[i]->value)) << " reads back as "
                                          << describe(b_.type_of(b_.params[i].value)));
    return regions(a_.body, b_.body, a_.loc);
  }

 private:
  std::optional<difference> differ(location orig, location pto, text message) {
    return difference{orig, static_cast<text&&>(message), pto};
  }

  //===--- the original, normalized ---===//

  /// A `cast` the comparison reads through: every scalar conversion but one to BOOL from another
  /// dtype, which PTO-AS writes as a comparison.
  [[nodiscard]] bool transparent_cast(op_id o) const {
    if (a_.op(o).code() != opcode::scalar_cast) return false;
    const dtype to = a_.type_of(a_.result(o)).dt;
    const operand v = view<opcode::scalar_cast>(a_, o).value();
    const dtype from = v.is_value() ? a_.type_of(v.value()).dt : to;
    return !(to == dtype::bool_ && from != dtype::bool_);
  }
  /// An operand of the original through `scalar.const` and transparent casts.
  [[nodiscard]] operand resolved(operand x) const {
    for (int guard = 0; x.is_value() && guard < 1 << 20; ++guard) {
      const value_info& v = a_.value(x.value());
      if (v.origin() != value_origin::result) break;
      const opcode c = a_.op(v.def).code();
      if (c == opcode::scalar_const) x = view<opcode::scalar_const>(a_, v.def).value();
      else if (transparent_cast(v.def)) x = view<opcode::scalar_cast>(a_, v.def).value();
      else break;
    }
    return x;
  }
  [[nodiscard]] bool kept(op_id o) const {
    const opcode c = a_.op(o).code();
    if (c == opcode::scalar_const || transparent_cast(o)) return false;
    return !(c == opcode::cf_yield && a_.args(o).empty());
  }
  /// The literal an INDEX operand holds for ptoas (a literal, or a value bound by an INDEX
  /// `c = N`; another dtype reaches the op through arith.index_cast, no constant to ptoas).
  [[nodiscard]] std::optional<std::int64_t> ptoas_constant(const operand& o) const {
    if (o.kind == operand_kind::int_lit) return o.num;
    if (!o.is_value() || a_.type_of(o.value()).dt != dtype::index) return std::nullopt;
    const value_info& v = a_.value(o.value());
    if (v.origin() != value_origin::result || a_.op(v.def).code() != opcode::scalar_const) return std::nullopt;
    const operand c = view<opcode::scalar_const>(a_, v.def).value();
    if (c.kind != operand_kind::int_lit) return std::nullopt;
    return c.num;
  }
  /// The type of original value `v` as the PTO form states it.
  [[nodiscard]] type visible(value_id v) const {
    type t = a_.type_of(v);
    if (!t.is_buffer()) return t;
    if (t.space == memory_space::left) t.blayout = target_ == target_arch::a5 ? box_layout::col_major : box_layout::row_major;
    const value_info& info = a_.value(v);
    if (info.origin() == value_origin::result && a_.op(info.def).code() == opcode::buffer_subview) {
      const typed<buffer::subview> sub(a_, info.def);
      if (sub.valid().kind == operand_kind::tuple) {
        const auto e = sub.elements(sub.valid());
        for (std::size_t i = 0; i < 2 && i < e.size(); ++i)
          if (const auto c = ptoas_constant(e[i]); c && t.valid[i].is_runtime())
            t.valid[i] = extent::of(*c < t.shape[i] ? *c : t.shape[i]);
      }
    }
    return t;
  }
  /// Whether original type `x` (as `visible` gives it) and read-back type `y` agree.
  static bool same_type(const type& x, const type& y) {
    if (x.kind != y.kind || x.dt != y.dt) return false;
    if (x.is_scalar()) return true;
    if (x.is_tensor()) {
      const auto stride = [](const type& t) { return t.has_stride ? t.stride : std::array<std::int64_t, 2>{t.shape[1], 1}; };
      return x.shape == y.shape && stride(x) == stride(y) && x.tlayout == y.tlayout;
    }
    if (!x.is_buffer()) return false;
    const auto ext = [](const extent& e) { return e.is_runtime() ? std::int64_t{-1} : e.number; };
    return x.space == y.space && x.shape == y.shape && ext(x.valid[0]) == ext(y.valid[0]) && ext(x.valid[1]) == ext(y.valid[1]) &&
           x.valid[0].is_value() == y.valid[0].is_value() && x.valid[1].is_value() == y.valid[1].is_value() &&
           x.blayout == y.blayout && x.slayout == y.slayout && x.fractal == y.fractal && x.pad == y.pad && x.compact == y.compact;
  }
  static text describe(const type& t) {
    text s;
    const auto ext = [&](const extent& e) {
      if (e.is_static()) s << e.number;
      else s << '?';
    };
    if (t.is_scalar()) return s << "Scalar[" << name(t.dt) << ']';
    if (t.is_tensor()) {
      s << "Tensor[[" << t.shape[0] << ", " << t.shape[1] << "], " << name(t.dt);
      if (t.has_stride) s << ", stride=[" << t.stride[0] << ", " << t.stride[1] << ']';
      return s << ']';
    }
    s << "Buffer[[" << t.shape[0] << ", " << t.shape[1] << "], " << name(t.dt) << ", " << name(t.space) << ", valid=[";
    ext(t.valid[0]);
    s << ", ";
    ext(t.valid[1]);
    return s << "], blayout=" << name(t.blayout) << ", slayout=" << name(t.slayout)
             << ", fractal=" << static_cast<std::int64_t>(t.fractal) << ", pad=" << name(t.pad) << ", compact=" << name(t.compact)
             << ']';
  }

  //===--- values ---===//

  bool bind(value_id x, value_id y) {
    if (a_to_b_[x.index] != no_id || b_to_a_[y.index] != no_id) return a_to_b_[x.index] == y.index && b_to_a_[y.index] == x.index;
    if (!same_type(visible(x), b_.type_of(y))) return false;
    a_to_b_[x.index] = y.index;
    b_to_a_[y.index] = x.index;
    return true;
  }
  [[nodiscard]] const pto_read_literal* literal_of(const operand& y) const {
    const auto at = static_cast<std::uint32_t>(&y - b_.operands.data());
    for (const pto_read_literal& l : lits_)
      if (l.pool == at) return &l;
    return nullptr;
  }
  /// Original literal `x` equals the literal `y` read back from a constant of `l.dt`.
  static bool same_literal(const operand& x, const operand& y, const pto_read_literal& l) {
    if (l.dt == dtype::bool_)
      return (x.kind == operand_kind::bool_lit || x.kind == operand_kind::int_lit) && (x.num != 0) == (y.num != 0);
    if (!is_float(l.dt)) return (x.kind == operand_kind::int_lit || x.kind == operand_kind::bool_lit) && x.num == y.num;
    if (x.kind != operand_kind::int_lit && x.kind != operand_kind::float_lit) return false;
    text dec;
    append_decimal(dec, x.num, x.kind == operand_kind::float_lit ? x.exp10 : 0);
    const float_format f = pto_read_format(l.dt);
    // How MLIR reads the emitter's literal: as a double, then into the type.
    return bits_of(mlir_literal_value(parse_decimal(dec.view()), f), f) == l.bits;
  }
  [[nodiscard]] value_id b_value(const operand& y) const {
    const value_id v = y.value();
    return b_alias_[v.index] != no_id ? value_id{b_alias_[v.index]} : v;
  }
  bool same_operand(const operand& xo, const operand& y) const {
    const operand x = resolved(xo);
    if (x.is_literal() && y.is_literal()) {
      const pto_read_literal* l = literal_of(y);
      return l != nullptr && same_literal(x, y, *l);
    }
    if (x.kind != y.kind) return false;
    switch (x.kind) {
      case operand_kind::value: return a_to_b_[x.value().index] == b_value(y).index;
      case operand_kind::tuple: {
        const auto xe = a_.elements(x), ye = b_.elements(y);
        if (xe.size() != ye.size()) return false;
        for (std::size_t i = 0; i < xe.size(); ++i)
          if (!same_operand(xe[i], ye[i])) return false;
        return true;
      }
      case operand_kind::symbol: return a_.symbol(x) == b_.symbol(y);
      default: return x.num == y.num && x.exp10 == y.exp10;
    }
  }
  text spelled(const function& f, const operand& o, bool original) const {
    const operand x = original ? resolved(o) : o;
    text s;
    switch (x.kind) {
      case operand_kind::value: {
        const value_id v = original ? x.value() : b_value(x);
        const std::string_view n = f.name_of(v);
        if (n.empty()) return s << "%" << static_cast<std::int64_t>(v.index);
        return s << '\'' << n << '\'';
      }
      case operand_kind::tuple: {
        s << '(';
        const auto e = f.elements(x);
        for (std::size_t i = 0; i < e.size(); ++i) s << (i > 0 ? ", " : "") << spelled(f, e[i], original);
        return s << ')';
      }
      case operand_kind::int_lit: return s << x.num;
      case operand_kind::bool_lit: return s << (x.num != 0 ? "true" : "false");
      case operand_kind::float_lit: {
        append_decimal(s, x.num, x.exp10);
        return s;
      }
      case operand_kind::none: return s << "nothing";
      default: return s << "(operand kind " << static_cast<std::int64_t>(x.kind) << ')';
    }
  }

  //===--- ops and regions ---===//

  std::optional<difference> regions(region_id ra, region_id rb, location at) {
    const region_info& x = a_.region(ra);
    const region_info& y = b_.region(rb);
    if (x.args.count != y.args.count)
      return differ(at, at,
                    text("a region's ") << static_cast<std::int64_t>(x.args.count) << " arguments read back as "
                                        << static_cast<std::int64_t>(y.args.count));
    for (std::uint32_t i = 0; i < x.args.count; ++i)
      if (!bind(value_id{x.args.begin + i}, value_id{y.args.begin + i}))
        return differ(at, at,
                      text("region argument '") << a_.name_of(value_id{x.args.begin + i}) << "' of type "
                                                << describe(a_.type_of(value_id{x.args.begin + i})) << " reads back as "
                                                << describe(b_.type_of(value_id{y.args.begin + i})));
    std::vector<op_id> ox;
    for (const op_id o : a_.ops_of(ra))
      if (kept(o)) ox.push_back(o);
    const auto oy = b_.ops_of(rb);
    std::size_t j = 0;
    for (const op_id o : ox) {
      if (j >= oy.size())
        return differ(a_.loc_of(o), b_.loc,
                      text(mnemonic(a_.op(o).code())) << " is missing from the PTO-AS (its region reads back shorter)");
      if (const auto narrowed = right_narrowing(o, oy, j)) {
        if (!narrowed->message.empty()) return narrowed;
        ++j;
      }
      if (auto d = ops(o, oy[j])) return d;
      ++j;
    }
    if (j < oy.size())
      return differ(at, b_.loc_of(oy[j]), text("the PTO-AS reads back an extra ") << mnemonic(b_.op(oy[j]).code()) << " here");
    return std::nullopt;
  }

  /// The emitter's narrowing of a Right operand valid over more rows than the Left's K: a
  /// whole-tile subview at (0, 0) with valid (K, N) right before the matmul, its only use. Nullopt
  /// when `oy[j]` is not that subview; an empty message when it is (and is right); else what is wrong.
  std::optional<difference> right_narrowing(op_id o, std::span<const op_id> oy, std::size_t j) {
    const opcode c = a_.op(o).code();
    if ((c != opcode::buffer_matmul && c != opcode::buffer_matmul_acc) || b_.op(oy[j]).code() != opcode::buffer_subview ||
        j + 1 >= oy.size() || b_.op(oy[j + 1]).code() != c)
      return std::nullopt;
    const op_id sv = oy[j], mm = oy[j + 1];
    const value_id narrowed = b_.result(sv);
    const operand read_rhs = named_operand<"rhs">(b_, mm);
    if (!read_rhs.is_value() || read_rhs.value() != narrowed) return std::nullopt;
    const typed<buffer::subview> sub(b_, sv);
    const operand source = sub.source();
    const location pto = b_.loc_of(sv);
    const auto bad = [&](std::string_view why) {
      return differ(a_.loc_of(o), pto,
                    text(mnemonic(c)) << "'s Right reads back through a subview that is not the whole-tile "
                                         "narrowing to the Left's K: "
                                      << why);
    };
    const operand rhs = resolved(named_operand<"rhs">(a_, o)), lhs = resolved(named_operand<"lhs">(a_, o));
    if (!rhs.is_value() || !lhs.is_value() || !source.is_value() || a_to_b_[rhs.value().index] != source.value().index)
      return bad("its source is not the Right");
    const type l = a_.type_of(lhs.value()), r = visible(rhs.value());
    if (!l.valid[1].is_static() || !r.valid[0].is_static() || !r.valid[1].is_static() || l.valid[1].number == r.valid[0].number)
      return bad("the Left's K and the Right's valid rows are static and differ only when the emitter narrows");
    const auto offs = sub.elements(sub.offsets());
    const bool at_origin = offs.size() == 2 && offs[0].kind == operand_kind::int_lit && offs[0].num == 0 &&
                           offs[1].kind == operand_kind::int_lit && offs[1].num == 0;
    const auto valid = sub.valid().kind == operand_kind::tuple ? sub.elements(sub.valid()) : std::span<const operand>{};
    const bool kn = valid.size() == 2 && valid[0].kind == operand_kind::int_lit && valid[0].num == l.valid[1].number &&
                    valid[1].kind == operand_kind::int_lit && valid[1].num == r.valid[1].number;
    type want = r;
    want.valid[0] = l.valid[1];
    if (!at_origin || !kn || !same_type(want, b_.type_of(narrowed)))
      return bad((text("expected offsets (0, 0), valid (")
                  << l.valid[1].number << ", " << r.valid[1].number << ") and type " << describe(want).view())
                     .view());
    b_alias_[narrowed.index] = source.value().index;
    return difference{};
  }

  std::optional<difference> ops(op_id x, op_id y) {
    const op_node& nx = a_.op(x);
    const op_node& ny = b_.op(y);
    const location lx = a_.loc_of(x), ly = b_.loc_of(y);
    const opcode cx = nx.code(), cy = ny.code();
    const std::string_view mx = mnemonic(cx);
    if (cx == opcode::scalar_cast) {
      // `cast(v, BOOL)` reads back as `v != 0`.
      const operand v = view<opcode::scalar_cast>(a_, x).value();
      // The read-back operands in place (a literal is found by its pool position).
      constexpr auto lhs_at = static_cast<std::size_t>(operand_position(opcode::scalar_ne, "lhs"));
      constexpr auto rhs_at = static_cast<std::size_t>(operand_position(opcode::scalar_ne, "rhs"));
      const auto yargs = b_.args(y);
      const bool ne = cy == opcode::scalar_ne && yargs.size() == 2;
      const pto_read_literal* zero = ne ? literal_of(yargs[rhs_at]) : nullptr;
      if (!ne || !same_operand(v, yargs[lhs_at]) || zero == nullptr || !same_literal(operand::integer(0), yargs[rhs_at], *zero))
        return differ(
            lx, ly,
            text("cast(") << spelled(a_, v, true) << ", BOOL) reads back as " << mnemonic(cy) << " (expected a comparison != 0)");
      if (!bind(a_.result(x), b_.result(y))) return differ(lx, ly, text("cast to BOOL: its result reads back with another type"));
      return std::nullopt;
    }
    if (cx != cy) return differ(lx, ly, text(mx) << " reads back as " << mnemonic(cy));
    const auto ax = a_.args(x), ay = b_.args(y);
    if (cx != opcode::cf_return) {
      if (ax.size() != ay.size())
        return differ(lx, ly,
                      text(mx) << "'s " << static_cast<std::int64_t>(ax.size()) << " operands read back as "
                               << static_cast<std::int64_t>(ay.size()));
      const operand_list& names = operand_lists[static_cast<std::size_t>(cx)];
      for (std::size_t i = 0; i < ax.size(); ++i)
        if (!same_operand(ax[i], ay[i])) {
          const std::string_view role = i < names.size ? names.names[i] : std::string_view("(variadic)");
          return differ(lx, ly,
                        text(mx) << " operand " << role << ": " << spelled(a_, ax[i], true) << " reads back as "
                                 << spelled(b_, ay[i], false));
        }
    }
    if (auto d = keywords(x, y)) return d;
    if (nx.region_count != ny.region_count) return differ(lx, ly, text(mx) << "'s regions read back otherwise");
    for (std::uint32_t r = 0; r < nx.region_count; ++r)
      if (auto d = regions(region_id{nx.regions_begin + r}, region_id{ny.regions_begin + r}, lx)) return d;
    if (nx.results.count != ny.results.count)
      return differ(lx, ly,
                    text(mx) << "'s " << static_cast<std::int64_t>(nx.results.count) << " results read back as "
                             << static_cast<std::int64_t>(ny.results.count));
    for (std::uint32_t i = 0; i < nx.results.count; ++i) {
      const value_id vx = a_.result(x, i), vy = b_.result(y, i);
      if (!bind(vx, vy))
        return differ(lx, ly,
                      text(mx) << " result '" << a_.name_of(vx) << "' of type " << describe(visible(vx)) << " reads back as "
                               << describe(b_.type_of(vy)));
    }
    return std::nullopt;
  }

  /// The keywords of two ops of one opcode: `mode` by the rounding it means, `high_precision =
  /// false` as absent, the rest as written.
  std::optional<difference> keywords(op_id x, op_id y) {
    const op_node& nx = a_.op(x);
    const location lx = a_.loc_of(x), ly = b_.loc_of(y);
    const std::string_view mx = mnemonic(nx.code());
    if (nx.code() == opcode::buffer_cast) {
      const int mode = cast_mode(a_.kwarg_of(x, keyword::mode));
      const operand src = named_operand<"source">(a_, x), dst = named_operand<"dest">(a_, x);
      const dtype from = a_.type_of(src.value()).dt, to = a_.type_of(dst.value()).dt;
      const int want = static_cast<int>(cast_rounding(from, to, mode));
      const auto got = b_.kwarg_of(y, keyword::mode);
      if (!got || got->kind != operand_kind::int_lit || got->num != want) {
        const auto round_name = [](std::int64_t k) {
          return k >= 0 && k < static_cast<std::int64_t>(pto_round_mode_names.size())
                     ? pto_round_mode_names[static_cast<std::size_t>(k)]
                     : std::string_view("?");
        };
        text msg(mx);
        msg << ' ' << name(from) << " -> " << name(to) << " with mode = " << mode << " rounds " << round_name(want)
            << ", but its PTO-AS reads back as rmode " << (got ? round_name(got->num) : std::string_view("(none)"))
            << " (mode = " << (got ? got->num : std::int64_t{-1}) << ')';
        return differ(lx, ly, static_cast<text&&>(msg));
      }
      return std::nullopt;
    }
    const auto kx = a_.kwargs_of(x), ky = b_.kwargs_of(y);
    const auto effective = [](std::span<const kwarg> ks) {
      std::vector<kwarg> out;
      for (const kwarg& k : ks)
        if (!(k.key == keyword::high_precision && k.value.kind == operand_kind::bool_lit && k.value.num == 0)) out.push_back(k);
      return out;
    };
    const std::vector<kwarg> ex = effective(kx), ey = effective(ky);
    const auto find = [](const std::vector<kwarg>& ks, keyword k) -> const kwarg* {
      for (const kwarg& w : ks)
        if (w.key == k) return &w;
      return nullptr;
    };
    for (const kwarg& k : ex) {
      const kwarg* other = find(ey, k.key);
      // Keyword values are literals of the op record's kind (no constant, no dtype to round to).
      if (other == nullptr || other->value.kind != k.value.kind || other->value.num != k.value.num ||
          other->value.exp10 != k.value.exp10)
        return differ(lx, ly,
                      text(mx) << " keyword " << keyword_names[static_cast<std::size_t>(k.key)] << " = "
                               << spelled(a_, k.value, true) << " reads back as "
                               << (other == nullptr ? text("absent") : spelled(b_, other->value, false)));
    }
    for (const kwarg& k : ey)
      if (find(ex, k.key) == nullptr)
        return differ(lx, ly,
                      text(mx) << " reads back with keyword " << keyword_names[static_cast<std::size_t>(k.key)] << " = "
                               << spelled(b_, k.value, false) << ", which the Buffer IR does not have");
    return std::nullopt;
  }

  const function& a_;
  const function& b_;
  std::span<const pto_read_literal> lits_;
  target_arch target_;
  std::vector<std::uint32_t> a_to_b_;
  std::vector<std::uint32_t> b_to_a_;
  std::vector<std::uint32_t> b_alias_;  ///< read-back subview results compared as their source (right_narrowing)
};

}  // namespace detail

/// Compares the Buffer-stage kernels of `p` that `emit_pto(p, o)` writes with `reading`, read
/// from `pto_text` (`read_pto`): one located diagnostic per kernel that differs (at the original
/// op, with the PTO-AS line it reads back from as a note), none when every kernel reads back
/// structurally equal (see the file comment for what the PTO form cannot carry).
template <class = void>
std::vector<diagnostic> compare_pto_reading(const program& p, const pto_reading& reading, std::string_view pto_text,
                                            const pto_options& o = {}) {
  std::vector<diagnostic> out;
  std::vector<const function*> emitted;
  for (const function& f : p.functions) {
    if (!o.kernel.empty() && f.name_of() != o.kernel) continue;
    if (o.kernel.empty() && !f.is_device()) continue;
    if (skipped_tile_kernel(o, f)) continue;
    emitted.push_back(&f);
  }
  const auto report = [&](const function& f, location at, const text& message, location pto) {
    diagnostic d{at, text(detail::pto_roundtrip_source), text("@") << f.name_of() << ": " << message, {}};
    if (pto.known())
      d.notes.push_back(note{location{}, text("reads back from PTO-AS (generic form) line ")
                                             << static_cast<std::int64_t>(pto.line) << ": "
                                             << detail::source_line(pto_text, pto.line)});
    out.push_back(static_cast<diagnostic&&>(d));
  };
  if (emitted.size() != reading.prog.functions.size()) {
    diagnostic d{location{},
                 text(detail::pto_roundtrip_source),
                 text("the PTO-AS holds ") << static_cast<std::int64_t>(reading.prog.functions.size())
                                           << " functions for the program's " << static_cast<std::int64_t>(emitted.size())
                                           << " emitted kernels",
                 {}};
    out.push_back(static_cast<diagnostic&&>(d));
    return out;
  }
  for (std::size_t i = 0; i < emitted.size(); ++i) {
    const function& f = *emitted[i];
    const function& g = reading.prog.functions[i];
    if (f.name_of() != g.name_of()) {
      report(f, f.loc, text("reads back as func.func @") << g.name_of(), g.loc);
      continue;
    }
    const target_arch target = f.target ? *f.target : o.target;
    detail::pto_roundtrip_compare cmp(f, g, reading.literals[i], target);
    if (const auto d = cmp.run()) report(f, d->orig, d->message, d->pto);
  }
  return out;
}

/// Emits the Buffer-stage kernels of `p` as `emit_pto(p, o)` does, in the generic form (what
/// `read_pto` reads; tests/pto-dialect checks that the custom form says the same), reads them back
/// and compares: empty when every kernel reads back structurally equal. Emission's own errors are
/// returned as they are; a text that does not read back is one diagnostic (source "pto-roundtrip")
/// quoting the PTO-AS line.
template <class = void>
std::vector<diagnostic> check_pto_roundtrip(const program& p, const pto_options& o = {}) {
  pto_options generic = o;
  generic.generic = true;
  const result<text> emitted = emit_pto(p, generic);
  if (!emitted) return emitted.errors;
  const result<pto_reading> reading = read_pto(emitted.value.view());
  if (!reading) {
    std::vector<diagnostic> out;
    for (const diagnostic& e : reading.errors) {
      // Located at the kernel the reader was reading (its messages start with `@name: `).
      location at{};
      for (const function& f : p.functions)
        if (const std::string_view m = e.message.view(); m.size() > f.name_of().size() + 2 && m[0] == '@' &&
                                                         m.substr(1, f.name_of().size()) == f.name_of() &&
                                                         m[f.name_of().size() + 1] == ':')
          at = f.loc;
      diagnostic d{at,
                   text(detail::pto_roundtrip_source),
                   text("the emitted PTO-AS does not read back, at its line ")
                       << static_cast<std::int64_t>(e.loc.line) << ':' << static_cast<std::int64_t>(e.loc.col) << ": "
                       << e.message,
                   {}};
      d.notes.push_back(note{location{}, text("PTO-AS (generic form) line ")
                                             << static_cast<std::int64_t>(e.loc.line) << ": "
                                             << detail::source_line(emitted.value.view(), e.loc.line)});
      out.push_back(static_cast<diagnostic&&>(d));
    }
    return out;
  }
  return compare_pto_reading(p, reading.value, emitted.value.view(), o);
}

#ifdef TILE2BUFFER_EXTERN_PIPELINE
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
std::vector<diagnostic> compare_pto_reading(const program& p, const pto_reading& reading, std::string_view pto_text,
                                            const pto_options& o = {});  // TILE2BUFFER_EXTERN_PIPELINE: run time only
std::vector<diagnostic> check_pto_roundtrip(const program& p,
                                            const pto_options& o = {});  // TILE2BUFFER_EXTERN_PIPELINE: run time only
}  // namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::compare_pto_reading;
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::check_pto_roundtrip;
#endif

}  // namespace v0
}  // namespace tile2buffer
