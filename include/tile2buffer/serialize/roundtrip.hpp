// SPDX-License-Identifier: Apache-2.0
/// @file serialize/roundtrip.hpp
/// The binary round-trip check (the reference's roundtrip instrument): a program is written in
/// the binary form, read back and compared with itself, field by field; the first thing the
/// binary form lost fails with "Binary roundtrip failed" and names it (the function, the op and
/// its location, and the stage, name, location, operand, keyword or type field that differs).
/// `check_binary_roundtrip` checks one program; `binary_roundtrip_instrument` is a pass observer
/// that checks the program after every pass of a pipeline run (`t2b-opt --verify-roundtrip`).
/// Why an instrument and not an `options` member: the pipeline sits below the binary format
/// (docs/design.md, layer order), so the check is handed to the run, as MLIR's instrumentation is.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include <boost/hana/accessors.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/opcode.hpp"
#include "tile2buffer/passes/pipeline_api.hpp"
#include "tile2buffer/serialize/binary.hpp"
#include "tile2buffer/serialize/schema.hpp"

namespace tile2buffer {
inline namespace v0 {

/// A reader of binary IR: `deserialize`, or a test's deliberately lossy one.
using binary_reader_fn = result<program> (*)(std::span<const std::uint8_t> bytes);

namespace detail {

/// Calls `f(key, member of x, member of y)` for each adapted member of `T`, in file order.
template <class T, class F>
constexpr void for_each_field_pair(const T& x, const T& y, F&& f) {
  boost::hana::for_each(boost::hana::accessors<T>(), [&](auto field) {
    f(file_key(boost::hana::to<const char*>(boost::hana::first(field))), boost::hana::second(field)(x),
      boost::hana::second(field)(y));
  });
}

/// Walks a function and its binary round trip side by side and names the first difference.
/// Values correspond by definition order (the writer renumbers them densely in that order); a
/// use must read back as the value its definition read back as.
class roundtrip_diff {
 public:
  constexpr roundtrip_diff(const function& a, const function& b) : a_(a), b_(b), map_(a.values.size(), no_id) {}

  /// True when `b` holds everything of `a`; otherwise `loss` says what it lost, at `where`.
  constexpr bool run() {
    where = a_.loc;
    if (!header()) return false;
    if (a_.params.size() != b_.params.size()) return count("parameters", a_.params.size(), b_.params.size());
    for (std::size_t i = 0; i < a_.params.size(); ++i) {
      const param_info& x = a_.params[i];
      const param_info& y = b_.params[i];
      scope_ = text("parameter ") << describe_value(a_, x.value);
      if (x.dir != y.dir) return lost("its direction", name_of(x.dir), name_of(y.dir));
      if (x.loc != y.loc) return lost_location(x.loc, y.loc);
      if (!define(x.value, y.value)) return false;
    }
    scope_.clear();
    if (a_.results.size() != b_.results.size()) return count("result types", a_.results.size(), b_.results.size());
    for (std::size_t i = 0; i < a_.results.size(); ++i) {
      scope_ = text("result type ") << static_cast<std::int64_t>(i);
      if (!types(a_.results[i], b_.results[i])) return false;
    }
    scope_.clear();
    return region(a_.body, b_.body);
  }

  text loss;
  location where;

 private:
  //===--- what differs, in words ---===//
  template <class E>
  static constexpr std::string_view name_of(E e) {
    const auto names = spelling(e).names;
    const auto i = static_cast<std::size_t>(e);
    return i < names.size() ? names[i] : std::string_view("<invalid>");
  }
  static constexpr text describe_value(const function& f, value_id v) {
    text t;
    const std::string_view n = v.index < f.values.size() ? f.name_of(v) : std::string_view{};
    if (n.empty()) t << '%' << static_cast<std::int64_t>(v.index);
    else t << '`' << n << '`';
    return t;
  }
  static constexpr text describe_location(location l) {
    text t;
    if (l.known()) t << static_cast<std::int64_t>(l.line) << ':' << static_cast<std::int64_t>(l.col);
    else t << "no location";
    return t;
  }
  /// One field's value as the message shows it.
  template <class T>
  static constexpr void describe(text& t, const function& f, const T& x) {
    if constexpr (std::is_enum_v<T>) t << name_of(x);
    else if constexpr (std::is_same_v<T, bool>) t << (x ? "true" : "false");
    else if constexpr (std::is_integral_v<T>) t << static_cast<std::int64_t>(x);
    else if constexpr (std::is_same_v<T, span32>) t << f.str(x);
    else if constexpr (std::is_same_v<T, location>) t << describe_location(x);
    else if constexpr (std::is_same_v<T, extent>) {
      if (x.is_runtime()) t << '?';
      else if (x.is_value()) t << describe_value(f, x.value());
      else t << x.number;
    } else if constexpr (requires { x.has_value(); }) {
      if (x) describe(t, f, *x);
      else t << "none";
    } else if constexpr (requires { x.size(); }) {
      t << '[';
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (i > 0) t << ", ";
        describe(t, f, x[i]);
      }
      t << ']';
    } else {
      t << "<value>";
    }
  }
  constexpr text describe_operand(const function& f, const operand& o, int depth = 0) const {
    text t;
    switch (o.kind) {
      case operand_kind::none: t << "nothing"; break;
      case operand_kind::value: t << describe_value(f, o.value()); break;
      case operand_kind::int_lit: t << o.num; break;
      case operand_kind::float_lit: t << o.num << "e" << static_cast<std::int64_t>(o.exp10); break;
      case operand_kind::bool_lit: t << (o.num != 0 ? "true" : "false"); break;
      case operand_kind::tuple: {
        const span32 s = o.tuple();
        t << '(';
        if (depth < 8 && s.begin <= f.operands.size() && s.count <= f.operands.size() - s.begin) {
          const auto es = f.pool(s);
          for (std::size_t i = 0; i < es.size(); ++i) t << (i > 0 ? ", " : "") << describe_operand(f, es[i], depth + 1);
        } else {
          t << "...";
        }
        t << ')';
        break;
      }
      case operand_kind::space: t << "space " << o.num; break;
      case operand_kind::dtype: t << "dtype " << o.num; break;
      case operand_kind::symbol: t << '@' << f.symbol(o); break;
    }
    return t;
  }
  /// Records the loss "<scope>: <what> was <x>, reads back <y>" and returns false.
  constexpr bool lost(std::string_view what, std::string_view x, std::string_view y) {
    loss.clear();
    if (!scope_.empty()) loss << scope_ << ": ";
    loss << what << " was " << x << ", reads back " << y;
    return false;
  }
  constexpr bool lost_location(location x, location y) {
    return lost("its location", describe_location(x).view(), describe_location(y).view());
  }
  constexpr bool count(std::string_view what, std::size_t x, std::size_t y) {
    text a, b;
    a << static_cast<std::int64_t>(x) << ' ' << what;
    b << static_cast<std::int64_t>(y);
    loss.clear();
    if (!scope_.empty()) loss << scope_ << ": ";
    loss << a << " read back as " << b;
    return false;
  }
  template <class T>
  constexpr bool field(std::string_view what, const T& x, const T& y) {
    if (x == y) return true;
    text dx, dy;
    describe(dx, a_, x);
    describe(dy, b_, y);
    return lost(what, dx.view(), dy.view());
  }

  //===--- the walk ---===//
  constexpr bool header() {
    bool same = true;
    for_each_field_pair(a_, b_, [&](std::string_view key, const auto& x, const auto& y) {
      if (!same) return;
      text what = text("the function's ") << key;
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(x)>, span32>) {
        if (a_.str(x) != b_.str(y)) same = lost(what.view(), a_.str(x), b_.str(y));
      } else {
        same = field(what.view(), x, y);
      }
    });
    return same;
  }
  /// `x` of `a` reads back as `y` of `b`: same name and type, and `y` stands for `x` from now on.
  /// The caller has named `x` in the scope.
  constexpr bool define(value_id x, value_id y) {
    if (x.index >= a_.values.size() || y.index >= b_.values.size()) return lost("a value", "defined", "missing");
    if (a_.name_of(x) != b_.name_of(y)) return lost("its name", describe_value(a_, x).view(), describe_value(b_, y).view());
    if (!types(a_.type_of(x), b_.type_of(y))) return false;
    if (a_.type_of(x).is_tile() && !storages(a_.storage_of(x), b_.storage_of(y))) return false;
    map_[x.index] = y.index;
    return true;
  }
  [[nodiscard]] constexpr bool same_use(value_id x, value_id y) const {
    return x.index < map_.size() && map_[x.index] != no_id && map_[x.index] == y.index;
  }
  constexpr bool types(const type& x, const type& y) {
    if (x.kind != y.kind) return lost("its type's kind", name_of(x.kind), name_of(y.kind));
    bool same = true;
    for_each_field_pair(x, y, [&](std::string_view key, const auto& p, const auto& q) {
      if (!same || !carries(x.kind, key)) return;
      text what = text("its type's ") << key;
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(p)>, std::array<extent, 2>>) {
        for (std::size_t i = 0; i < 2 && same; ++i)
          if (p[i].is_value() ? !(q[i].is_value() && same_use(p[i].value(), q[i].value())) : !(p[i] == q[i])) {
            text dx, dy;
            describe(dx, a_, p);
            describe(dy, b_, q);
            same = lost(what.view(), dx.view(), dy.view());
          }
      } else {
        same = field(what.view(), p, q);
      }
    });
    if (!same) return false;
    if (x.is_tensor() && (x.has_stride != y.has_stride || (x.has_stride && x.stride != y.stride))) {
      text dx, dy;
      if (x.has_stride) describe(dx, a_, x.stride);
      else dx << "none";
      if (y.has_stride) describe(dy, b_, y.stride);
      else dy << "none";
      return lost("its type's stride", dx.view(), dy.view());
    }
    return true;
  }
  /// A Tile value's storage (kept in its type's map by the formats).
  constexpr bool storages(const value_storage& x, const value_storage& y) {
    if (x.valid() != y.valid() || (x.valid() && !same_use(x.mem, y.mem)))
      return lost("its type's storage", x.valid() ? describe_value(a_, x.mem).view() : "none",
                  y.valid() ? describe_value(b_, y.mem).view() : "none");
    if (x.offset != y.offset) return field("its type's storage offset", x.offset, y.offset);
    return true;
  }
  constexpr bool operands(std::string_view what, const operand& x, const operand& y) {
    bool same = x.kind == y.kind;
    if (same) {
      switch (x.kind) {
        case operand_kind::value: same = same_use(x.value(), y.value()); break;
        case operand_kind::tuple: {
          const span32 sx = x.tuple(), sy = y.tuple();
          const bool inside = sx.begin <= a_.operands.size() && sx.count <= a_.operands.size() - sx.begin &&
                              sy.begin <= b_.operands.size() && sy.count <= b_.operands.size() - sy.begin;
          same = inside && sx.count == sy.count;
          for (std::uint32_t i = 0; same && i < sx.count; ++i) {
            const operand& ex = a_.operands[sx.begin + i];
            const operand& ey = b_.operands[sy.begin + i];
            // Why the nested call's own message is replaced: the whole tuple reads better.
            same = operands(what, ex, ey);
          }
          break;
        }
        case operand_kind::symbol: same = a_.symbol(x) == b_.symbol(y); break;
        default: same = x.num == y.num && x.exp10 == y.exp10; break;
      }
    }
    if (same) return true;
    return lost(what, describe_operand(a_, x).view(), describe_operand(b_, y).view());
  }
  constexpr bool op(op_id x, op_id y) {
    const op_node& nx = a_.op(x);
    const op_node& ny = b_.op(y);
    where = a_.loc_of(x);
    scope_.clear();
    scope_ << mnemonic(nx.code());
    if (nx.results.count > 0) scope_ << ' ' << describe_value(a_, value_id{nx.results.begin});
    if (nx.code() != ny.code()) return lost("the op", mnemonic(nx.code()), mnemonic(ny.code()));
    if (a_.loc_of(x) != b_.loc_of(y)) return lost_location(a_.loc_of(x), b_.loc_of(y));
    const auto ax = a_.args(x), ay = b_.args(y);
    if (ax.size() != ay.size()) return count("operands", ax.size(), ay.size());
    for (std::size_t i = 0; i < ax.size(); ++i) {
      text what = text("operand ") << static_cast<std::int64_t>(i);
      if (!operands(what.view(), ax[i], ay[i])) return false;
    }
    const auto kx = a_.kwargs_of(x), ky = b_.kwargs_of(y);
    if (kx.size() != ky.size()) return count("keywords", kx.size(), ky.size());
    for (std::size_t i = 0; i < kx.size(); ++i) {
      const auto key = static_cast<std::size_t>(kx[i].key);
      const std::string_view kname = key < keyword_names.size() ? keyword_names[key] : std::string_view("<invalid>");
      if (kx[i].key != ky[i].key) {
        const auto other = static_cast<std::size_t>(ky[i].key);
        return lost("a keyword", kname, other < keyword_names.size() ? keyword_names[other] : std::string_view("<invalid>"));
      }
      text what = text("keyword '") << kname << '\'';
      if (!operands(what.view(), kx[i].value, ky[i].value)) return false;
    }
    if (nx.region_count != ny.region_count) return count("regions", nx.region_count, ny.region_count);
    for (std::uint32_t r = 0; r < nx.region_count; ++r)
      if (!region(region_id{nx.regions_begin + r}, region_id{ny.regions_begin + r})) return false;
    where = a_.loc_of(x);
    scope_.clear();
    scope_ << mnemonic(nx.code());
    if (nx.results.count != ny.results.count) return count("results", nx.results.count, ny.results.count);
    for (std::uint32_t i = 0; i < nx.results.count; ++i) {
      scope_.clear();
      scope_ << mnemonic(nx.code()) << " result " << describe_value(a_, value_id{nx.results.begin + i});
      if (!define(value_id{nx.results.begin + i}, value_id{ny.results.begin + i})) return false;
    }
    return true;
  }
  constexpr bool region(region_id x, region_id y) {
    const region_info& rx = a_.region(x);
    const region_info& ry = b_.region(y);
    if (rx.args.count != ry.args.count) return count("region arguments", rx.args.count, ry.args.count);
    for (std::uint32_t i = 0; i < rx.args.count; ++i) {
      where = rx.parent.valid() && rx.parent.index < a_.ops.size() ? a_.loc_of(rx.parent) : a_.loc;
      scope_.clear();
      scope_ << "region argument " << describe_value(a_, value_id{rx.args.begin + i});
      if (!define(value_id{rx.args.begin + i}, value_id{ry.args.begin + i})) return false;
    }
    const auto ox = a_.ops_of(x), oy = b_.ops_of(y);
    if (ox.size() != oy.size()) return count("ops in a region", ox.size(), oy.size());
    for (std::size_t i = 0; i < ox.size(); ++i)
      if (!op(ox[i], oy[i])) return false;
    return true;
  }

