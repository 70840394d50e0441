// SPDX-License-Identifier: Apache-2.0
/// @file options.hpp
/// Pass options and the cache key that includes them. A base header: `plan/`, `concepts/` and
/// everything above read it; the scoped `context` that carries options lives in `engine/options.hpp`.
#pragma once

#include <cstdint>
#include <string_view>

#include <boost/hana/adapt_struct.hpp>

#include "tile2buffer/config.hpp"
#include "tile2buffer/detail/reflect.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/enums.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The three memory planners of the spec. PYPTO and DSA_RP give final byte addresses;
/// PTOAS gives allocation identities without addresses.
enum class planner_kind : std::uint8_t { pypto, dsa_rp, ptoas };
inline constexpr std::string_view planner_names[] = {"pypto", "dsa_rp", "ptoas"};
constexpr std::string_view name(planner_kind p) { return planner_names[static_cast<int>(p)]; }
constexpr bool addressed(planner_kind p) { return p != planner_kind::ptoas; }

/// Which recipes selection and lowering consult (extended-rollout spec §1.1): `standard` is the
/// spec's default rollout, exactly; `extended` adds the recipes a set declares outside it
/// (`default_rollout = false`). Spelled "default" and "extended" in text (`--rollout=`, the cache key).
enum class rollout_kind : std::uint8_t { standard, extended };
inline constexpr std::string_view rollout_names[] = {"default", "extended"};
constexpr std::string_view name(rollout_kind r) { return rollout_names[static_cast<int>(r)]; }

/// Plain aggregate of pass options. A new member must also be listed in the
/// `BOOST_HANA_ADAPT_STRUCT` below (tile2buffer/self_check.hpp checks it), which puts it in `cache_key`.
struct options {
  bool enable_buffer_ir = true;
  planner_kind planner = planner_kind::pypto;
  target_arch target = target_arch::a2a3;
  /// Structural verification of the pipeline's input and of its output. The checking passes
  /// (`verify_tile_storage`, `verify_buffer`) run regardless.
  bool verify = true;
  /// Structural verification after every pass as well (MLIR's `-verify-each`): for debugging a
  /// pass; costs about as much as the passes themselves.
  bool verify_each = false;
  /// The recipes selection and lowering may use; only matters with `enable_buffer_ir`.
  rollout_kind rollout = rollout_kind::standard;
  friend constexpr bool operator==(const options&, const options&) = default;
};

}  // namespace v0
}  // namespace tile2buffer

// Why adapt rather than BOOST_HANA_DEFINE_STRUCT: DEFINE_STRUCT declares the members itself and
// leaves no room for default member initializers, which `options{}` and designated initializers need.
BOOST_HANA_ADAPT_STRUCT(tile2buffer::options, enable_buffer_ir, planner, target, verify, verify_each, rollout);

namespace tile2buffer {
inline namespace v0 {

/// Key for compilation caches: two option sets share artifacts iff their keys are equal.
/// `t2b/buffer_semantics=N` then `;member=value` for every member of `options`, in declaration order.
constexpr text cache_key(const options& o) {
  text k;
  k << "t2b/buffer_semantics=" << buffer_semantics_version;
  detail::append_members_as_key(k, o);
  return k;
}

}  // namespace v0
}  // namespace tile2buffer
