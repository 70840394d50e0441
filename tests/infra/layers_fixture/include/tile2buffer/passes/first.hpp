// Fixture: a pass file that includes no pass (allowed).
#pragma once
#include "tile2buffer/base.hpp"

struct first_pass {};