  const function& a_;
  const function& b_;
  std::vector<std::uint32_t> map_;  ///< by value of `a_`: the value of `b_` it reads back as
  text scope_;                      ///< what the differing field belongs to ("buffer.add `x`")
};

/// The failure: "Binary roundtrip failed[ after pass 'P']: <what was lost>", at `where`.
constexpr std::vector<diagnostic> roundtrip_failure(std::string_view after, location where, const text& what) {
  text m("Binary roundtrip failed");
  if (!after.empty()) m << " after pass '" << after << '\'';
  m << ": " << what;
  return {diagnostic{where, text("roundtrip"), m, {}}};
}

}  // namespace detail

/// Writes `p` in the binary form, reads it back with `read` (`deserialize` when null) and
/// compares the two: no diagnostic when the binary form keeps everything (stage, names, types,
/// operands, keywords, locations, regions); otherwise one, "Binary roundtrip failed" followed by
/// the first thing lost, at the location of the op (or function) it belongs to. `after` names the
/// pass that left `p`, for the message. Linear in the size of `p`.
template <class = void>
constexpr std::vector<diagnostic> check_binary_roundtrip(const program& p, std::string_view after = {},
                                                         binary_reader_fn read = nullptr) {
  const result<std::vector<std::uint8_t>> bytes = serialize<>(p);
  if (!bytes) {
    text why("the program cannot be written: ");
    why << bytes.errors.front().message;
    return detail::roundtrip_failure(after, bytes.errors.front().loc, why);
  }
  const std::span<const std::uint8_t> view(bytes.value.data(), bytes.value.size());
  const result<program> back = read != nullptr ? read(view) : deserialize<>(view);
  if (!back) {
    text why("its binary form does not read back: ");
    why << back.errors.front().message;
    return detail::roundtrip_failure(after, location{}, why);
  }
  const program& q = back.value;
  if (p.file.view() != q.file.view()) {
    text why("the program's file was '");
    why << p.file << "', reads back '" << q.file << '\'';
    return detail::roundtrip_failure(after, location{}, why);
  }
  if (p.functions.size() != q.functions.size()) {
    text why;
    why << static_cast<std::int64_t>(p.functions.size()) << " functions read back as "
        << static_cast<std::int64_t>(q.functions.size());
    return detail::roundtrip_failure(after, location{}, why);
  }
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    detail::roundtrip_diff d(p.functions[i], q.functions[i]);
    if (!d.run()) {
      text why;
      why << '@' << p.functions[i].name_of() << ": " << d.loss;
      return detail::roundtrip_failure(after, d.where, why);
    }
  }
  return {};
}

