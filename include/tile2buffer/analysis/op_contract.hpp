// SPDX-License-Identifier: Apache-2.0
/// @file analysis/op_contract.hpp
/// The selection contract before any recipe is asked: the kernel-level and per-op rules that
/// keep a kernel on Tile. `select` records the first problem as the kernel's reason; `lower`
/// (in explicit pipelines that skip `select`) fails closed with the same words. One function
/// each, so the two cannot drift apart.
#pragma once

#include <vector>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/region_contract.hpp"
#include "tile2buffer/analysis/scalar_contract.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/function.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Why op `o` of device kernel `f` is outside the contract whatever recipe is asked: a region op
/// outside the region contract, an orchestration op, a scalar op PTO cannot express, or a Tile op
/// with an unsigned runtime extent or a use of a replaced valid-metadata version. Empty when it
/// is inside (terminators and ops of other dialects have no rule here).
constexpr text op_contract_problem(const function& f, op_id o, const kernel_analyses& k) {
  const opcode c = f.op(o).code();
  if (is_region_op(c)) {
    text why = region_op_problem(f, o, k);
    return why.empty() ? why : text(mnemonic(c)) << ": " << why;
  }
  if (dialect_of(c) == dialect::orchestration) return text("a device function cannot submit tasks");
  if (dialect_of(c) == dialect::scalar) {
    text why = scalar_op_problem(f, o);
    return why.empty() ? why : text("outside the default contract: ") << why;
  }
  if (!is_tile_op(c)) return {};
  if (k.dynamic.any)
    if (text why = unsigned_extent_problem(f, o); !why.empty()) return text(mnemonic(c)) << ": outside the default contract: " << why;
  if (const value_id stale = k.versions.stale_use(o); stale.valid()) return text(mnemonic(c)) << ": " << stale_version_reason(f, stale);
  return {};
}

/// The parameters of `f` outside the kernel contract, each with its reason: a Tile parameter
/// needs the Buffer helper ABI, which the default contract lacks.
struct parameter_problem {
  location loc;
  text reason;
};
constexpr std::vector<parameter_problem> kernel_parameter_problems(const function& f) {
  std::vector<parameter_problem> out;
  for (const auto& p : f.params)
    if (f.type_of(p.value).is_tile()) out.push_back(parameter_problem{p.loc, text("device Tile parameters require the Buffer helper ABI recipe")});
  return out;
}

}  // namespace v0
}  // namespace tile2buffer
