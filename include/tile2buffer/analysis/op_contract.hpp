// SPDX-License-Identifier: Apache-2.0
/// @file analysis/op_contract.hpp
/// The selection contract before any recipe is asked: the kernel-level and per-op rules that
/// keep a kernel on Tile. `select` records the first problem as the kernel's reason; `lower`
/// (in explicit pipelines that skip `select`) fails closed with the same words. One function
/// each, so the two cannot drift apart.
#pragma once

#include <vector>

#include "tile2buffer/analysis/kernel.hpp"
#include "tile2buffer/analysis/pto_abi.hpp"
#include "tile2buffer/analysis/region_contract.hpp"
#include "tile2buffer/analysis/regions.hpp"
#include "tile2buffer/analysis/scalar_contract.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/function.hpp"

namespace tile2buffer {
inline namespace v0 {

/// Why op `o` of device kernel `f` is outside the contract whatever recipe is asked: a region op
/// outside the region contract, an orchestration op, a scalar op PTO cannot express, or a Tile op
/// with an unsigned runtime extent or a use of a replaced valid-metadata version. Empty when it
/// is inside (terminators and ops of other dialects have no rule here).
constexpr text op_contract_problem(const function& f, op_id o, const kernel_analyses& k, bool extended = false) {
  const opcode c = f.op(o).code();
  if (is_region_op(c)) {
    text why = region_op_problem(f, o, k, extended);
    return why.empty() ? why : text(mnemonic(c)) << ": " << why;
  }
  if (dialect_of(c) == dialect::orchestration) return text("a device function cannot submit tasks");
  if (dialect_of(c) == dialect::scalar) {
    text why = scalar_op_problem(f, o);
    return why.empty() ? why : text("outside the default contract: ") << why;
  }
  if (!is_tile_op(c)) return {};
  // A GM access the PTO kernel ABI forbids (a load of an out parameter, a store into an in one),
  // through the parameter the tensor operand aliases: the store's `writes` operand, every other
  // tensor operand read.
  const operand written = written_operand(f, o);
  for (const operand& x : f.args(o))
    if (x.is_value() && f.type_of(x.value()).is_tensor())
      if (text why =
              parameter_direction_problem(f, gm_alias_root(f, x.value()), written.is_value() && written.value() == x.value());
          !why.empty())
        return text(mnemonic(c)) << ": " << why;
  if (k.dynamic.any)
    if (text why = unsigned_extent_problem(f, o); !why.empty())
      return text(mnemonic(c)) << ": outside the default contract: " << why;
  if (const value_id stale = k.versions.stale_use(o); stale.valid())
    return text(mnemonic(c)) << ": " << stale_version_reason(f, stale);
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
    if (f.type_of(p.value).is_tile())
      out.push_back(parameter_problem{p.loc, text("device Tile parameters require the Buffer helper ABI recipe")});
  return out;
}

/// The parameters and results of `f` outside the PTO kernel ABI (analysis/pto_abi.hpp), in the
/// words of the PTO preflight: a kernel lowered with one of them could not be emitted. Tile
/// parameters are left to `kernel_parameter_problems`. Selection asks this after every other
/// rule, so a kernel that stays Tile for a reason of the reference keeps that reason.
constexpr std::vector<parameter_problem> kernel_abi_problems(const function& f) {
  std::vector<parameter_problem> out;
  for (const auto& p : f.params)
    if (!f.type_of(p.value).is_tile())
      for (text& why : pto_parameter_problems(f, p)) out.push_back(parameter_problem{p.loc, static_cast<text&&>(why)});
  if (text why = pto_results_problem(f); !why.empty()) out.push_back(parameter_problem{f.loc, static_cast<text&&>(why)});
  return out;
}

}  // namespace v0
}  // namespace tile2buffer
