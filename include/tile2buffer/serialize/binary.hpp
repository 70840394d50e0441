// SPDX-License-Identifier: Apache-2.0
/// @file serialize/binary.hpp
/// The versioned binary form of a program (MessagePack; schema in docs/binary-format.md):
/// `serialize` writes every function, region, op, operand, type, name, location and attribute;
/// `deserialize` reads it back strictly (exact field sets, checked types, ranges and value
/// references) and rebuilds the IR through the builder, so a restored program is structurally
/// equal to the original and keeps its names and locations.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/opcode.hpp"
#include "tile2buffer/serialize/msgpack.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The format version this library writes and the only one it reads.
inline constexpr std::int64_t binary_version = 1;
/// The first element of the envelope `[magic, version, program]`.
inline constexpr std::string_view binary_magic = "tile2buffer-ir";

namespace detail {

inline constexpr std::array<std::string_view, 7> type_kind_names{"none", "scalar", "tensor", "tile",
                                                                 "buffer", "mem", "task"};
inline constexpr std::array<std::string_view, 9> operand_kind_names{"none",  "value", "int",   "float", "bool",
                                                                    "tuple", "space", "dtype", "symbol"};

/// Regions an op owns, by opcode (the reader rejects any other count).
constexpr std::uint32_t region_count(opcode c) {
  return c == opcode::cf_if || c == opcode::cf_while ? 2 : c == opcode::cf_for ? 1 : 0;
}

// Why: the reader looks ops up by mnemonic, so every mnemonic must name exactly one opcode.
constexpr bool mnemonics_unique() {
  for (std::size_t i = 0; i < opcode_count; ++i)
    if (find_mnemonic(mnemonic(static_cast<opcode>(i))) != static_cast<opcode>(i)) return false;
  return true;
}
static_assert(mnemonics_unique(), "tile2buffer: binary IR needs one opcode per mnemonic");

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

/// Writes one function. Values are renumbered densely in definition order (parameters; then,
/// for each op in program order, each region's arguments and ops, then the op's results),
/// which is the order in which the reader's builder recreates them.
class binary_writer {
 public:
  constexpr binary_writer(const function& f, msgpack::writer& w) : f_(f), w_(w), ids_(f.values.size(), no_id) {}

  /// False (with `error()`) when the function refers to a value that nothing defines.
  constexpr bool run() {
    for (const param_info& p : f_.params) define(p.value);
    number(f_.body);
    if (!error_.empty()) return false;
    function_map();
    return error_.empty();
  }
  [[nodiscard]] constexpr const text& error() const noexcept { return error_; }

 private:
  constexpr void define(value_id v) {
    if (v.index < ids_.size() && ids_[v.index] == no_id) ids_[v.index] = count_++;
    else bad(v, "is defined twice or does not exist");
  }
  constexpr void number(region_id r) {
    const region_info& reg = f_.region(r);
    for (std::uint32_t i = 0; i < reg.args.count; ++i) define(value_id{reg.args.begin + i});
    for (const op_id o : f_.ops_of(r)) {
      const op_node& n = f_.op(o);
      for (std::uint32_t i = 0; i < n.regions.count; ++i) number(region_id{n.regions.begin + i});
      for (std::uint32_t i = 0; i < n.results.count; ++i) define(value_id{n.results.begin + i});
    }
  }
  constexpr void bad(value_id v, std::string_view what) {
    if (!error_.empty()) return;
    error_ << "function @" << f_.name_of() << ": value " << static_cast<std::int64_t>(v.index) << ' ' << what;
  }
  constexpr std::uint32_t id(value_id v) {
    if (v.index < ids_.size() && ids_[v.index] != no_id) return ids_[v.index];
    bad(v, "is used but no parameter, op or region defines it");
    return 0;
  }

