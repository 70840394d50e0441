// SPDX-License-Identifier: Apache-2.0
/// @file sim/tile_interpreter.hpp
/// The state of a Tile run: every Tile value is its own image, GM tensors are the parameters'
/// memory (see run_tile.hpp for the rules), and the helpers the Tile models (models_tile.hpp)
/// read operands and define results with.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/interpreter.hpp"
#include "tile2buffer/sim/model_table.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {
namespace detail {

/// The stored bytes of (r, c) of `im`; outside its valid rectangle the element is undefined.
inline element_bits image_bits(const image& im, std::int64_t r, std::int64_t c, cell_meta& m) {
  element_bits e;
  if (r < im.valid_rows && c < im.valid_cols) e = im.read_bits(r, c, m);
  else m = cell_meta{};  // also past the physical shape
  if (m.state == cell_state::unset) m.origin = im.value;
  return e;
}
/// The value of (r, c) of `im`, for arithmetic (see image_bits).
inline element image_value(const image& im, std::int64_t r, std::int64_t c, cell_meta& m) {
  return decode(im.desc.dt, image_bits(im, r, c, m));
}
inline bool inside(const type& t, std::int64_t r, std::int64_t c) {
  return r >= 0 && c >= 0 && r <= t.shape[0] && c <= t.shape[1];
}

/// A Tile run in progress: the shared interpreter state, GM, and the helpers of the Tile models.
class tile_interpreter : public interpreter<tile_interpreter> {
 public:
  tile_interpreter(const function& f, const sim_inputs& in, const sim_options& opt, const model<tile_interpreter>* models)
      : interpreter(f, opt, "sim.tile", models), gm_(bind_params(in)) {}

  /// The memory of every tensor parameter; after a failed run, as the failing op left it.
  run_result finish() {
    run_result r;
    r.fn = &f_;
    r.errors = std::move(errors_);
    r.tensors.resize(f_.params.size());
    for (std::size_t p = 0; p < gm_.size(); ++p)
      if (gm_[p]) r.tensors[p] = std::move(*gm_[p]);
    return r;
  }

  //===--- helpers of the models ---===//
  const image* tile_arg(op_id o, const operand& a) {
    const slot s = operand_slot(a);
    if (s.k != slot::kind::tile || !s.tile) {
      fail(o, "expected a tile operand");
      return nullptr;
    }
    // Why: the slot copy keeps the image alive only until return; the env keeps it alive longer.
    return a.kind == operand_kind::value ? env_[a.ref].tile.get() : nullptr;
  }
  const slot* tensor_arg(op_id o, const operand& a) {
    if (a.kind != operand_kind::value || env_[a.ref].k != slot::kind::tensor) {
      fail(o, "expected a GM tensor operand");
      return nullptr;
    }
    return &env_[a.ref];
  }
  /// A fresh result image of the op's result type, valid from that type.
  bool fresh_result(op_id o, image& out) {
    const type& rt = result_type(o);
    std::array<std::int64_t, 2> v{};
    if (!tile_valid(o, rt, v)) return false;
    if (rt.slayout != box_layout::none_box && !whole_boxes(rt)) return fail(o, "boxed tile needs whole-box extents");
    out = image::fresh(rt, v[0], v[1]);
    return true;
  }
  bool set_result(op_id o, image&& im) {
    im.value = f_.result(o).index;
    slot s;
    s.k = slot::kind::tile;
    s.tile = std::make_shared<const image>(std::move(im));
    bind(f_.result(o), std::move(s));
    return true;
  }

  std::vector<std::optional<gm_tensor>> gm_;  ///< per parameter: its GM memory (tensor parameters only)
};

}  // namespace detail
}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