#ifdef TILE2BUFFER_EXTERN_PIPELINE
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
std::vector<diagnostic> check_binary_roundtrip(const program& p, std::string_view after = {},
                                               binary_reader_fn read = nullptr);  // TILE2BUFFER_EXTERN_PIPELINE: run time only
}  // namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::check_binary_roundtrip;
#endif

/// The round trip after every pass of a run: pass `observer()` to `run_pipeline` or
/// `run_pass_pipeline`, and the first pass whose output the binary form does not keep fails the
/// run with `check_binary_roundtrip`'s diagnostic. `inner`, when set, is another observer that
/// sees every pass first (t2b-opt's --timing and --print-* flags); `checked` names the passes
/// whose output was checked, in order. An observed run is sequential.
struct binary_roundtrip_instrument {
  binary_reader_fn read = nullptr;  ///< nullptr: deserialize
  const pass_observer* inner = nullptr;
  std::vector<std::string_view> checked{};  ///< names from the pass set's table (static storage)

  [[nodiscard]] pass_observer observer() { return pass_observer{this, &before, &after, &check}; }

  static void before(void* self, std::string_view pass) {
    const auto& s = *static_cast<binary_roundtrip_instrument*>(self);
    if (s.inner != nullptr && s.inner->before != nullptr) s.inner->before(s.inner->context, pass);
  }
  static void after(void* self, std::string_view pass, const program& p) {
    const auto& s = *static_cast<binary_roundtrip_instrument*>(self);
    if (s.inner != nullptr && s.inner->after != nullptr) s.inner->after(s.inner->context, pass, p);
  }
  static std::vector<diagnostic> check(void* self, std::string_view pass, const program& p) {
    auto& s = *static_cast<binary_roundtrip_instrument*>(self);
    if (s.inner != nullptr && s.inner->check != nullptr)
      if (std::vector<diagnostic> errors = s.inner->check(s.inner->context, pass, p); !errors.empty()) return errors;
    s.checked.push_back(pass);
    return check_binary_roundtrip(p, pass, s.read);
  }
};

}  // namespace v0
}  // namespace tile2buffer