  constexpr void loc(location l) {
    w_.array(2);
    w_.integer(l.line);
    w_.integer(l.col);
  }
  constexpr void pair(std::int64_t a, std::int64_t b) {
    w_.array(2);
    w_.integer(a);
    w_.integer(b);
  }
  constexpr void extent_value(const extent& e) {
    if (e.is_runtime()) {
      w_.str("?");
    } else if (e.is_value()) {
      w_.map(1);
      w_.str("value");
      w_.integer(id(e.value()));
    } else {
      w_.integer(e.number);
    }
  }
  constexpr void type_map(const type& t) {
    const auto k = static_cast<std::size_t>(t.kind);
    switch (t.kind) {
      case type_kind::scalar:
        w_.map(2);
        w_.str("kind"), w_.str(type_kind_names[k]);
        w_.str("dtype"), w_.str(name(t.dt));
        return;
      case type_kind::tensor:
        w_.map(5);
        w_.str("kind"), w_.str(type_kind_names[k]);
        w_.str("shape"), pair(t.shape[0], t.shape[1]);
        w_.str("dtype"), w_.str(name(t.dt));
        w_.str("layout"), w_.str(name(t.tlayout));
        w_.str("stride");
        if (t.has_stride) pair(t.stride[0], t.stride[1]);
        else w_.nil();
        return;
      case type_kind::tile:
      case type_kind::buffer:
        w_.map(t.is_tile() ? 11 : 10);
        w_.str("kind"), w_.str(type_kind_names[k]);
        w_.str("shape"), pair(t.shape[0], t.shape[1]);
        w_.str("dtype"), w_.str(name(t.dt));
        w_.str("space"), w_.str(name(t.space));
        w_.str("valid");
        w_.array(2);
        extent_value(t.valid[0]);
        extent_value(t.valid[1]);
        w_.str("blayout"), w_.str(name(t.blayout));
        w_.str("slayout"), w_.str(name(t.slayout));
        w_.str("fractal"), w_.integer(t.fractal);
        w_.str("pad"), w_.str(name(t.pad));
        w_.str("compact"), w_.str(name(t.compact));
        if (t.is_tile()) {
          w_.str("storage");
          if (t.mem.valid()) {
            w_.map(2);
            w_.str("mem"), w_.integer(id(t.mem));
            w_.str("offset"), w_.integer(t.mem_offset);
          } else {
            w_.nil();
          }
        }
        return;
      case type_kind::none:
      case type_kind::mem:
      case type_kind::task:
        w_.map(1);
        w_.str("kind"), w_.str(type_kind_names[k]);
        return;
    }
  }
  constexpr void value_def(value_id v) {
    w_.map(3);
    w_.str("id"), w_.integer(id(v));
    w_.str("name"), w_.str(f_.name_of(v));
    w_.str("type"), type_map(f_.type_of(v));
  }
  constexpr void operand_map(const operand& o) {
    const auto k = static_cast<std::size_t>(o.kind);
    switch (o.kind) {
      case operand_kind::none:
        w_.map(1);
        w_.str("kind"), w_.str(operand_kind_names[k]);
        return;
      case operand_kind::value:
        w_.map(2);
        w_.str("kind"), w_.str(operand_kind_names[k]);
        w_.str("id"), w_.integer(id(o.value()));
        return;
      case operand_kind::float_lit:
        w_.map(3);
        w_.str("kind"), w_.str(operand_kind_names[k]);
        w_.str("mantissa"), w_.integer(o.num);
        w_.str("exp10"), w_.integer(o.exp10);
        return;
      case operand_kind::tuple: {
        const span32 s = o.tuple();
        w_.map(2);
        w_.str("kind"), w_.str(operand_kind_names[k]);
        w_.str("elements");
        if (s.begin > f_.operands.size() || s.count > f_.operands.size() - s.begin) {
          error_ << "function @" << f_.name_of() << ": a tuple operand lies outside the operand pool";
          w_.array(0);
          return;
        }
        w_.array(s.count);
        for (const operand& e : f_.pool(s)) operand_map(e);
        return;
      }
      default: break;
    }
    w_.map(2);
    w_.str("kind"), w_.str(operand_kind_names[k]);
    w_.str("value");
    switch (o.kind) {
      case operand_kind::int_lit: w_.integer(o.num); return;
      case operand_kind::bool_lit: w_.boolean(o.num != 0); return;
      case operand_kind::space:
        if (o.num >= 0 && o.num < static_cast<std::int64_t>(space_names.size())) {
          w_.str(name(static_cast<memory_space>(o.num)));
        } else {
          error_ << "function @" << f_.name_of() << ": memory-space operand out of range";
          w_.nil();
        }
        return;
      case operand_kind::dtype:
        if (o.num >= 0 && o.num < static_cast<std::int64_t>(dtype_names.size())) {
          w_.str(name(static_cast<dtype>(o.num)));
        } else {
          error_ << "function @" << f_.name_of() << ": dtype operand out of range";
          w_.nil();
        }
        return;
      case operand_kind::symbol: w_.str(f_.symbol(o)); return;
      default: w_.nil(); return;
    }
  }
  constexpr void region_map(region_id r) {
    const region_info& reg = f_.region(r);
    w_.map(2);
    w_.str("args");
    w_.array(reg.args.count);
    for (std::uint32_t i = 0; i < reg.args.count; ++i) value_def(value_id{reg.args.begin + i});
    w_.str("ops");
    const auto ops = f_.ops_of(r);
    w_.array(ops.size());
    for (const op_id o : ops) op_map(o);
  }
  constexpr void op_map(op_id o) {
    const op_node& n = f_.op(o);
    w_.map(6);
    w_.str("op"), w_.str(mnemonic(n.code()));
    w_.str("loc"), loc(n.loc);
    const auto args = f_.args(o);
    w_.str("args");
    w_.array(args.size());
    for (const operand& a : args) operand_map(a);
    const auto kws = f_.kwargs_of(o);
    w_.str("kwargs");
    w_.map(kws.size());
    for (const kwarg& k : kws) {
      const auto key = static_cast<std::size_t>(k.key);
      w_.str(key < keyword_names.size() ? keyword_names[key] : std::string_view("<invalid>"));
      operand_map(k.value);
    }
    w_.str("regions");
    w_.array(n.regions.count);
    for (std::uint32_t i = 0; i < n.regions.count; ++i) region_map(region_id{n.regions.begin + i});
    w_.str("results");
    w_.array(n.results.count);
    for (std::uint32_t i = 0; i < n.results.count; ++i) value_def(value_id{n.results.begin + i});
  }
  constexpr void function_map() {
    w_.map(10);
    w_.str("kind"), w_.str(name(f_.kind));
    w_.str("name"), w_.str(f_.name_of());
    w_.str("loc"), loc(f_.loc);
    w_.str("stage"), w_.str(name(f_.stage));
    w_.str("buffer_ir_selected");
    if (f_.buffer_ir_selected) w_.boolean(*f_.buffer_ir_selected);
    else w_.nil();
    w_.str("target");
    if (f_.target) w_.str(name(*f_.target));
    else w_.nil();
    w_.str("value_count"), w_.integer(count_);
    w_.str("params");
    w_.array(f_.params.size());
    for (const param_info& p : f_.params) {
      w_.map(5);
      w_.str("id"), w_.integer(id(p.value));
      w_.str("name"), w_.str(f_.name_of(p.value));
      w_.str("type"), type_map(f_.type_of(p.value));
      w_.str("direction"), w_.str(name(p.dir));
      w_.str("loc"), loc(p.loc);
    }
    w_.str("results");
    w_.array(f_.results.size());
    for (const type& t : f_.results) type_map(t);
    w_.str("body"), region_map(f_.body);
  }

