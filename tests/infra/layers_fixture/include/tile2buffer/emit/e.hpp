// Fixture: the emitter including a header of passes/ (not a pass file), which the checker must report.
#pragma once
#include "tile2buffer/passes/part.hpp"
