// SPDX-License-Identifier: Apache-2.0
/// @file analysis/pto_abi.hpp
/// The PTO kernel ABI (reference §3.3, "Parameters", "Return types" and the load/store rule of
/// "Calls"): what a device kernel's parameters, results and GM accesses must be for PTO-AS to
/// hold it. One source for the two places that ask: the PTO preflight (emit/preflight.hpp)
/// rejects a Buffer kernel outside it, and selection (passes/select.hpp, through
/// analysis/op_contract.hpp) keeps a Tile kernel that would be outside it on Tile in the same
/// words, so `--lower` never produces a kernel that `--emit=pto` refuses for one of these
/// reasons. Why below the passes: the emitter sits above the pipeline, which cannot include it.
#pragma once

#include <cstdint>
#include <vector>

#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/typed_op.hpp"
#include "tile2buffer/ir/walk.hpp"

namespace tile2buffer {
inline namespace v0 {

/// The element types of a PTO tensor parameter.
constexpr bool is_pto_tensor_dtype(dtype d) {
  return d == dtype::fp16 || d == dtype::bf16 || d == dtype::fp32 || d == dtype::int32 || d == dtype::int8;
}

/// Whether one-column tensor parameter `param` of `f` is accessed, at least once, and only as a
/// column: every load from it fills a column vector, every store into it drains one (a Tile store's
/// result names the same tensor; the return may name it). Such a tensor is written as a DN view,
/// the contiguous column a2a3 moves a DN tile through (quantized-path.md §2.4, docs/pto-as.md
/// "Column vectors and GM"), and only the extended rollout lowers column-vector transfers.
constexpr bool column_only_tensor(const function& f, value_id param) {
  // Why not vector<bool>: clang-14 cannot construct it in constant evaluation (libstdc++ 12).
  std::vector<std::uint8_t> alias(f.values.size(), 0);
  alias[param.index] = 1;
  bool used = false, other = false;
  const auto column = [&](const operand& x) { return x.is_value() && is_column_vector(f.type_of(x.value())); };
  walk(f, [&](op_id o) {
    bool mine = false;
    for (const operand& a : f.args(o)) mine = mine || (a.is_value() && alias[a.value().index] != 0);
    if (!mine) return;
    switch (f.op(o).code()) {
      case opcode::tile_load: other = other || !is_column_vector(f.type_of(f.result(o))); break;
      case opcode::buffer_load: other = other || !column(typed<buffer::load>(f, o).dest()); break;
      case opcode::buffer_store: other = other || !column(typed<buffer::store>(f, o).source()); break;
      case opcode::tile_store:
        other = other || !column(typed<tile::store>(f, o).tile());
        alias[f.result(o).index] = 1;
        break;
      default:
        if (!has_trait(f.op(o).code(), trait::exits_function)) other = true;
        return;
    }
    used = true;
  });
  return used && !other;
}

/// Every reason parameter `p` of `f` is outside the PTO kernel ABI, in a fixed order (kind,
/// dtype, shape, layout, strides); empty when it is inside. Each names the parameter.
constexpr std::vector<text> pto_parameter_problems(const function& f, const param_info& p) {
  std::vector<text> out;
  const type& t = f.type_of(p.value);
  const std::string_view n = f.name_of(p.value);
  if (!t.is_scalar() && !t.is_tensor()) {
    out.push_back(text("parameter '") << n
                                      << "' is not a GM tensor or a scalar; the PTO kernel ABI has no buffer or tile parameters");
    return out;
  }
  if (!t.is_tensor()) return out;
  if (!is_pto_tensor_dtype(t.dt))
    out.push_back(text("GM parameter '") << n << "' has dtype " << name(t.dt)
                                         << "; PTO tensor parameters are FP16, BF16, FP32, INT32 or INT8");
  if (t.shape[0] <= 0 || (t.shape[1] <= 1 && !(t.shape[1] == 1 && column_only_tensor(f, p.value))))
    out.push_back(text("GM parameter '") << n << "' needs a static shape with rows > 0 and columns > 1, got [" << t.shape[0]
                                         << ", " << t.shape[1] << ']');
  if (t.tlayout != tensor_layout::nd)
    out.push_back(text("GM parameter '") << n << "' has layout " << name(t.tlayout) << "; PTO tensor views require ND layout");
  if (t.has_stride && (t.stride[0] != t.shape[1] || t.stride[1] != 1))
    out.push_back(text("GM parameter '") << n << "' has strides [" << t.stride[0] << ", " << t.stride[1]
                                         << "]; PTO tensor views need packed strides [" << t.shape[1] << ", 1]");
  return out;
}

/// Why the declared results of kernel `f` are outside the PTO kernel ABI, or empty: a kernel
/// returns GM tensor parameters only.
constexpr text pto_results_problem(const function& f) {
  for (const type& t : f.results)
    if (!t.is_tensor()) return text("every result must be a GM tensor parameter; a kernel cannot return a scalar or buffer");
  return {};
}

/// Why a GM access that writes (`write`) or reads tensor parameter `param` of `f` is outside the
/// PTO kernel ABI, or empty: a load reads a parameter whose direction is not out, a store writes
/// one whose direction is not in. The text follows the access's mnemonic: "cannot read 'Out',
/// an out parameter (parameter direction out: the kernel only writes it)".
constexpr text parameter_direction_problem(const function& f, value_id param, bool write) {
  if (!param.valid() || param.index >= f.values.size() || f.value(param).origin() != value_origin::param) return {};
  const direction d = f.params[f.value(param).index].dir;
  const direction forbidden = write ? direction::in : direction::out;
  if (d != forbidden) return {};
  return text("cannot ") << (write ? "write '" : "read '") << f.name_of(param) << "', an " << name(d)
                         << " parameter (parameter direction " << name(d) << ": the kernel only " << (write ? "reads" : "writes")
                         << " it)";
}

}  // namespace v0
}  // namespace tile2buffer
