// Fixture: the lowest layer.
#pragma once
