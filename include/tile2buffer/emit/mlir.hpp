// SPDX-License-Identifier: Apache-2.0
/// @file emit/mlir.hpp
/// MLIR and PTO-AS spellings of IR types (scalars, GM tensor pointers and views, tile buffers)
/// and the unique SSA names of one emitted function.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/types.hpp"
#include "tile2buffer/text/name_table.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace detail {

/// The MLIR element type of a dtype (unsigned integers keep their `ui` spelling; arith
/// only takes signless integers, so the emitter reinterprets them before arithmetic).
constexpr std::string_view mlir_type(dtype d) {
  switch (d) {
    case dtype::bool_: return "i1";
    case dtype::int8: return "i8";
    case dtype::uint8: return "ui8";
    case dtype::int16: return "i16";
    case dtype::int32: return "i32";
    case dtype::uint32: return "ui32";
    case dtype::int64: return "i64";
    case dtype::fp16: return "f16";
    case dtype::bf16: return "bf16";
    case dtype::fp32: return "f32";
    case dtype::index: return "index";
  }
  return "?";
}
/// The signless integer of the same width (`ui8` -> `i8`).
constexpr dtype signless(dtype d) { return d == dtype::uint8 ? dtype::int8 : d == dtype::uint32 ? dtype::int32 : d; }

constexpr std::string_view space_spelling(memory_space s) {
  switch (s) {
    case memory_space::vec: return "vec";
    case memory_space::mat: return "mat";
    case memory_space::left: return "left";
    case memory_space::right: return "right";
    case memory_space::acc: return "acc";
  }
  return "?";
}

constexpr void append_extent(text& out, const extent& e) {
  if (e.is_static()) out << e.number;
  else out << '?';
}

/// The block layout ptoas holds for a tile on `target`. Its parser rewrites a Left tile's blayout
/// to row_major on a2/a3 and to col_major on a5 (slayout untouched), so that is what we print:
/// the text then means what the assembler checks (pto-dialect.md §2 "Left rewrite", §6).
constexpr box_layout assembler_blayout(const type& t, target_arch target) {
  if (t.space != memory_space::left) return t.blayout;
  return target == target_arch::a5 ? box_layout::col_major : box_layout::row_major;
}

/// `!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major,
/// slayout=none_box, fractal=512, pad=0>`; a runtime valid extent prints `?`, pad its code, and
/// `compact=N` (the integer code ptoas parses: 1 normal) is appended only when compaction is set.
constexpr text tile_buf_type(const type& t, target_arch target) {
  text out;
  out << "!pto.tile_buf<loc=" << space_spelling(t.space) << ", dtype=" << mlir_type(t.dt) << ", rows=" << t.shape[0]
      << ", cols=" << t.shape[1] << ", v_row=";
  append_extent(out, t.valid[0]);
  out << ", v_col=";
  append_extent(out, t.valid[1]);
  out << ", blayout=" << name(assembler_blayout(t, target)) << ", slayout=" << name(t.slayout)
      << ", fractal=" << static_cast<std::int64_t>(t.fractal) << ", pad=" << static_cast<int>(t.pad);
  if (t.compact != compact_mode::null) out << ", compact=" << static_cast<int>(t.compact);
  out << '>';
  return out;
}
/// The module's `pto.target_arch`: ptoas checks a module with a2/a3 rules unless it reads "a5";
/// "a3" (not PyPTO's "a2a3", which ptoas replaces by its default) also arms the a3-only checks.
constexpr std::string_view target_arch_spelling(target_arch t) { return t == target_arch::a5 ? "a5" : "a3"; }

constexpr text ptr_type(dtype d) { return text("!pto.ptr<") << mlir_type(d) << '>'; }
constexpr text tensor_view_type(dtype d) { return text("!pto.tensor_view<?x?x") << mlir_type(d) << '>'; }

/// The MLIR spelling of a scalar or Buffer type on `target` (the only value types an emitted kernel has).
constexpr text value_type(const type& t, target_arch target) {
  if (t.is_buffer()) return tile_buf_type(t, target);
  if (t.is_tensor()) return ptr_type(t.dt);
  return text(mlir_type(t.dt));
}

/// Unique SSA names for one function, MLIR style: a wanted name, else `name_0`, `name_1`, ...
class ssa_names {
 public:
  /// Takes `base` (or the first free suffixed form) and returns it without the `%`.
  constexpr text take(std::string_view base) {
    text cand(base.empty() ? std::string_view("v") : base);
    if (!claim(cand.view())) {
      const text stem = cand;
      for (std::int64_t k = 0;; ++k) {
        cand.clear();
        cand << stem << '_' << k;
        if (claim(cand.view())) break;
      }
    }
    return cand;
  }
  /// Marks `name` as used without handing it out (ABI names the signature spells itself).
  constexpr void reserve(std::string_view name) { (void)claim(name); }

 private:
  [[nodiscard]] constexpr std::string_view pool() const {
    return pool_.empty() ? std::string_view{} : std::string_view(pool_.data(), pool_.size());
  }
  constexpr bool claim(std::string_view n) {
    if (used_.find(pool(), n) != nullptr) return false;
    const auto begin = static_cast<std::uint32_t>(pool_.size());
    pool_.insert(pool_.end(), n.begin(), n.end());
    used_.insert(pool(), begin, static_cast<std::uint32_t>(n.size()), 1, name_table::state::visible);
    return true;
  }
  std::vector<char> pool_;
  name_table used_;
};

}  // namespace detail
}  // namespace v0
}  // namespace tile2buffer
