// SPDX-License-Identifier: Apache-2.0
/// @file engine/options.hpp
/// Pass options, the scoped context that carries them, and the cache key that includes them.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tile2buffer/config.hpp"
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

/// Plain aggregate of pass options.
struct options {
  bool enable_buffer_ir = true;
  planner_kind planner = planner_kind::pypto;
  target_arch target = target_arch::a2a3;
  bool verify = true;  ///< automatic verification after each pass; storage closure is checked regardless
  friend constexpr bool operator==(const options&, const options&) = default;
};

/// Key for compilation caches: two option sets share artifacts iff their keys are equal.
constexpr text cache_key(const options& o) {
  text k;
  k << "t2b/enable_buffer_ir=" << (o.enable_buffer_ir ? 1 : 0) << ";buffer_semantics=" << buffer_semantics_version
    << ";planner=" << name(o.planner) << ";target=" << name(o.target) << ";verify=" << (o.verify ? 1 : 0);
  return k;
}

/// Scoped options, per thread. Nested scopes inherit and override; a worker thread does not
/// inherit its spawner's scopes: hand it `context::current()` and open a scope there
/// (`context::scope s(captured);`), as precompile workers must.
class context {
 public:
  [[nodiscard]] static options current() {
    const auto& s = stack();
    return s.empty() ? options{} : s.back();
  }
  class scope {
   public:
    explicit scope(const options& o) { stack().push_back(o); }
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
    ~scope() { stack().pop_back(); }
  };

 private:
  static std::vector<options>& stack() {
    thread_local std::vector<options> s;
    return s;
  }
};

}  // namespace v0
}  // namespace tile2buffer
