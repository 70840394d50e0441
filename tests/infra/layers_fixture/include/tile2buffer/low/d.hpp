// Fixture: the other half of the cycle.
#pragma once
#include "tile2buffer/low/b.hpp"
