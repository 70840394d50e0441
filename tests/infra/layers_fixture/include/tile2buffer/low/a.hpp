// Fixture: the upward include the checker must report.
#pragma once
#include "tile2buffer/base.hpp"
#include "tile2buffer/high/c.hpp"