  const function& f_;
  msgpack::writer& w_;
  std::vector<std::uint32_t> ids_;
  std::uint32_t count_ = 0;
  text error_;
};

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

/// Reads the envelope and rebuilds the program. Each map is first scanned for its keys (an
/// unknown, duplicate or missing key is an error naming it), then its fields are decoded in the
/// order the builder needs, whatever order the file lists them in.
class binary_reader {
 public:
  /// Regions nested deeper than this are rejected (bounds the reader's recursion).
  static constexpr int max_region_depth = 200;

  constexpr explicit binary_reader(std::span<const std::uint8_t> bytes) : in_(bytes) {}

  constexpr result<program> run() {
    result<program> out;
    envelope(out.value);
    if (ok() && in_.pos() != in_.size()) fail("trailing bytes after the program");
    if (!ok()) {
      text m;
      m << "malformed binary IR at byte " << static_cast<std::int64_t>(in_.error_pos());
      if (!where_.empty()) m << " (" << where_ << ')';
      m << ": " << in_.error();
      out.value = program{};
      out.errors.push_back(diagnostic{location{}, text("binary"), m, {}});
    }
    return out;
  }

 private:
  struct segment {
    std::string_view name;  ///< empty: an array index
    std::int64_t index = 0;
  };
  struct field {
    std::string_view key;
    std::size_t pos = 0;
  };
  /// A scanned map: its keys with the position of each value, and the position after it.
  struct object {
    std::array<field, 16> fields{};
    std::size_t count = 0;
    std::size_t end = 0;
  };
  /// Pops a path segment when a field or element has been decoded.
  struct scope {
    binary_reader& r;
    constexpr ~scope() { r.path_.pop_back(); }
  };

  [[nodiscard]] constexpr bool ok() const { return in_.ok(); }
  /// Records the path of the first failure, whichever layer detected it.
  constexpr void note_failure() {
    if (ok() || noted_) return;
    noted_ = true;
    for (const segment& s : path_) {
      if (s.name.empty()) {
        where_ << '[' << s.index << ']';
      } else {
        if (!where_.empty()) where_ << '.';
        where_ << s.name;
      }
    }
  }
  constexpr void fail(std::string_view m) {
    in_.fail(m);
    note_failure();
  }
  constexpr void fail(const text& m) { fail(m.view()); }

  //===--- primitives (each notes the path on failure) ---===//
  constexpr std::int64_t integer() {
    const auto v = in_.integer();
    note_failure();
    return v;
  }
  constexpr std::int64_t integer_in(std::int64_t lo, std::int64_t hi, std::string_view what) {
    const std::int64_t v = integer();
    if (ok() && (v < lo || v > hi)) {
      text m;
      m << what << " must be an integer in [" << lo << ", " << hi << "], got " << v;
      fail(m);
      return lo;
    }
    return v;
  }
  constexpr std::string_view str() {
    const auto s = in_.str();
    note_failure();
    return s;
  }
  constexpr bool boolean() {
    const bool b = in_.boolean();
    note_failure();
    return b;
  }
  constexpr std::size_t array() {
    const auto n = in_.array();
    note_failure();
    return n;
  }
  constexpr std::size_t array_of(std::size_t want, std::string_view what) {
    const std::size_t n = array();
    if (ok() && n != want) {
      text m;
      m << what << " must be an array of " << static_cast<std::int64_t>(want) << " elements, got "
        << static_cast<std::int64_t>(n);
      fail(m);
    }
    return n;
  }
  [[nodiscard]] constexpr bool is_nil() const { return in_.peek() == msgpack::family::nil; }
  constexpr void nil() {
    in_.nil();
    note_failure();
  }
  template <class E, std::size_t N>
  constexpr E enum_value(const std::array<std::string_view, N>& names, std::string_view what) {
    const std::string_view s = str();
    if (!ok()) return E{};
    for (std::size_t i = 0; i < N; ++i)
      if (names[i] == s) return static_cast<E>(i);
    text m;
    m << "unknown " << what << " '" << s << "' (expected one of";
    for (std::size_t i = 0; i < N; ++i) m << (i == 0 ? " " : ", ") << names[i];
    m << ')';
    fail(m);
    return E{};
  }

