// Fixture: a pass part (no pass of the list) that includes a pass file.
#pragma once
#include "tile2buffer/passes/first.hpp"
