// SPDX-License-Identifier: Apache-2.0
/// @file ir/verify.hpp
/// The IR verifier: SSA (defined before use, visible across regions), operand kinds and types
/// per op, region and yield arity and types, stage membership and orchestration rules. It
/// collects every error (it does not stop at the first) and never indexes past an arena, so
/// malformed IR yields diagnostics rather than undefined behaviour. O(ops + values) per function
/// (dense per-value state and a scope stack; `submit` callees resolve in O(log functions)).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/verify/state.hpp"
#include "tile2buffer/ir/verify/walk.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Checks one function of `p` (`p` resolves `submit` callees); empty when valid. Every
/// diagnostic has source "verify" and the location of the op, parameter or function at fault.
template <class = void>
constexpr std::vector<diagnostic> verify(const program& p, const function& f) {
  const detail::function_index index(p);
  std::vector<diagnostic> out;
  detail::function_verifier<>(p, index, f, out).run();
  if (detail::in_bounds(f.name, f.names.size()))
    for (diagnostic& d : out) d.function = text(f.name_of());
  return out;
}

namespace detail {
/// The program-level walk of `verify(p)`: unique function names, then `check(i, index, f, out)`
/// on each function `f` (`p.functions[i]`), whose diagnostics are named after it. A checker that
/// extends the verifier (checks/buffer.hpp) passes its own `check` and keeps this one order of
/// diagnostics.
template <class Check>
constexpr std::vector<diagnostic> verify_functions(const program& p, Check&& check) {
  const function_index index(p);
  std::vector<diagnostic> out;
  for (std::uint32_t i = 0; i < p.functions.size(); ++i) {
    const function& f = p.functions[i];
    if (in_bounds(f.name, f.names.size())) {
      const auto first = std::lower_bound(index.entries.begin(), index.entries.end(),
                                          std::pair<std::string_view, std::uint32_t>{f.name_of(), 0});
      if (first != index.entries.end() && first->first == f.name_of() && first->second != i)
        out.push_back(diagnostic{f.loc, text("verify"), text("duplicate function name '@") << f.name_of() << "'", {}});
    } else {
      out.push_back(diagnostic{f.loc, text("verify"), text("function has a malformed name"), {}});
    }
    const std::size_t first_of_f = out.size();
    check(i, index, f, out);
    if (in_bounds(f.name, f.names.size()))
      for (std::size_t k = first_of_f; k < out.size(); ++k) out[k].function = text(f.name_of());
  }
  return out;
}
}  // namespace detail

/// Checks every function of `p` and that function names are unique; empty when valid.
template <class = void>
constexpr std::vector<diagnostic> verify(const program& p) {
  return detail::verify_functions(p, [&](std::uint32_t, const detail::function_index& index, const function& f,
                                         std::vector<diagnostic>& out) { detail::function_verifier<>(p, index, f, out).run(); });
}

#ifdef TILE2BUFFER_EXTERN_PIPELINE
namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE {
std::vector<diagnostic> verify(const program& p, const function& f);  // TILE2BUFFER_EXTERN_PIPELINE: run time only
std::vector<diagnostic> verify(const program& p);                     // TILE2BUFFER_EXTERN_PIPELINE: run time only
}  // namespace compiled_by_TILE2BUFFER_EXTERN_PIPELINE
using compiled_by_TILE2BUFFER_EXTERN_PIPELINE::verify;
#endif

}  // namespace v0
}  // namespace tile2buffer
