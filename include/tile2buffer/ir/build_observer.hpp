// SPDX-License-Identifier: Apache-2.0
/// @file ir/build_observer.hpp
/// What a `function_builder` reports while it writes a function, in the order it writes it: a
/// region opened (its arguments defined), an op appended (its results defined; a region op after
/// its closed regions), a region closed (its op list final), a value placed in storage. `lower`
/// verifies its output through this as it is written (checks/buffer.hpp) instead of walking the
/// finished function again.
#pragma once

#include "tile2buffer/ir/ids.hpp"

namespace tile2buffer {
inline namespace v0 {

class build_observer {
 public:
  constexpr build_observer() = default;
  build_observer(const build_observer&) = delete;
  build_observer& operator=(const build_observer&) = delete;
  constexpr virtual ~build_observer() = default;

  constexpr virtual void region_opened(region_id) {}
  constexpr virtual void op_emitted(op_id) {}
  constexpr virtual void region_closed(region_id) {}
  constexpr virtual void storage_placed(value_id) {}
};

}  // namespace v0
}  // namespace tile2buffer
