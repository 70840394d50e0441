// SPDX-License-Identifier: Apache-2.0
/// @file engine/options.hpp
/// The scoped context that carries pass options (`options` itself is in `tile2buffer/options.hpp`).
#pragma once

#include <vector>

#include "tile2buffer/options.hpp"

namespace tile2buffer {
inline namespace v0 {

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