  //===--- maps ---===//
  constexpr bool scan(object& o, std::string_view what) {
    o.count = 0;
    if (!ok()) return false;
    if (in_.peek() != msgpack::family::map) {
      text m;
      m << "expected " << what << " (a map), got ";
      if (in_.peek() == msgpack::family::end) m << "a truncated input";
      else m << msgpack::family_name(in_.peek());
      fail(m);
      return false;
    }
    const std::size_t n = in_.map();
    note_failure();
    for (std::size_t i = 0; i < n && ok(); ++i) {
      const std::size_t key_pos = in_.pos();
      if (in_.peek() != msgpack::family::str) {
        fail(text("field names must be strings, got ") << msgpack::family_name(in_.peek()));
        return false;
      }
      const std::string_view key = str();
      for (std::size_t j = 0; j < o.count; ++j)
        if (o.fields[j].key == key) {
          in_.seek(key_pos);
          fail(text("duplicate field '") << key << "'");
          return false;
        }
      if (o.count == o.fields.size()) {
        in_.seek(key_pos);
        fail(text("unexpected field '") << key << "'");
        return false;
      }
      o.fields[o.count++] = field{key, in_.pos()};
      path_.push_back(segment{key, 0});
      in_.skip();
      note_failure();
      path_.pop_back();
    }
    o.end = in_.pos();
    return ok();
  }
  /// The scanned keys must be exactly `keys`.
  template <std::size_t N>
  constexpr bool exact(const object& o, const std::array<std::string_view, N>& keys, std::string_view what) {
    for (std::size_t j = 0; j < o.count; ++j) {
      bool known = false;
      for (const auto& k : keys) known = known || k == o.fields[j].key;
      if (!known) {
        in_.seek(o.fields[j].pos);
        fail(text("unexpected field '") << o.fields[j].key << "' in " << what);
        return false;
      }
    }
    for (const auto& k : keys) {
      bool present = false;
      for (std::size_t j = 0; j < o.count; ++j) present = present || o.fields[j].key == k;
      if (!present) {
        fail(text("missing required field '") << k << "' in " << what);
        return false;
      }
    }
    return true;
  }
  /// Seeks to a field's value and names it in the path until the returned scope ends.
  [[nodiscard]] constexpr scope at(const object& o, std::string_view key) {
    bool found = false;
    for (std::size_t j = 0; j < o.count; ++j)
      if (o.fields[j].key == key) {
        in_.seek(o.fields[j].pos);
        found = true;
      }
    if (!found) {
      in_.seek(o.end);
      fail(text("missing required field '") << key << "'");
    }
    path_.push_back(segment{key, 0});
    return scope{*this};
  }
  [[nodiscard]] constexpr scope named(std::string_view name) {
    path_.push_back(segment{name, 0});
    return scope{*this};
  }
  [[nodiscard]] constexpr scope element(std::size_t i) {
    path_.push_back(segment{{}, static_cast<std::int64_t>(i)});
    return scope{*this};
  }
  constexpr void finish(const object& o) {
    if (ok()) in_.seek(o.end);
  }

  //===--- IR pieces ---===//
  constexpr location loc() {
    array_of(2, "a location [line, col]");
    location l;
    {
      auto s = element(0);
      l.line = static_cast<std::uint32_t>(integer_in(0, 0xffffffffLL, "a line"));
    }
    {
      auto s = element(1);
      l.col = static_cast<std::uint32_t>(integer_in(0, 0xffffffffLL, "a column"));
    }
    return l;
  }
  constexpr std::array<std::int64_t, 2> int_pair(std::string_view what) {
    std::array<std::int64_t, 2> v{};
    array_of(2, what);
    for (std::size_t i = 0; i < 2 && ok(); ++i) {
      auto s = element(i);
      if (in_.peek() != msgpack::family::integer) {
        fail(text(what) << " must be an integer array; element " << static_cast<std::int64_t>(i)
                        << " must be an integer");
        return v;
      }
      v[i] = integer();
    }
    return v;
  }
  constexpr value_id ref() {
    const std::int64_t v = integer();
    if (ok() && (v < 0 || v >= static_cast<std::int64_t>(value_count_))) {
      text m;
      m << "value id " << v << " is out of range: the function declares value_count "
        << static_cast<std::int64_t>(value_count_);
      fail(m);
      return value_id{0};
    }
    return value_id{static_cast<std::uint32_t>(v)};
  }
  constexpr extent extent_value() {
    switch (in_.peek()) {
      case msgpack::family::integer: return extent::of(integer());
      case msgpack::family::str:
        if (str() != "?" && ok()) fail("a valid extent string must be \"?\" (a runtime extent)");
        return extent::runtime();
      case msgpack::family::map: {
        object o;
        if (!scan(o, "a valid extent") || !exact(o, std::array<std::string_view, 1>{"value"}, "a valid extent"))
          return {};
        extent e;
        {
          auto s = at(o, "value");
          e = extent::of(ref());
        }
        finish(o);
        return e;
      }
      default:
        fail(text("a valid extent must be an integer, \"?\" or {value: id}, got ") << msgpack::family_name(in_.peek()));
        return {};
    }
  }

