// SPDX-License-Identifier: Apache-2.0
/// @file passes/verify_buffer.hpp
/// verify_buffer (BufferIR verifier, reference §4.4): the pass over checks/buffer.hpp, which `lower`
/// asks of its own output and the PTO emitter of its input.
#pragma once

#include <string_view>
#include <vector>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/checks/buffer.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/options.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The pass: the structural verifier on the whole program, then the Buffer storage proofs on
/// every Buffer-stage function (`buffer_errors`, checks/buffer.hpp).
template <class = void>
constexpr result<program> verify_buffer(const program& p, const options&) {
  result<program> r;
  r.errors = buffer_errors(p);
  if (r.ok()) r.value = p;
  return r;
}

/// The pass as pass sets register it (passes/table.hpp). Its checks include the structural
/// verifier on the whole program.
struct verify_buffer_pass {
  static constexpr std::string_view name = "verify_buffer";
  static constexpr bool buffer_ir_only = true;
  static constexpr bool verifies_program = true;
  static constexpr std::vector<diagnostic> check(const program& p, const options&, analysis_cache&) { return buffer_errors(p); }
};

}  // namespace v0
}  // namespace tile2buffer
