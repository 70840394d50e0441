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
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/opcode.hpp"
#include "tile2buffer/serialize/msgpack.hpp"
#include "tile2buffer/serialize/schema.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The format version this library writes and the only one it reads.
inline constexpr std::int64_t binary_version = 1;
/// The first element of the envelope `[magic, version, program]`.
inline constexpr std::string_view binary_magic = "tile2buffer-ir";

namespace detail {

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
      for (std::uint32_t i = 0; i < n.region_count; ++i) number(region_id{n.regions_begin + i});
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

  /// One leaf or nested record (a map of its fields; `loc` is an array of them).
  template <class T>
  constexpr void put(const T& x) {
    if constexpr (std::is_enum_v<T>) w_.str(spelling(x).names[static_cast<std::size_t>(x)]);
    else if constexpr (std::is_same_v<T, bool>) w_.boolean(x);
    else if constexpr (std::is_integral_v<T>) w_.integer(x);
    else if constexpr (std::is_same_v<T, span32>) w_.str(f_.str(x));
    else if constexpr (std::is_same_v<T, extent>) extent_value(x);
    else if constexpr (std::is_same_v<T, value_id>) w_.integer(id(x));
    else if constexpr (std::is_same_v<T, type>) type_map(x);
    else if constexpr (std::is_same_v<T, operand>) operand_map(x);
    else if constexpr (std::is_same_v<T, op_id>) op_map(x);
    else if constexpr (requires { x.has_value(); }) x ? put(*x) : w_.nil();
    else if constexpr (requires { x.begin(), x.size(); }) {
      w_.array(x.size());
      for (const auto& e : x) put(e);
    } else if constexpr (std::is_same_v<T, location>) {
      w_.array(field_count<T>);
      for_each_field(x, [&](std::string_view, const auto& m) { put(m); });
    } else {
      w_.map(field_count<T>);
      fields(x, all);
    }
  }
  /// The adapted fields of `x` that `keep` accepts, as map entries.
  template <class T, class Keep>
  constexpr void fields(const T& x, Keep keep) {
    for_each_field(x, [&](std::string_view key, const auto& m) {
      if (keep(key)) w_.str(key), put(m);
    });
  }
  static constexpr bool all(std::string_view) { return true; }
  constexpr void extent_value(const extent& e) {
    if (e.is_runtime()) {
      w_.str("?");
    } else if (e.is_value()) {
      w_.map(1), w_.str("value"), put(e.value());
    } else {
      w_.integer(e.number);
    }
  }
  /// `st`: the storage of the value `t` describes (the format keeps it in the type's map).
  constexpr void type_map(const type& t, const value_storage& st = {}) {
    w_.map(type_keys_of(t.kind).size);
    fields(t, [&](std::string_view key) { return carries(t.kind, key); });
    if (t.is_tensor()) w_.str("stride"), t.has_stride ? put(t.stride) : w_.nil();
    if (t.is_tile()) w_.str("storage"), st.valid() ? put(storage_clause{st.mem, st.offset}) : w_.nil();
  }
  /// `id`, `name` and `type`: a value definition's fields, also a parameter's first ones.
  constexpr void value_fields(value_id v) {
    w_.str("id"), w_.integer(id(v));
    w_.str("name"), w_.str(f_.name_of(v));
    // Why the bound: the writer takes functions no verifier has seen (the printer guards it too).
    w_.str("type"), type_map(f_.type_of(v), v.index < f_.storage.size() ? f_.storage[v.index] : value_storage{});
  }
  constexpr void value_def(value_id v) {
    w_.map(3);
    value_fields(v);
  }
  constexpr void operand_map(const operand& o) {
    const auto keys = operand_keys(o.kind);
    w_.map(keys.size);
    w_.str("kind"), put(o.kind);
    if (keys.size > 1) w_.str(keys.keys[1]);
    switch (o.kind) {
      case operand_kind::none: return;
      case operand_kind::value: w_.integer(id(o.value())); return;
      case operand_kind::int_lit: w_.integer(o.num); return;
      case operand_kind::float_lit: w_.integer(o.num), w_.str("exp10"), w_.integer(o.exp10); return;
      case operand_kind::bool_lit: w_.boolean(o.num != 0); return;
      case operand_kind::tuple: {
        const span32 s = o.tuple();
        if (s.begin > f_.operands.size() || s.count > f_.operands.size() - s.begin) {
          error_ << "function @" << f_.name_of() << ": a tuple operand lies outside the operand pool";
          w_.array(0);
          return;
        }
        return put(f_.pool(s));
      }
      case operand_kind::space: return enum_operand<memory_space>(o.num, "memory-space");
      case operand_kind::dtype: return enum_operand<dtype>(o.num, "dtype");
      case operand_kind::symbol: w_.str(f_.symbol(o)); return;
    }
  }
  template <class E>
  constexpr void enum_operand(std::int64_t n, std::string_view what) {
    if (n >= 0 && n < static_cast<std::int64_t>(spelling(E{}).names.size())) return put(static_cast<E>(n));
    error_ << "function @" << f_.name_of() << ": " << what << " operand out of range";
    w_.nil();
  }
  constexpr void region_map(region_id r) {
    const region_info& reg = f_.region(r);
    w_.map(2);
    w_.str("args");
    w_.array(reg.args.count);
    for (std::uint32_t i = 0; i < reg.args.count; ++i) value_def(value_id{reg.args.begin + i});
    w_.str("ops"), put(f_.ops_of(r));
  }
  constexpr void op_map(op_id o) {
    const op_node& n = f_.op(o);
    w_.map(6);
    w_.str("op"), w_.str(mnemonic(n.code()));
    w_.str("loc"), put(f_.loc_of(o));
    w_.str("args"), put(f_.args(o));
    const auto kws = f_.kwargs_of(o);
    w_.str("kwargs");
    w_.map(kws.size());
    for (const kwarg& k : kws) {
      const auto key = static_cast<std::size_t>(k.key);
      w_.str(key < keyword_names.size() ? keyword_names[key] : std::string_view("<invalid>"));
      operand_map(k.value);
    }
    w_.str("regions");
    w_.array(n.region_count);
    for (std::uint32_t i = 0; i < n.region_count; ++i) region_map(region_id{n.regions_begin + i});
    w_.str("results");
    w_.array(n.results.count);
    for (std::uint32_t i = 0; i < n.results.count; ++i) value_def(value_id{n.results.begin + i});
  }
  constexpr void function_map() {
    w_.map(field_count<function> + 4);
    fields(f_, all);
    w_.str("value_count"), w_.integer(count_);
    w_.str("params");
    w_.array(f_.params.size());
    for (const param_info& p : f_.params) {
      w_.map(3 + field_count<param_info>);
      value_fields(p.value);
      fields(p, all);
    }
    w_.str("results"), put(f_.results);
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
  struct entry {
    std::string_view key;
    std::size_t pos = 0;
  };
  /// A scanned map: its keys with the position of each value, and the position after it.
  struct object {
    std::array<entry, 16> fields{};
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
  template <class V>
  constexpr V noted(V v) {
    note_failure();
    return v;
  }
  constexpr std::int64_t integer() { return noted(in_.integer()); }
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
  constexpr std::string_view str() { return noted(in_.str()); }
  constexpr bool boolean() { return noted(in_.boolean()); }
  constexpr std::size_t array() { return noted(in_.array()); }
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
  constexpr void nil() { noted(in_.nil()); }
  template <class E>
  constexpr E enum_value() {
    const auto [names, what] = spelling(E{});
    const std::string_view s = str();
    if (!ok()) return E{};
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == s) return static_cast<E>(i);
    text m;
    m << "unknown " << what << " '" << s << "' (expected one of";
    for (std::size_t i = 0; i < names.size(); ++i) m << (i == 0 ? " " : ", ") << names[i];
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
      if (find(o, key) != nullptr) {
        in_.seek(key_pos);
        fail(text("duplicate field '") << key << "'");
        return false;
      }
      if (o.count == o.fields.size()) {
        in_.seek(key_pos);
        unexpected_field(key, what);
        return false;
      }
      o.fields[o.count++] = entry{key, in_.pos()};
      path_.push_back(segment{key, 0});
      in_.skip();
      note_failure();
      path_.pop_back();
    }
    o.end = in_.pos();
    return ok();
  }
  /// A key the record `what` does not have. Why these words: the reference's tests match
  /// "unexpected field '<k>'" (e.g. 'memref', 'base', 'addr' or 'storage' in a buffer type, which
  /// has no storage), reference-semantics.md §7 quotes "unexpected fields"; the message holds both.
  constexpr void unexpected_field(std::string_view key, std::string_view what) {
    fail(text("unexpected field '") << key << "' in " << what
                                    << " (unexpected fields are rejected: a record has exactly the fields "
                                    << "docs/binary-format.md lists)");
  }
  /// The scanned keys must be exactly `keys`.
  constexpr bool exact(const object& o, std::span<const std::string_view> keys, std::string_view what) {
    for (std::size_t j = 0; j < o.count; ++j) {
      bool known = false;
      for (const auto& k : keys) known = known || k == o.fields[j].key;
      if (!known) {
        in_.seek(o.fields[j].pos);
        unexpected_field(o.fields[j].key, what);
        return false;
      }
    }
    for (const auto& k : keys)
      if (find(o, k) == nullptr) {
        fail(text("missing required field '") << k << "' in " << what);
        return false;
      }
    return true;
  }
  [[nodiscard]] static constexpr const entry* find(const object& o, std::string_view key) {
    for (std::size_t j = 0; j < o.count; ++j)
      if (o.fields[j].key == key) return &o.fields[j];
    return nullptr;
  }
  /// Seeks to a field's value and names it in the path until the returned scope ends.
  [[nodiscard]] constexpr scope at(const object& o, std::string_view key) {
    if (const entry* e = find(o, key)) {
      in_.seek(e->pos);
    } else {
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
  /// One leaf or nested record (a map of its fields; `loc` is an array of them); `what` names
  /// it in messages.
  template <class T>
  constexpr void get(T& x, std::string_view what) {
    if constexpr (std::is_enum_v<T>) x = enum_value<T>();
    else if constexpr (std::is_same_v<T, bool>) x = boolean();
    else if constexpr (std::is_same_v<T, std::uint32_t>) x = static_cast<T>(integer_in(0, 0xffffffffLL, what));
    else if constexpr (std::is_same_v<T, span32>) x = b_->intern(str());
    else if constexpr (std::is_same_v<T, extent>) x = extent_value();
    else if constexpr (requires { x.has_value(); }) is_nil() ? nil() : get(x.emplace(), what);
    else if constexpr (std::is_same_v<T, std::int64_t>) x = integer();
    else if constexpr (std::is_same_v<T, std::string_view>) x = str();
    else if constexpr (std::is_same_v<T, value_id>) x = ref();
    else if constexpr (std::is_same_v<T, text>) x = text(str());
    else if constexpr (std::is_same_v<T, type>) x = type_value(nullptr);
    else if constexpr (std::is_same_v<T, placed_type>) x.ty = type_value(&x.at);
    else if constexpr (std::is_same_v<T, operand>) x = operand_value();
    else if constexpr (std::is_same_v<T, function>) x = function_value();
    else if constexpr (requires { x.emplace_back(); }) elements(array(), [&](std::size_t) { get(x.emplace_back(), what); });
    else if constexpr (requires { x.begin(), x.size(); }) {
      array_of(x.size(), what);
      elements(x.size(), [&](std::size_t i) {
        if (std::is_integral_v<std::remove_cvref_t<decltype(x[0])>> && in_.peek() != msgpack::family::integer)
          return fail(text(what) << " must be an integer array; element " << static_cast<std::int64_t>(i)
                                 << " must be an integer");
        get(x[i], what);
      });
    } else if constexpr (std::is_same_v<T, location>) {
      array_of(field_count<T>, what);
      std::size_t i = 0;
      for_each_field(x, [&](std::string_view key, auto& m) {
        auto e = element(i++);
        get(m, field_noun(key));
      });
    } else {
      object o;
      if (!scan(o, what) || !exact(o, keys_of<T>(std::array<std::string_view, 0>{}), what)) return;
      fields(o, x, all);
      finish(o);
    }
  }
  /// The adapted fields of `x` that `keep` accepts, from the scanned map `o`.
  template <class T, class Keep>
  constexpr void fields(const object& o, T& x, Keep keep) {
    for_each_field(x, [&](std::string_view key, auto& m) {
      if (!ok() || !keep(key)) return;
      field(o, key, m);
    });
  }
  /// Decodes `n` array elements with `f(i)`, each under its index in the path.
  template <class F>
  constexpr void elements(std::size_t n, F f) {
    for (std::size_t i = 0; i < n && ok(); ++i) {
      auto e = element(i);
      f(i);
    }
  }
  /// One field of the scanned map `o`.
  template <class T>
  constexpr void field(const object& o, std::string_view key, T& x) {
    auto s = at(o, key);
    get(x, field_noun(key));
  }
  static constexpr bool all(std::string_view) { return true; }
  constexpr value_id ref() {
    const std::int64_t v = integer();
    if (ok() && (v < 0 || v >= static_cast<std::int64_t>(value_count_))) {
      text m;
      m << "value id " << v << " is out of range: the function declares value_count " << static_cast<std::int64_t>(value_count_);
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
        if (!scan(o, "a valid extent") || !exact(o, std::array<std::string_view, 1>{"value"}, "a valid extent")) return {};
        value_id v;
        field(o, "value", v);
        finish(o);
        return extent::of(v);
      }
      default:
        fail(text("a valid extent must be an integer, \"?\" or {value: id}, got ") << msgpack::family_name(in_.peek()));
        return {};
    }
  }

  /// `st`: where the type describes a value, its storage goes there; elsewhere a storage
  /// clause is refused.
  constexpr type type_value(value_storage* st) {
    object o;
    if (!scan(o, "a type")) return {};
    type t;
    field(o, "kind", t.kind);
    if (!ok()) return {};
    if (!exact(o, type_keys_of(t.kind).view(), type_nouns[static_cast<std::size_t>(t.kind)])) return {};
    fields(o, t, [&](std::string_view key) { return key != "kind" && carries(t.kind, key); });
    std::optional<std::array<std::int64_t, 2>> stride;
    std::optional<storage_clause> storage;
    if (t.is_tensor()) field(o, "stride", stride);
    if (t.is_tile()) field(o, "storage", storage);
    if (stride) t.has_stride = true, t.stride = *stride;
    if (storage && st == nullptr) {
      fail("a storage clause is not allowed here (only a value's Tile type has one)");
      return {};
    }
    if (storage) *st = value_storage{storage->mem, storage->offset};
    finish(o);
    return t;
  }

  /// `{id, name, type}`; the id must be the next one in definition order.
  constexpr void value_def(std::string_view& name_out, placed_type& type_out) {
    object o;
    if (!scan(o, "a value") || !exact(o, value_keys, "a value")) return;
    value_fields(o, name_out, type_out);
    finish(o);
  }
  static constexpr std::array<std::string_view, 3> value_keys{"id", "name", "type"};
  constexpr void value_defs(std::size_t n, std::vector<std::string_view>& names, std::vector<type>& types,
                            std::vector<value_storage>& storage) {
    elements(n, [&](std::size_t) {
      placed_type t;
      value_def(names.emplace_back(), t);
      types.push_back(t.ty);
      storage.push_back(t.at);
    });
  }
  constexpr void value_fields(const object& o, std::string_view& name_out, placed_type& type_out) {
    def_id(o);
    field(o, "name", name_out);
    field(o, "type", type_out);
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
    field(o, "kind", k);
    if (!ok()) return {};
    const auto keys = operand_keys(k);
    const std::string_view kname = operand_kind_names[static_cast<std::size_t>(k)];
    if (!exact(o, keys.view(), (text(kname[0] == 'i' ? "an " : "a ") << kname << " operand").view())) return {};
    operand out;
    if (k == operand_kind::float_lit) {
      std::int64_t m = 0, e = 0;
      field(o, "mantissa", m);
      {
        auto s = at(o, "exp10");
        e = integer_in(-32768, 32767, "exp10");
        // Normalizing strips the mantissa's trailing zeros; each one raises the exponent.
        std::int64_t normalized = e;
        for (std::int64_t r = m; r != 0 && r % 10 == 0; r /= 10) ++normalized;
        if (ok() && normalized > 32767) fail("exp10 overflows once the mantissa's trailing zeros are removed");
      }
      if (ok()) out = operand::decimal(m, static_cast<int>(e));
    } else if (keys.size > 1) {
      auto s = at(o, keys.keys[1]);
      switch (k) {
        case operand_kind::value: out = operand::of(ref()); break;
        case operand_kind::int_lit: out = operand::integer(integer()); break;
        case operand_kind::bool_lit: out = operand::boolean(boolean()); break;
        case operand_kind::tuple: {
          std::vector<operand> elems;
          get(elems, "elements");
          if (ok()) out = b_->tuple(elems);
          break;
        }
        case operand_kind::space: out = operand::of(enum_value<memory_space>()); break;
        case operand_kind::dtype: out = operand::of(enum_value<dtype>()); break;
        case operand_kind::symbol: {
          const std::string_view sym = str();
          if (ok()) out = b_->symbol(sym);
          break;
        }
        default: break;
      }
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
    field(o, "loc", l);
    std::vector<operand> args;
    field(o, "args", args);
    std::vector<kwarg> kws;
    {
      auto s = at(o, "kwargs");
      object k;
      if (scan(k, "kwargs")) {
        for (std::size_t i = 0; i < k.count && ok(); ++i) {
          const auto key = parse_keyword(k.fields[i].key);
          auto e = at(k, k.fields[i].key);
          if (!key) {
            fail(text("Unknown kwarg '") << k.fields[i].key << "'");
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
      elements(n, [&](std::size_t i) { region_value(region_id{first.index + static_cast<std::uint32_t>(i)}, depth + 1); });
    }
    if (!ok()) return;
    std::vector<type> types;
    std::vector<value_storage> storage;
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
      value_defs(n, names, types, storage);
    }
    if (!ok()) return;
    const op_id made = b_->emit(c, args, kws, types, names, l, nregions > 0 ? span32{first.index, nregions} : span32{});
    for (std::uint32_t i = 0; i < storage.size(); ++i) b_->set_storage(b_->fn().result(made, i), storage[i]);
    finish(o);
  }

  /// A region `{args, ops}`; `r` is reserved, or invalid for the function body (already open).
  constexpr void region_value(region_id r, int depth) {
    object o;
    if (!scan(o, "a region") || !exact(o, std::array<std::string_view, 2>{"args", "ops"}, "a region")) return;
    std::vector<type> types;
    std::vector<value_storage> storage;
    std::vector<std::string_view> names;
    {
      auto s = at(o, "args");
      const std::size_t n = array();
      if (ok() && !r.valid() && n != 0) {
        fail("the function body takes no arguments");
        return;
      }
      value_defs(n, names, types, storage);
    }
    if (!ok()) return;
    if (r.valid()) {
      b_->open_region(r, types, names);
      for (std::uint32_t i = 0; i < storage.size(); ++i) b_->set_storage(b_->fn().arg(r, i), storage[i]);
    }
    {
      auto s = at(o, "ops");
      elements(array(), [&](std::size_t) { op_value(depth); });
    }
    if (r.valid()) b_->close_region();
    finish(o);
  }

  static constexpr auto function_keys =
      keys_of<function>(std::array<std::string_view, 4>{"value_count", "params", "results", "body"});
  static constexpr auto param_keys = keys_of<param_info>(value_keys);

  constexpr function function_value() {
    object o;
    if (!scan(o, "a function") || !exact(o, function_keys, "a function")) return {};
    // The header's fields go straight into the function; the name is the first one interned.
    function_builder b(function_kind{}, {}, location{});
    b_ = &b;
    fields(o, b.fn(), all);
    {
      auto s = at(o, "value_count");
      // Why the bound: every value takes several bytes, and ids near no_id are reserved by `extent`.
      const auto limit = static_cast<std::int64_t>(in_.size() < 0xfffffff0u ? in_.size() : 0xfffffff0u);
      value_count_ = static_cast<std::uint32_t>(integer_in(0, limit, "value_count"));
      next_value_ = 0;
    }
    {
      auto s = at(o, "params");
      elements(array(), [&](std::size_t) {
        object p;
        if (!scan(p, "a parameter") || !exact(p, param_keys, "a parameter")) return;
        std::string_view pname;
        placed_type ptype;
        param_info info;
        value_fields(p, pname, ptype);
        fields(p, info, all);
        if (ok()) b.set_storage(b.param(pname, ptype.ty, info.dir, info.loc), ptype.at);
        finish(p);
      });
    }
    field(o, "results", b.fn().results);
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
    get(p, "a program");  // paths start at the program's own fields
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
template <class = void>
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
template <class = void>
constexpr result<program> deserialize(std::span<const std::uint8_t> bytes) {
  return detail::binary_reader(bytes).run();
}

/// The same, from the bytes of a file read as text. Why a template that calls the template: one
/// body in either build mode (an inline function calling the unqualified name would differ).
template <class = void>
result<program> deserialize(std::string_view bytes) {
  return deserialize<>(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(bytes.data()),  // NOLINT
                                                     bytes.size()));
}

#ifdef TILE2BUFFER_EXTERN_PIPELINE
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
result<std::vector<std::uint8_t>> serialize(const program& p);     // TILE2BUFFER_EXTERN_PIPELINE: run time only
result<program> deserialize(std::span<const std::uint8_t> bytes);  // TILE2BUFFER_EXTERN_PIPELINE: run time only
result<program> deserialize(std::string_view bytes);               // TILE2BUFFER_EXTERN_PIPELINE: run time only
}  // namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::deserialize;
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::serialize;
#endif

/// True when `bytes` starts like a binary IR file (the canonical envelope header: a 3-element
/// array whose first element is the magic string). Used to tell binary input from text.
constexpr bool is_binary(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 2 + binary_magic.size() || bytes[0] != 0x93 || bytes[1] != (0xa0 | binary_magic.size())) return false;
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