  constexpr type type_value() {
    object o;
    if (!scan(o, "a type")) return {};
    type t;
    {
      auto s = at(o, "kind");
      t.kind = enum_value<type_kind>(type_kind_names, "type kind");
    }
    if (!ok()) return {};
    switch (t.kind) {
      case type_kind::scalar:
        if (!exact(o, std::array<std::string_view, 2>{"kind", "dtype"}, "a scalar type")) return {};
        break;
      case type_kind::tensor:
        if (!exact(o, std::array<std::string_view, 5>{"kind", "shape", "dtype", "layout", "stride"}, "a tensor type"))
          return {};
        break;
      case type_kind::tile:
        if (!exact(o,
                   std::array<std::string_view, 11>{"kind", "shape", "dtype", "space", "valid", "blayout", "slayout",
                                                    "fractal", "pad", "compact", "storage"},
                   "a tile type"))
          return {};
        break;
      case type_kind::buffer:
        if (!exact(o,
                   std::array<std::string_view, 10>{"kind", "shape", "dtype", "space", "valid", "blayout", "slayout",
                                                    "fractal", "pad", "compact"},
                   "a buffer type"))
          return {};
        break;
      default:
        if (!exact(o, std::array<std::string_view, 1>{"kind"}, "a type of this kind")) return {};
        finish(o);
        return t;
    }
    {
      auto s = at(o, "dtype");
      t.dt = enum_value<dtype>(dtype_names, "dtype");
    }
    if (t.kind == type_kind::scalar) {
      finish(o);
      return t;
    }
    {
      auto s = at(o, "shape");
      t.shape = int_pair("shape");
    }
    if (t.kind == type_kind::tensor) {
      {
        auto s = at(o, "layout");
        t.tlayout = enum_value<tensor_layout>(tensor_layout_names, "tensor layout");
      }
      {
        auto s = at(o, "stride");
        if (is_nil()) {
          nil();
        } else {
          t.has_stride = true;
          t.stride = int_pair("stride");
        }
      }
      finish(o);
      return t;
    }
    {
      auto s = at(o, "space");
      t.space = enum_value<memory_space>(space_names, "memory space");
    }
    {
      auto s = at(o, "valid");
      array_of(2, "valid");
      for (std::size_t i = 0; i < 2 && ok(); ++i) {
        auto e = element(i);
        t.valid[i] = extent_value();
      }
    }
    {
      auto s = at(o, "blayout");
      t.blayout = enum_value<box_layout>(box_layout_names, "box layout");
    }
    {
      auto s = at(o, "slayout");
      t.slayout = enum_value<box_layout>(box_layout_names, "box layout");
    }
    {
      auto s = at(o, "fractal");
      t.fractal = static_cast<std::uint32_t>(integer_in(0, 0xffffffffLL, "fractal"));
    }
    {
      auto s = at(o, "pad");
      t.pad = enum_value<pad_value>(pad_names, "pad value");
    }
    {
      auto s = at(o, "compact");
      t.compact = enum_value<compact_mode>(compact_names, "compact mode");
    }
    if (t.kind == type_kind::tile) {
      auto s = at(o, "storage");
      if (is_nil()) {
        nil();
      } else {
        object st;
        if (scan(st, "a storage clause") &&
            exact(st, std::array<std::string_view, 2>{"mem", "offset"}, "a storage clause")) {
          {
            auto m = at(st, "mem");
            t.mem = ref();
          }
          {
            auto m = at(st, "offset");
            t.mem_offset = integer();
          }
          finish(st);
        }
      }
    }
    finish(o);
    return t;
  }

