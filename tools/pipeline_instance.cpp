// SPDX-License-Identifier: Apache-2.0
/// @file pipeline_instance.cpp
/// Meson's `tile2buffer-pipeline` library: the default pipeline compiled once, for hosts (and
/// this project's tools and tests) built with TILE2BUFFER_EXTERN_PIPELINE.
#include "tile2buffer/pipeline_instance.hpp"
