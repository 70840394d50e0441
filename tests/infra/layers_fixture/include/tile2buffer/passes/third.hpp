// Fixture: a pass file reaching another pass file through a pass part, which the checker must report.
#pragma once
#include "tile2buffer/passes/part.hpp"

struct third_pass {};