  /// `{id, name, type}`; the id must be the next one in definition order.
  constexpr void value_def(std::string_view& name_out, type& type_out) {
    object o;
    if (!scan(o, "a value") || !exact(o, std::array<std::string_view, 3>{"id", "name", "type"}, "a value")) return;
    def_id(o);
    {
      auto s = at(o, "name");
      name_out = str();
    }
    {
      auto s = at(o, "type");
      type_out = type_value();
    }
    finish(o);
  }
  constexpr void def_id(const object& o) {
    auto s = at(o, "id");
    const std::int64_t id = integer();
    if (!ok()) return;
    if (id != static_cast<std::int64_t>(next_value_)) {
      text m;
      m << "value id " << id << " is out of order: expected " << static_cast<std::int64_t>(next_value_)
        << " (values are numbered in definition order)";
      fail(m);
      return;
    }
    if (next_value_ >= value_count_) {
      fail(text("more values are defined than value_count ") << static_cast<std::int64_t>(value_count_));
      return;
    }
    ++next_value_;
  }

  constexpr operand operand_value() {
    object o;
    if (!scan(o, "an operand")) return {};
    operand_kind k{};
    {
      auto s = at(o, "kind");
      k = enum_value<operand_kind>(operand_kind_names, "operand kind");
    }
    if (!ok()) return {};
    operand out;
    switch (k) {
      case operand_kind::none:
        exact(o, std::array<std::string_view, 1>{"kind"}, "a none operand");
        break;
      case operand_kind::value:
        if (exact(o, std::array<std::string_view, 2>{"kind", "id"}, "a value operand")) {
          auto s = at(o, "id");
          out = operand::of(ref());
        }
        break;
      case operand_kind::int_lit:
        if (exact(o, std::array<std::string_view, 2>{"kind", "value"}, "an int operand")) {
          auto s = at(o, "value");
          out = operand::integer(integer());
        }
        break;
      case operand_kind::float_lit:
        if (exact(o, std::array<std::string_view, 3>{"kind", "mantissa", "exp10"}, "a float operand")) {
          std::int64_t m = 0, e = 0;
          {
            auto s = at(o, "mantissa");
            m = integer();
          }
          {
            auto s = at(o, "exp10");
            e = integer_in(-32768, 32767, "exp10");
            // Normalizing strips the mantissa's trailing zeros; each one raises the exponent.
            std::int64_t normalized = e;
            for (std::int64_t r = m; r != 0 && r % 10 == 0; r /= 10) ++normalized;
            if (ok() && normalized > 32767) fail("exp10 overflows once the mantissa's trailing zeros are removed");
          }
          if (ok()) out = operand::decimal(m, static_cast<int>(e));
        }
        break;
      case operand_kind::bool_lit:
        if (exact(o, std::array<std::string_view, 2>{"kind", "value"}, "a bool operand")) {
          auto s = at(o, "value");
          out = operand::boolean(boolean());
        }
        break;
      case operand_kind::tuple:
        if (exact(o, std::array<std::string_view, 2>{"kind", "elements"}, "a tuple operand")) {
          auto s = at(o, "elements");
          std::vector<operand> elems;
          const std::size_t n = array();
          for (std::size_t i = 0; i < n && ok(); ++i) {
            auto e = element(i);
            elems.push_back(operand_value());
          }
          if (ok()) out = b_->tuple(std::span<const operand>(elems.data(), elems.size()));
        }
        break;
      case operand_kind::space:
        if (exact(o, std::array<std::string_view, 2>{"kind", "value"}, "a space operand")) {
          auto s = at(o, "value");
          out = operand::of(enum_value<memory_space>(space_names, "memory space"));
        }
        break;
      case operand_kind::dtype:
        if (exact(o, std::array<std::string_view, 2>{"kind", "value"}, "a dtype operand")) {
          auto s = at(o, "value");
          out = operand::of(enum_value<dtype>(dtype_names, "dtype"));
        }
        break;
      case operand_kind::symbol:
        if (exact(o, std::array<std::string_view, 2>{"kind", "value"}, "a symbol operand")) {
          auto s = at(o, "value");
          const std::string_view sym = str();
          if (ok()) out = b_->symbol(sym);
        }
        break;
    }
    finish(o);
    return ok() ? out : operand{};
  }

