// Fixture: half of an include cycle inside one unit.
#pragma once
#include "tile2buffer/low/d.hpp"
