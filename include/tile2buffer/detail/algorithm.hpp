// SPDX-License-Identifier: Apache-2.0
/// @file detail/algorithm.hpp
/// The classic algorithms (`std::sort`, `std::lower_bound`, `std::binary_search`, `std::unique`,
/// `std::find`) without C++20's range algorithms.
///
/// Why not <algorithm> itself: under C++20, libstdc++'s <algorithm> also declares every
/// `std::ranges` algorithm with its concepts, which costs each TU that includes
/// <tile2buffer/lower.hpp> about 15 MB of compiler memory and 0.15 s, and tips g++-12 into a
/// garbage collection (another 0.25 s); the library uses none of them. <bits/stl_algo.h> is where
/// libstdc++ has kept the classic ones since GCC 3; any other standard library gets <algorithm>.
#pragma once

#include <version>

#if defined(__GLIBCXX__) && __has_include(<bits/stl_algo.h>)
#include <bits/stl_algobase.h>
#include <bits/stl_algo.h>
#else
#include <algorithm>
#endif
