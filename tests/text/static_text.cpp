// SPDX-License-Identifier: Apache-2.0
/// @file static_text.cpp
/// Compiling is passing: the parser and printer run in constant evaluation (clang 14 and g++ 12).
#include <cstdint>
#include <string_view>

#include "tile2buffer/ir/equal.hpp"
#include "tile2buffer/text/parse.hpp"
#include "tile2buffer/text/print.hpp"

namespace {
using namespace tile2buffer;

// Non-canonical on purpose: comments, a bare single `->` type, explicit default fields.
constexpr std::string_view source = R"(# a loop, a while and a branch over planned storage
aiv @k(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32], n: Scalar[INDEX]) -> Tensor[[16, 32], FP32] {
  m = tile.alloc(Vec, 4096, addr = 0)
  x = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec, ND, fractal=512] in m[0]
  r, k = for i in range(0, n, 1) iter(acc = x, j = 0) -> (Tile[[16, 32], FP32, Vec] in m[2048], INDEX) {
    y = tile.adds(acc, 1.50e-20) : Tile[[16, 32], FP32, Vec] in m[2048]
    j1 = 1 + j   # the literal takes j's type
    yield y, j1
  }
  w, c = while iter(a = r, q = k) -> (Tile[[16, 32], FP32, Vec] in m, INDEX) cond(q < n) {
    q2 = q * 2
    yield a, q2
  }
  flag = c >= 4
  o = if flag -> Scalar[INDEX] {
    yield 0
  } else {
    h = cast(c, INT32)
    yield c
  }
  s = tile.store(w, (o, 0), Out) : Tensor[[16, 32], FP32]
  return s
}
)";

constexpr std::string_view canonical =
    R"(aiv @k(A: Tensor[[16, 32], FP32], Out: out Tensor[[16, 32], FP32], n: Scalar[INDEX]) -> Tensor[[16, 32], FP32] {
  m = tile.alloc(Vec, 4096, addr = 0)
  x = tile.load(A, (0, 0), (16, 32)) : Tile[[16, 32], FP32, Vec] in m
  r, k = for i in range(0, n, 1) iter(acc = x, j = 0) -> (Tile[[16, 32], FP32, Vec] in m[2048], INDEX) {
    y = tile.adds(acc, 1.5e-20) : Tile[[16, 32], FP32, Vec] in m[2048]
    j1 = 1 + j
    yield y, j1
  }
  w, c = while iter(a = r, q = k) -> (Tile[[16, 32], FP32, Vec] in m, INDEX) cond(q < n) {
    q2 = q * 2
    yield a, q2
  }
  flag = c >= 4
  o = if flag -> (INDEX) {
    yield 0
  } else {
    h = cast(c, INT32)
    yield c
  }
  s = tile.store(w, (o, 0), Out) : Tensor[[16, 32], FP32]
  return s
}
)";

constexpr bool prints_canonically() {
  const auto r = parse(source, "k.t2b");
  return r.ok() && print(r.value) == canonical;
}
static_assert(prints_canonically(), "the kernel must print in the canonical form");

constexpr bool round_trips() {
  const auto a = parse(source);
  const auto b = parse(canonical);
  return a.ok() && b.ok() && structurally_equal(a.value, b.value) && print(b.value) == canonical;
}
static_assert(round_trips(), "parse(print(p)) must be structurally equal to p");

// A malformed kernel: one diagnostic, located at the offending token.
constexpr bool reports_one_located_error() {
  const auto r = parse("aiv @f(a: Scalar[INDEX]) {\n  x = tile.add(a b)\n}\n", "bad.t2b");
  return !r.ok() && r.errors.size() == 1 && r.errors[0].loc == location{2, 18} && r.errors[0].source == "parse" &&
         r.errors[0].message == "expected ',' or ')' in the operands of tile.add, found 'b'" && r.value.file == "bad.t2b";
}
static_assert(reports_one_located_error());

// The name table in constant evaluation, across a rehash (93 two-letter names, initial room for
// 32): a repeat is refused at its second position, and every name stays found at its first.
constexpr bool name_table_keeps_entries() {
  constexpr std::string_view base =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.abcdefghijklmnopqrstuvwxyzABCD";
  detail::name_table t;
  for (std::uint32_t i = 0; i + 2 <= base.size(); ++i) {
    const bool first_time = base.find(base.substr(i, 2)) == i;
    if (t.emplace(base, i, 2, i, detail::name_table::state::visible).second != first_time) return false;
  }
  for (std::uint32_t i = 0; i + 2 <= base.size(); ++i) {
    const auto* e = t.find(base, base.substr(i, 2));
    if (e == nullptr || e->value != base.find(base.substr(i, 2))) return false;
  }
  return t.find(base, "zz") == nullptr && t.find(base, "a") == nullptr;
}
static_assert(name_table_keeps_entries());

// The parser decides a statement's form by asking the lexer whether the next token is '=', ','
// or '(' without reading it (`next_is`): the answer must be what `next` then reads, across
// blanks, comments, '==' and line breaks inside and outside brackets; and a word's hash, taken
// as the lexer reads it, must be the name table's.
constexpr bool lexer_looks_ahead_as_it_reads() {
  using detail::tok;
  detail::lexer lex("a == b = c, (d\n = e) # =\n = f(\n\n, g)=\t=x");
  detail::token t;
  int seen = 0;  // tokens it said were coming: 5 '=', 2 ',' and 2 '('
  for (int i = 0; i < 64; ++i) {
    const bool equal = lex.next_is(tok::equal), comma = lex.next_is(tok::comma), lparen = lex.next_is(tok::lparen);
    seen += int{equal} + int{comma} + int{lparen};
    lex.next(t);
    if (equal != (t.kind == tok::equal) || comma != (t.kind == tok::comma) || lparen != (t.kind == tok::lparen)) return false;
    if (t.kind == tok::ident && t.hash != detail::name_table::hash(t.spelling)) return false;
    if (t.kind == tok::eof) return seen == 9;
  }
  return false;
}
static_assert(lexer_looks_ahead_as_it_reads());
}  // namespace
