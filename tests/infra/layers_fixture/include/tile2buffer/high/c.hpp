// Fixture: a higher layer including a lower one (allowed).
#pragma once
#include "tile2buffer/low/b.hpp"
