// SPDX-License-Identifier: Apache-2.0
/// @file ir/coverage.hpp
/// The one check behind every per-op table: "each key of kind K has exactly one entry (and no
/// other key has any)". The op records themselves, the verifier's rules, each simulator model
/// set, the PTO emitter's rules and read-back, and the elementwise tables all ask it, each
/// reporting a gap with its own named error (the compile-fail tests match those names).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace tile2buffer {
inline namespace v0 {

/// How many entries a key of a table must have.
enum class entries : std::uint8_t { none, at_most_one, exactly_one, at_least_one };

/// The first key that breaks its `entries`, with how many entries it has; `key == N` when none.
struct coverage_gap {
  std::size_t key = 0;
  std::size_t count = 0;
  [[nodiscard]] constexpr bool found(std::size_t n) const { return key < n; }
};

/// Counts `key_of(row)` over `rows` (a key outside [0, N) is a gap at once: a row for nothing)
/// and returns the first key k whose count breaks `needs(k)`.
constexpr bool satisfies(entries want, std::size_t count) {
  switch (want) {
    case entries::none: return count == 0;
    case entries::at_most_one: return count <= 1;
    case entries::exactly_one: return count == 1;
    case entries::at_least_one: return count >= 1;
  }
  return false;
}

/// The first key k of per-key counts `seen` whose count breaks `needs(k)`; `key == N` when none.
template <std::size_t N, class Needs>
constexpr coverage_gap first_count_gap(const std::array<std::size_t, N>& seen, Needs needs) {
  for (std::size_t k = 0; k < N; ++k)
    if (!satisfies(needs(k), seen[k])) return {k, seen[k]};
  return {N, 0};
}

/// Counts `key_of(row)` over `rows` and returns the first key whose count breaks `needs(k)`. A
/// key outside [0, N) (a row for nothing) is a gap of its own, reported as key N + 1.
template <std::size_t N, class Rows, class KeyOf, class Needs>
constexpr coverage_gap first_coverage_gap(const Rows& rows, KeyOf key_of, Needs needs) {
  std::array<std::size_t, N> seen{};
  for (const auto& row : rows) {
    const std::size_t k = static_cast<std::size_t>(key_of(row));
    if (k >= N) return {N + 1, 1};
    ++seen[k];
  }
  return first_count_gap(seen, needs);
}

}  // namespace v0
}  // namespace tile2buffer
