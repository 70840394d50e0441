// SPDX-License-Identifier: Apache-2.0
/// @file self_check.hpp
/// Compile-time checks that the library's own structs agree with the code that walks them:
/// every member of `options` reaches `cache_key`, and `type`'s hand-written `==` compares every
/// member. They cost about 0.3 s of constant evaluation, which every TU that includes
/// <tile2buffer/lower.hpp> would pay for a fact that depends only on the library's source, so
/// they are compiled once per build instead: <tile2buffer/pipeline_instance.hpp> (the
/// `tile2buffer-pipeline` library, `t2b-opt`) includes this header and the test suite compiles it
/// on its own (tests/infra, one TU per public header), and an
/// edit that breaks one of them does not build. A host may include it too; it costs only time.
#pragma once

#include "tile2buffer/config.hpp"
#if TILE2BUFFER_CXX20

#include "tile2buffer/ir/type_hash.hpp"
#include "tile2buffer/options.hpp"

namespace tile2buffer {
inline namespace v0 {

static_assert(detail::every_member_changes<options>([](const options& o) { return cache_key(o); }),
              "every member of tile2buffer::options must reach cache_key: list it in "
              "BOOST_HANA_ADAPT_STRUCT(tile2buffer::options, ...) in tile2buffer/options.hpp");
static_assert(detail::equality_sees_every_member(), "tile2buffer::type's operator== must compare every member listed here");

}  // namespace v0
}  // namespace tile2buffer

#endif  // TILE2BUFFER_CXX20
