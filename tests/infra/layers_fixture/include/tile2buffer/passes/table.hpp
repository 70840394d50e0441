// Fixture: the registry lists the passes and includes every pass file (allowed).
#pragma once
#include "tile2buffer/passes/first.hpp"
#include "tile2buffer/passes/second.hpp"
#include "tile2buffer/passes/third.hpp"

struct default_passes : pass_list<first_pass, second_pass, third_pass> {};
