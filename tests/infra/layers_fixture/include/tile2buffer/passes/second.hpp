// Fixture: a pass file including another pass file, which the checker must report.
#pragma once
#include "tile2buffer/passes/first.hpp"

struct second_pass {};