  constexpr void op_value(int depth) {
    object o;
    if (!scan(o, "an op") ||
        !exact(o, std::array<std::string_view, 6>{"op", "loc", "args", "kwargs", "regions", "results"}, "an op"))
      return;
    opcode c{};
    {
      auto s = at(o, "op");
      const std::string_view m = str();
      if (!ok()) return;
      const auto found = find_mnemonic(m);
      if (!found) {
        fail(text("unknown op '") << m << "'");
        return;
      }
      c = *found;
    }
    location l;
    {
      auto s = at(o, "loc");
      l = loc();
    }
    std::vector<operand> args;
    {
      auto s = at(o, "args");
      const std::size_t n = array();
      for (std::size_t i = 0; i < n && ok(); ++i) {
        auto e = element(i);
        args.push_back(operand_value());
      }
    }
    std::vector<kwarg> kws;
    {
      auto s = at(o, "kwargs");
      object k;
      if (scan(k, "kwargs")) {
        for (std::size_t i = 0; i < k.count && ok(); ++i) {
          const auto key = parse_keyword(k.fields[i].key);
          auto e = at(k, k.fields[i].key);
          if (!key) {
            fail(text("unknown keyword '") << k.fields[i].key << "'");
            break;
          }
          kws.push_back(kwarg{*key, operand_value()});
        }
        finish(k);
      }
    }
    if (!ok()) return;
    std::uint32_t nregions = 0;
    region_id first{};
    {
      auto s = at(o, "regions");
      const std::size_t n = array();
      if (ok() && n != region_count(c)) {
        text m;
        m << "op '" << mnemonic(c) << "' has " << static_cast<std::int64_t>(region_count(c)) << " regions, got "
          << static_cast<std::int64_t>(n);
        fail(m);
        return;
      }
      if (ok() && depth >= max_region_depth) {
        fail(text("regions nested deeper than ") << static_cast<std::int64_t>(max_region_depth));
        return;
      }
      nregions = static_cast<std::uint32_t>(n);
      if (nregions > 0) first = b_->reserve_regions(nregions);
      for (std::uint32_t i = 0; i < nregions && ok(); ++i) {
        auto e = element(i);
        region_value(region_id{first.index + i}, depth + 1);
      }
    }
    if (!ok()) return;
    std::vector<type> types;
    std::vector<std::string_view> names;
    {
      auto s = at(o, "results");
      const std::size_t n = array();
      const arity a = info(c).results;
      if (ok() && ((a == arity::none && n != 0) || (a == arity::one && n != 1))) {
        text m;
        m << "op '" << mnemonic(c) << "' defines " << (a == arity::none ? "no result" : "exactly one result") << ", got "
          << static_cast<std::int64_t>(n);
        fail(m);
        return;
      }
      for (std::size_t i = 0; i < n && ok(); ++i) {
        auto e = element(i);
        names.emplace_back();
        types.emplace_back();
        value_def(names.back(), types.back());
      }
    }
    if (!ok()) return;
    b_->emit(c, std::span<const operand>(args.data(), args.size()), std::span<const kwarg>(kws.data(), kws.size()),
             std::span<const type>(types.data(), types.size()),
             std::span<const std::string_view>(names.data(), names.size()), l,
             nregions > 0 ? span32{first.index, nregions} : span32{});
    finish(o);
  }

  /// A region `{args, ops}`; `r` is reserved, or invalid for the function body (already open).
  constexpr void region_value(region_id r, int depth) {
    object o;
    if (!scan(o, "a region") || !exact(o, std::array<std::string_view, 2>{"args", "ops"}, "a region")) return;
    std::vector<type> types;
    std::vector<std::string_view> names;
    {
      auto s = at(o, "args");
      const std::size_t n = array();
      if (ok() && !r.valid() && n != 0) {
        fail("the function body takes no arguments");
        return;
      }
      for (std::size_t i = 0; i < n && ok(); ++i) {
        auto e = element(i);
        names.emplace_back();
        types.emplace_back();
        value_def(names.back(), types.back());
      }
    }
    if (!ok()) return;
    if (r.valid())
      b_->open_region(r, std::span<const type>(types.data(), types.size()),
                      std::span<const std::string_view>(names.data(), names.size()));
    {
      auto s = at(o, "ops");
      const std::size_t n = array();
      for (std::size_t i = 0; i < n && ok(); ++i) {
        auto e = element(i);
        op_value(depth);
      }
    }
    if (r.valid()) b_->close_region();
    finish(o);
  }

  constexpr function function_value() {
    object o;
    if (!scan(o, "a function") ||
        !exact(o,
               std::array<std::string_view, 10>{"kind", "name", "loc", "stage", "buffer_ir_selected", "target",
                                                "value_count", "params", "results", "body"},
               "a function"))
      return {};
    function_kind kind{};
    std::string_view fname;
    location floc;
    {
      auto s = at(o, "kind");
      kind = enum_value<function_kind>(function_kind_names, "function kind");
    }
    {
      auto s = at(o, "name");
      fname = str();
    }
    {
      auto s = at(o, "loc");
      floc = loc();
    }
    if (!ok()) return {};
    function_builder b(kind, fname, floc);
    b_ = &b;
    {
      auto s = at(o, "stage");
      b.fn().stage = enum_value<ir_stage>(stage_names, "stage");
    }
    {
      auto s = at(o, "buffer_ir_selected");
      if (is_nil()) nil();
      else b.fn().buffer_ir_selected = boolean();
    }
    {
      auto s = at(o, "target");
      if (is_nil()) nil();
      else b.fn().target = enum_value<target_arch>(target_names, "target");
    }
    {
      auto s = at(o, "value_count");
      // Why the bound: every value takes several bytes, and ids near no_id are reserved by `extent`.
      const auto limit = static_cast<std::int64_t>(in_.size() < 0xfffffff0u ? in_.size() : 0xfffffff0u);
      value_count_ = static_cast<std::uint32_t>(integer_in(0, limit, "value_count"));
      next_value_ = 0;
    }
    {
      auto s = at(o, "params");
      const std::size_t n = array();
      for (std::size_t i = 0; i < n && ok(); ++i) {
        auto e = element(i);
        object p;
        if (!scan(p, "a parameter") ||
            !exact(p, std::array<std::string_view, 5>{"id", "name", "type", "direction", "loc"}, "a parameter"))
          break;
        def_id(p);
        std::string_view pname;
        type ptype;
        direction dir{};
        location ploc;
        {
          auto f = at(p, "name");
          pname = str();
        }
        {
          auto f = at(p, "type");
          ptype = type_value();
        }
        {
          auto f = at(p, "direction");
          dir = enum_value<direction>(direction_names, "direction");
        }
        {
          auto f = at(p, "loc");
          ploc = loc();
        }
        if (ok()) b.param(pname, ptype, dir, ploc);
        finish(p);
      }
    }
    {
      auto s = at(o, "results");
      const std::size_t n = array();
      for (std::size_t i = 0; i < n && ok(); ++i) {
        auto e = element(i);
        b.result_type(type_value());
      }
    }
    {
      auto s = at(o, "body");
      if (ok()) region_value(region_id{}, 0);
    }
    if (ok() && next_value_ != value_count_) {
      auto s = at(o, "value_count");
      text m;
      m << "value_count is " << static_cast<std::int64_t>(value_count_) << " but the function defines "
        << static_cast<std::int64_t>(next_value_) << " values";
      fail(m);
    }
    b_ = nullptr;
    finish(o);
    return b.finish();
  }

