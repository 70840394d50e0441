// SPDX-License-Identifier: Apache-2.0
/// @file emitter_model_missing_ok.cpp
/// Twin: the PTO emitter's own rule table has one rule per Buffer op.
#include "tile2buffer/emit/pto.hpp"

namespace t2b = tile2buffer;
static_assert(t2b::detail::pto_rules_cover_buffer_ops<t2b::detail::first_buffer_op_without_rule(t2b::detail::pto_rules)>());