  constexpr void program_value(program& p) {
    object o;
    if (!scan(o, "a program") || !exact(o, std::array<std::string_view, 2>{"file", "functions"}, "a program")) return;
    {
      auto s = at(o, "file");
      p.file = text(str());
    }
    {
      auto s = at(o, "functions");
      const std::size_t n = array();
      for (std::size_t i = 0; i < n && ok(); ++i) {
        auto e = element(i);
        p.functions.push_back(function_value());
      }
    }
    finish(o);
  }

  constexpr void envelope(program& p) {
    const std::size_t n = array();
    if (!ok()) return;
    if (n != 3) {
      fail("not a tile2buffer binary IR file: the envelope must be [magic, version, program]");
      return;
    }
    {
      auto e = named("magic");
      if (in_.peek() != msgpack::family::str || str() != binary_magic) {
        fail(text("not a tile2buffer binary IR file: the magic string must be \"") << binary_magic << '"');
        return;
      }
    }
    {
      auto e = named("version");
      const std::size_t at = in_.pos();
      const std::int64_t v = integer();
      if (ok() && v != binary_version) {
        in_.seek(at);  // report the version's own byte
        text m;
        m << "unsupported binary IR version " << v << " (this reader reads version " << binary_version << ')';
        fail(m);
        return;
      }
    }
    program_value(p);  // paths start at the program's own fields
  }

  msgpack::reader in_;
  std::vector<segment> path_;
  text where_;
  bool noted_ = false;
  function_builder* b_ = nullptr;
  std::uint32_t value_count_ = 0;
  std::uint32_t next_value_ = 0;
};

}  // namespace detail

/// The binary form of `p` (MessagePack, version `binary_version`). Fails only when a function
/// refers to a value that nothing defines (IR no parser or pass produces).
constexpr result<std::vector<std::uint8_t>> serialize(const program& p) {
  result<std::vector<std::uint8_t>> out;
  msgpack::writer w;
  w.array(3);
  w.str(binary_magic);
  w.integer(binary_version);
  w.map(2);
  w.str("file");
  w.str(p.file.view());
  w.str("functions");
  w.array(p.functions.size());
  for (const function& f : p.functions) {
    detail::binary_writer fw(f, w);
    if (!fw.run()) {
      out.fail(f.loc, "binary", fw.error());
      return out;
    }
  }
  out.value = w.take();
  return out;
}

/// Reads a program written by `serialize` (or any writer following docs/binary-format.md).
/// Never reads out of bounds; any malformed input gives one diagnostic naming the byte offset,
/// the field path and the problem.
constexpr result<program> deserialize(std::span<const std::uint8_t> bytes) {
  return detail::binary_reader(bytes).run();
}
inline result<program> deserialize(std::string_view bytes) {
  return deserialize(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(bytes.data()),  // NOLINT
                                                   bytes.size()));
}

/// True when `bytes` starts like a binary IR file (the canonical envelope header: a 3-element
/// array whose first element is the magic string). Used to tell binary input from text.
constexpr bool is_binary(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 2 + binary_magic.size() || bytes[0] != 0x93 || bytes[1] != (0xa0 | binary_magic.size()))
    return false;
  for (std::size_t i = 0; i < binary_magic.size(); ++i)
    if (bytes[2 + i] != static_cast<std::uint8_t>(binary_magic[i])) return false;
  return true;
}
inline bool is_binary(std::string_view bytes) {
  return is_binary(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(bytes.data()),  // NOLINT
                                                 bytes.size()));
}

}  // namespace v0
}  // namespace tile2buffer
