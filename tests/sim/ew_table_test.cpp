// SPDX-License-Identifier: Apache-2.0
/// @file ew_table_test.cpp
/// The simulator's elementwise arithmetic (sim/kernels.hpp `ew_table`) pinned against values
/// written out by hand from the spec (reference-semantics.md §9.3, IEEE 754 binary16/binary32
/// round-to-nearest-even, two's-complement INT32), not against another run of the simulator.
///
/// Both interpreters share `ew_table`, so the Tile-vs-Buffer comparison cannot see a wrong formula
/// there; this table can. Every row x dtype of the spec's `elementwise_table` has hand rows (a
/// static_assert below stops the build otherwise), and every float row feeds negative, +0, -0,
/// subnormal, infinite and NaN inputs. Each case goes through the simulator's own element path:
/// operand bytes -> `read_element` -> `ew_apply` (Tile op, then its Buffer twin) ->
/// `write_element` -> result bytes, compared with the expected bit pattern.
///
/// Where the spec is silent or marks a point [U] (NaN or signed zero in maximum/minimum/relu,
/// lrelu at x = 0), the row is marked `basis::unspecified`: it records the simulator's current
/// choice so that a change is deliberate, not what the spec requires.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "tile2buffer/ir/enums.hpp"
#include "tile2buffer/ir/opcode.hpp"
#include "tile2buffer/recipe/spec_tables.hpp"
#include "tile2buffer/sim/kernels.hpp"
#include "tile2buffer/sim/numeric.hpp"

using namespace tile2buffer;

namespace {

/// How the result is compared.
enum class expect : std::uint8_t {
  bits,  ///< exactly this bit pattern
  nan,   ///< any NaN of the element type (payload and sign are not pinned)
  ulp1,  ///< FP32 within one unit in the last place (exp/log/sqrt/div/recip values that are not exact)
};
/// Where the expected value comes from.
enum class basis : std::uint8_t {
  spec,         ///< §9.3 / IEEE 754 round-to-nearest-even / two's-complement wrap
  unspecified,  ///< spec silent or [U]: the simulator's current choice, pinned so a change is deliberate
};

/// One hand-written case. Operands and result are bit patterns of the element type (FP16 in the
/// low 16 bits, INT32 as its two's-complement uint32). `y` is the second tile operand, the scalar
/// of a scalar form, or the fill value of tile.full; unary ops ignore it, tile.full ignores `x`.
struct ew_case {
  opcode op;
  dtype dt;
  std::uint32_t x;
  std::uint32_t y;
  std::uint32_t want;
  expect how = expect::bits;
  basis why = basis::spec;
};

constexpr auto F16 = dtype::fp16;
constexpr auto F32 = dtype::fp32;
constexpr auto I32 = dtype::int32;
constexpr auto NaN = expect::nan;
constexpr auto ULP = expect::ulp1;
constexpr auto BITS = expect::bits;
constexpr auto U = basis::unspecified;

// FP32 bit patterns used below (written out, not converted).
constexpr std::uint32_t p0 = 0x00000000, n0 = 0x80000000;  // +0, -0
constexpr std::uint32_t one = 0x3F800000, two = 0x40000000, three = 0x40400000, four = 0x40800000;
constexpr std::uint32_t five = 0x40A00000, six = 0x40C00000, half = 0x3F000000, one5 = 0x3FC00000;
constexpr std::uint32_t m1 = 0xBF800000, m2 = 0xC0000000, m3 = 0xC0400000, m5 = 0xC0A00000, m6 = 0xC0C00000;
constexpr std::uint32_t inf = 0x7F800000, minf = 0xFF800000, qnan = 0x7FC00000, mqnan = 0xFFC00000;
constexpr std::uint32_t fmax = 0x7F7FFFFF, mfmax = 0xFF7FFFFF;  // ±3.40282347e38
constexpr std::uint32_t dmin = 0x00000001, mdmin = 0x80000001;  // ±2^-149 (smallest subnormal)
constexpr std::uint32_t nmin = 0x00800000;                      // 2^-126 (smallest normal)
constexpr std::uint32_t tenth = 0x3DCCCCCD;                     // 0.1f
// FP16 bit patterns.
constexpr std::uint32_t h1 = 0x3C00, h2 = 0x4000, h3 = 0x4200, hm2 = 0xC000, hm5 = 0xC500;
constexpr std::uint32_t hinf = 0x7C00, hminf = 0xFC00, hnan = 0x7E00, hmax = 0x7BFF;  // 65504
constexpr std::uint32_t hn0 = 0x8000;
// Signalling NaNs (quiet bit clear, payload non-zero): arithmetic may quiet them (IEEE 754 §6.2),
// so only NaN-ness is pinned; pure copies must keep them bit for bit (ops_test.cpp).
constexpr std::uint32_t snan = 0x7F800001, msnan = 0xFFA00001, hsnan = 0x7C01, hmsnan = 0xFD55;

using o = opcode;
// clang-format off
inline constexpr ew_case cases[] = {
    //--- add: FP32 (IEEE binary32, RNE) ---
    {o::tile_add, F32, one, two, three},
    {o::tile_add, F32, m5, three, m2},
    {o::tile_add, F32, p0, n0, p0},                        // +0 + -0 = +0
    {o::tile_add, F32, n0, n0, n0},                        // -0 + -0 = -0
    {o::tile_add, F32, three, m3, p0},                     // x + (-x) = +0 under RNE
    {o::tile_add, F32, one, 0x33800000, one},              // 1 + 2^-24: tie, even -> 1
    {o::tile_add, F32, 0x3F800001, 0x33800000, 0x3F800002}, // (1+2^-23) + 2^-24: tie, even -> 1+2^-22
    {o::tile_add, F32, dmin, dmin, 0x00000002},            // subnormal sum, exact
    {o::tile_add, F32, 0x007FFFFF, dmin, nmin},            // largest subnormal + ulp = smallest normal
    {o::tile_add, F32, fmax, 0x73000000, inf},             // max + 2^103 (half ulp): tie, odd -> up -> +inf
    {o::tile_add, F32, mfmax, mfmax, minf},
    {o::tile_add, F32, minf, one, minf},
    {o::tile_add, F32, inf, minf, qnan, NaN},
    {o::tile_add, F32, qnan, one, qnan, NaN},
    {o::tile_add, F32, snan, one, qnan, NaN},
    {o::tile_add, F32, one, msnan, qnan, NaN},
    {o::tile_add, F32, one, mqnan, qnan, NaN},
    //--- add: FP16 (computed once, rounded to binary16 RNE) ---
    {o::tile_add, F16, h1, h2, h3},
    {o::tile_add, F16, hm5, h3, hm2},
    {o::tile_add, F16, 0x0000, hn0, 0x0000},
    {o::tile_add, F16, hn0, hn0, hn0},
    {o::tile_add, F16, h1, 0x1000, h1},                    // 1 + 2^-11: tie, even -> 1
    {o::tile_add, F16, 0x3C01, 0x1000, 0x3C02},            // (1+2^-10) + 2^-11: tie, even -> 1+2^-9
    {o::tile_add, F16, hmax, 0x4800, hmax},                // 65504 + 8 = 65512: below the tie
    {o::tile_add, F16, hmax, 0x4C00, hinf},                // 65504 + 16 = 65520: tie, odd -> 65536 -> +inf
    {o::tile_add, F16, hmax, hmax, hinf},                  // overflow of the FP32 sum on narrowing
    {o::tile_add, F16, 0x0001, 0x0001, 0x0002},            // 2^-24 + 2^-24
    {o::tile_add, F16, 0x03FF, 0x0001, 0x0400},            // largest subnormal + ulp = smallest normal
    {o::tile_add, F16, 0x8001, 0x0001, 0x0000},
    {o::tile_add, F16, hminf, hmax, hminf},
    {o::tile_add, F16, hinf, hminf, hnan, NaN},
    {o::tile_add, F16, hnan, h1, hnan, NaN},
    {o::tile_add, F16, hsnan, h1, hnan, NaN},
    {o::tile_add, F16, h1, hmsnan, hnan, NaN},
    //--- add: INT32 (two's-complement wrap) ---
    {o::tile_add, I32, 2, 3, 5},
    {o::tile_add, I32, 0xFFFFFFFB, 3, 0xFFFFFFFE},         // -5 + 3 = -2
    {o::tile_add, I32, 0, 0, 0},
    {o::tile_add, I32, 0x7FFFFFFF, 1, 0x80000000},         // INT32_MAX + 1 = INT32_MIN
    {o::tile_add, I32, 0x80000000, 0xFFFFFFFF, 0x7FFFFFFF}, // INT32_MIN - 1 = INT32_MAX
    {o::tile_add, I32, 0x80000000, 0x80000000, 0},
    {o::tile_add, I32, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE},

    //--- mul: FP32 ---
    {o::tile_mul, F32, two, three, six},
    {o::tile_mul, F32, m2, three, m6},
    {o::tile_mul, F32, n0, three, n0},
    {o::tile_mul, F32, p0, m3, n0},
    {o::tile_mul, F32, n0, n0, p0},
    {o::tile_mul, F32, 0x3F800001, 0x3F800001, 0x3F800002}, // (1+2^-23)^2 = 1+2^-22+2^-46 -> 1+2^-22
    {o::tile_mul, F32, 0x3F800001, one5, 0x3FC00002},      // 1.5+1.5*2^-23: tie, even -> 1.5+2^-22
    {o::tile_mul, F32, 0x5F800000, 0x5F800000, inf},       // 2^64 * 2^64 overflows
    {o::tile_mul, F32, 0x1A000000, 0x1A000000, p0},        // 2^-75 * 2^-75 = 2^-150: tie, even -> +0
    {o::tile_mul, F32, 0x1A000000, 0x1A400000, dmin},      // 2^-75 * 1.5*2^-75 = 0.75*2^-149 -> 2^-149
    {o::tile_mul, F32, dmin, two, 0x00000002},
    {o::tile_mul, F32, m2, inf, minf},
    {o::tile_mul, F32, p0, inf, qnan, NaN},
    {o::tile_mul, F32, qnan, one, qnan, NaN},
    {o::tile_mul, F32, snan, two, qnan, NaN},
    //--- mul: FP16 ---
    {o::tile_mul, F16, h2, h3, 0x4600},                    // 2 * 3 = 6
    {o::tile_mul, F16, hn0, h3, hn0},
    {o::tile_mul, F16, 0x0C00, 0x0C00, 0x0001},            // 2^-12 * 2^-12 = 2^-24 (subnormal)
    {o::tile_mul, F16, 0x0C00, 0x0800, 0x0000},            // 2^-12 * 2^-13 = 2^-25: tie, even -> +0
    {o::tile_mul, F16, 0x8C00, 0x0800, hn0},               // same, negative -> -0
    {o::tile_mul, F16, 0x0E00, 0x0C00, 0x0002},            // 1.5*2^-24: tie between 1 and 2 units -> 2
    {o::tile_mul, F16, 0x3C01, 0x3E00, 0x3E02},            // (1+2^-10)*1.5: tie, even -> 1.5+2^-9
    {o::tile_mul, F16, 0x5C00, 0x5C00, hinf},              // 256 * 256 = 65536 -> +inf
    {o::tile_mul, F16, 0x0001, h2, 0x0002},
    {o::tile_mul, F16, 0x03FF, h2, 0x07FE},                // subnormal * 2 becomes normal
    {o::tile_mul, F16, hm2, hinf, hminf},
    {o::tile_mul, F16, 0x0000, hinf, hnan, NaN},
    {o::tile_mul, F16, hnan, h1, hnan, NaN},
    {o::tile_mul, F16, hsnan, h2, hnan, NaN},
    //--- mul: INT32 ---
    {o::tile_mul, I32, 6, 7, 42},
    {o::tile_mul, I32, 0xFFFFFFF9, 6, 0xFFFFFFD6},         // -7 * 6 = -42
    {o::tile_mul, I32, 0, 0xFFFFFFFB, 0},
    {o::tile_mul, I32, 0x00010000, 0x00010000, 0},         // 2^16 * 2^16 wraps to 0
    {o::tile_mul, I32, 0x80000000, 0xFFFFFFFF, 0x80000000}, // INT32_MIN * -1 = INT32_MIN
    {o::tile_mul, I32, 0x7FFFFFFF, 2, 0xFFFFFFFE},         // INT32_MAX * 2 = -2
    {o::tile_mul, I32, 46341, 46341, 0x80001219},          // 2147488281 wraps to -2147479015

    //--- sub (operand order matters) ---
    {o::tile_sub, F32, five, three, two},
    {o::tile_sub, F32, three, five, m2},
    {o::tile_sub, F32, p0, p0, p0},
    {o::tile_sub, F32, n0, p0, n0},                        // -0 - +0 = -0
    {o::tile_sub, F32, p0, n0, p0},
    {o::tile_sub, F32, n0, n0, p0},                        // x - x = +0 under RNE
    {o::tile_sub, F32, one, 0x33000000, one},              // 1 - 2^-25: tie, even -> 1
    {o::tile_sub, F32, one, 0x33800000, 0x3F7FFFFF},       // 1 - 2^-24 exact
    {o::tile_sub, F32, nmin, dmin, 0x007FFFFF},            // normal - subnormal = subnormal
    {o::tile_sub, F32, mfmax, fmax, minf},
    {o::tile_sub, F32, one, inf, minf},
    {o::tile_sub, F32, inf, inf, qnan, NaN},
    {o::tile_sub, F32, qnan, one, qnan, NaN},
    {o::tile_sub, F32, one, qnan, qnan, NaN},

    //--- div (x / y) ---
    {o::tile_div, F32, six, three, two},
    {o::tile_div, F32, three, six, half},
    {o::tile_div, F32, one, p0, inf},
    {o::tile_div, F32, m1, p0, minf},
    {o::tile_div, F32, one, n0, minf},
    {o::tile_div, F32, p0, m5, n0},
    {o::tile_div, F32, n0, m5, p0},
    {o::tile_div, F32, one, inf, p0},
    {o::tile_div, F32, m1, inf, n0},
    {o::tile_div, F32, one, three, 0x3EAAAAAB, ULP},       // 0.333333343
    {o::tile_div, F32, 0x00000002, two, dmin},             // 2^-148 / 2 = 2^-149 exact
    {o::tile_div, F32, nmin, two, 0x00400000},             // 2^-126 / 2 = 2^-127 (subnormal) exact
    {o::tile_div, F32, fmax, half, inf},
    {o::tile_div, F32, p0, p0, qnan, NaN},
    {o::tile_div, F32, inf, inf, qnan, NaN},
    {o::tile_div, F32, qnan, one, qnan, NaN},

    //--- maximum ---
    {o::tile_maximum, F32, one, two, two},
    {o::tile_maximum, F32, two, one, two},
    {o::tile_maximum, F32, m1, m2, m1},
    {o::tile_maximum, F32, minf, three, three},
    {o::tile_maximum, F32, three, inf, inf},
    {o::tile_maximum, F32, dmin, mdmin, dmin},
    {o::tile_maximum, F32, mdmin, p0, p0},
    {o::tile_maximum, F32, qnan, qnan, qnan, NaN},
    {o::tile_maximum, F32, p0, n0, n0, BITS, U},           // [U] signed zeros: simulator returns y
    {o::tile_maximum, F32, n0, p0, p0, BITS, U},
    {o::tile_maximum, F32, qnan, one, one, BITS, U},       // [U] NaN first: simulator returns y
    {o::tile_maximum, F32, one, qnan, qnan, NaN, U},       // [U] NaN second: simulator returns NaN
    //--- minimum ---
    {o::tile_minimum, F32, one, two, one},
    {o::tile_minimum, F32, two, one, one},
    {o::tile_minimum, F32, m1, m2, m2},
    {o::tile_minimum, F32, minf, three, minf},
    {o::tile_minimum, F32, dmin, mdmin, mdmin},
    {o::tile_minimum, F32, mdmin, p0, mdmin},
    {o::tile_minimum, F32, qnan, qnan, qnan, NaN},
    {o::tile_minimum, F32, p0, n0, n0, BITS, U},           // [U] signed zeros: simulator returns y
    {o::tile_minimum, F32, n0, p0, p0, BITS, U},
    {o::tile_minimum, F32, qnan, one, one, BITS, U},       // [U] NaN first: simulator returns y
    {o::tile_minimum, F32, one, qnan, qnan, NaN, U},

    //--- abs ---
    {o::tile_abs, F32, m3, 0, three},
    {o::tile_abs, F32, three, 0, three},
    {o::tile_abs, F32, n0, 0, p0},
    {o::tile_abs, F32, p0, 0, p0},
    {o::tile_abs, F32, minf, 0, inf},
    {o::tile_abs, F32, mdmin, 0, dmin},
    {o::tile_abs, F32, mfmax, 0, fmax},
    {o::tile_abs, F32, qnan, 0, qnan, NaN},
    {o::tile_abs, F32, mqnan, 0, qnan, NaN},

    //--- exp (natural) ---
    {o::tile_exp, F32, p0, 0, one},
    {o::tile_exp, F32, n0, 0, one},
    {o::tile_exp, F32, minf, 0, p0},
    {o::tile_exp, F32, inf, 0, inf},
    {o::tile_exp, F32, 0x42B20000, 0, inf},                // exp(89) > FLT_MAX
    {o::tile_exp, F32, 0xC2DC0000, 0, p0},                 // exp(-110) < 2^-150
    {o::tile_exp, F32, one, 0, 0x402DF854, ULP},           // e = 2.71828175
    {o::tile_exp, F32, m1, 0, 0x3EBC5AB2, ULP},            // 1/e = 0.367879450
    {o::tile_exp, F32, 0xC2C80000, 0, 0x0000001B, ULP},    // exp(-100) = 3.72e-44: 27 * 2^-149 (subnormal)
    {o::tile_exp, F32, dmin, 0, one, ULP},
    {o::tile_exp, F32, mdmin, 0, one, ULP},
    {o::tile_exp, F32, qnan, 0, qnan, NaN},

    //--- sqrt ---
    {o::tile_sqrt, F32, four, 0, two},
    {o::tile_sqrt, F32, 0x40100000, 0, one5},              // sqrt(2.25) = 1.5
    {o::tile_sqrt, F32, p0, 0, p0},
    {o::tile_sqrt, F32, n0, 0, n0},                        // IEEE: sqrt(-0) = -0
    {o::tile_sqrt, F32, inf, 0, inf},
    {o::tile_sqrt, F32, 0x00000002, 0, 0x1A800000},        // sqrt(2^-148) = 2^-74
    {o::tile_sqrt, F32, two, 0, 0x3FB504F3, ULP},          // 1.41421354
    {o::tile_sqrt, F32, m1, 0, qnan, NaN},
    {o::tile_sqrt, F32, mdmin, 0, qnan, NaN},
    {o::tile_sqrt, F32, minf, 0, qnan, NaN},
    {o::tile_sqrt, F32, qnan, 0, qnan, NaN},

    //--- neg ---
    {o::tile_neg, F32, three, 0, m3},
    {o::tile_neg, F32, m3, 0, three},
    {o::tile_neg, F32, p0, 0, n0},
    {o::tile_neg, F32, n0, 0, p0},
    {o::tile_neg, F32, inf, 0, minf},
    {o::tile_neg, F32, minf, 0, inf},
    {o::tile_neg, F32, dmin, 0, mdmin},
    {o::tile_neg, F32, qnan, 0, qnan, NaN},

    //--- relu = max(x, 0) ---
    {o::tile_relu, F32, three, 0, three},
    {o::tile_relu, F32, m3, 0, p0},
    {o::tile_relu, F32, p0, 0, p0},
    {o::tile_relu, F32, minf, 0, p0},
    {o::tile_relu, F32, inf, 0, inf},
    {o::tile_relu, F32, dmin, 0, dmin},
    {o::tile_relu, F32, mdmin, 0, p0},
    {o::tile_relu, F32, n0, 0, p0, BITS, U},               // [U] sign of max(-0, 0): simulator gives +0
    {o::tile_relu, F32, qnan, 0, p0, BITS, U},             // [U] max(NaN, 0): simulator gives +0

    //--- log (natural) ---
    {o::tile_log, F32, one, 0, p0},
    {o::tile_log, F32, p0, 0, minf},
    {o::tile_log, F32, n0, 0, minf},
    {o::tile_log, F32, inf, 0, inf},
    {o::tile_log, F32, two, 0, 0x3F317218, ULP},           // ln 2 = 0.693147182
    {o::tile_log, F32, dmin, 0, 0xC2CE8ED0, ULP},          // ln 2^-149 = -103.278931
    {o::tile_log, F32, fmax, 0, 0x42B17218, ULP},          // ln FLT_MAX = 88.7228394
    {o::tile_log, F32, m1, 0, qnan, NaN},
    {o::tile_log, F32, mdmin, 0, qnan, NaN},
    {o::tile_log, F32, minf, 0, qnan, NaN},
    {o::tile_log, F32, qnan, 0, qnan, NaN},

    //--- recip = 1/x ---
    {o::tile_recip, F32, two, 0, half},
    {o::tile_recip, F32, 0xC0800000, 0, 0xBE800000},       // 1/-4 = -0.25
    {o::tile_recip, F32, p0, 0, inf},
    {o::tile_recip, F32, n0, 0, minf},
    {o::tile_recip, F32, inf, 0, p0},
    {o::tile_recip, F32, minf, 0, n0},
    {o::tile_recip, F32, three, 0, 0x3EAAAAAB, ULP},
    {o::tile_recip, F32, dmin, 0, inf},                    // 2^149 overflows
    {o::tile_recip, F32, nmin, 0, 0x7E800000},             // 1/2^-126 = 2^126
    {o::tile_recip, F32, fmax, 0, 0x00200000, ULP},        // ~2^-128: subnormal result
    {o::tile_recip, F32, qnan, 0, qnan, NaN},

    //--- rsqrt = 1/sqrt(x) (extended rollout; results for x <= 0 are target-defined) ---
    {o::tile_rsqrt, F32, four, 0, half},
    {o::tile_rsqrt, F32, one, 0, one},
    {o::tile_rsqrt, F32, two, 0, 0x3F3504F3, ULP},         // 0.707106769
    {o::tile_rsqrt, F32, dmin, 0, 0x64B504F3, ULP},        // 2^74.5: a subnormal input
    {o::tile_rsqrt, F32, inf, 0, p0},
    {o::tile_rsqrt, F32, p0, 0, inf, BITS, U},             // [U] 1/sqrt(+0): simulator gives +inf
    {o::tile_rsqrt, F32, n0, 0, minf, BITS, U},            // [U] 1/sqrt(-0) = 1/-0: simulator gives -inf
    {o::tile_rsqrt, F32, m1, 0, qnan, NaN},                // [U] negative input
    {o::tile_rsqrt, F32, qnan, 0, qnan, NaN},

    //--- adds: x + s ---
    {o::tile_adds, F32, one, two, three},
    {o::tile_adds, F32, m5, three, m2},
    {o::tile_adds, F32, n0, n0, n0},
    {o::tile_adds, F32, p0, n0, p0},
    {o::tile_adds, F32, one, 0x33800000, one},             // tie, even
    {o::tile_adds, F32, fmax, 0x73000000, inf},
    {o::tile_adds, F32, dmin, dmin, 0x00000002},
    {o::tile_adds, F32, inf, minf, qnan, NaN},
    {o::tile_adds, F32, qnan, one, qnan, NaN},
    {o::tile_adds, F32, one, qnan, qnan, NaN},
    //--- subs: x - s ---
    {o::tile_subs, F32, five, three, two},
    {o::tile_subs, F32, three, five, m2},
    {o::tile_subs, F32, n0, p0, n0},
    {o::tile_subs, F32, p0, n0, p0},
    {o::tile_subs, F32, one, 0x33000000, one},             // tie, even
    {o::tile_subs, F32, nmin, dmin, 0x007FFFFF},
    {o::tile_subs, F32, mfmax, fmax, minf},
    {o::tile_subs, F32, inf, inf, qnan, NaN},
    {o::tile_subs, F32, qnan, one, qnan, NaN},
    //--- muls: x * s ---
    {o::tile_muls, F32, two, three, six},
    {o::tile_muls, F32, n0, three, n0},
    {o::tile_muls, F32, 0x3F800001, one5, 0x3FC00002},     // tie, even
    {o::tile_muls, F32, 0x1A000000, 0x1A000000, p0},       // 2^-150: tie -> +0
    {o::tile_muls, F32, 0x5F800000, 0x5F800000, inf},
    {o::tile_muls, F32, dmin, two, 0x00000002},
    {o::tile_muls, F32, m2, inf, minf},
    {o::tile_muls, F32, p0, inf, qnan, NaN},
    {o::tile_muls, F32, qnan, one, qnan, NaN},
    //--- divs: x / s ---
    {o::tile_divs, F32, six, three, two},
    {o::tile_divs, F32, three, six, half},
    {o::tile_divs, F32, one, p0, inf},
    {o::tile_divs, F32, one, n0, minf},
    {o::tile_divs, F32, n0, five, n0},
    {o::tile_divs, F32, m1, inf, n0},
    {o::tile_divs, F32, one, three, 0x3EAAAAAB, ULP},
    {o::tile_divs, F32, 0x00000002, two, dmin},
    {o::tile_divs, F32, fmax, half, inf},
    {o::tile_divs, F32, p0, p0, qnan, NaN},
    {o::tile_divs, F32, qnan, one, qnan, NaN},
    //--- maximums / minimums: op(x, s) ---
    {o::tile_maximums, F32, one, two, two},
    {o::tile_maximums, F32, two, one, two},
    {o::tile_maximums, F32, minf, m3, m3},
    {o::tile_maximums, F32, mdmin, dmin, dmin},
    {o::tile_maximums, F32, p0, n0, n0, BITS, U},
    {o::tile_maximums, F32, n0, p0, p0, BITS, U},
    {o::tile_maximums, F32, qnan, one, one, BITS, U},
    {o::tile_maximums, F32, one, qnan, qnan, NaN, U},
    {o::tile_minimums, F32, one, two, one},
    {o::tile_minimums, F32, two, one, one},
    {o::tile_minimums, F32, inf, m3, m3},
    {o::tile_minimums, F32, mdmin, dmin, mdmin},
    {o::tile_minimums, F32, p0, n0, n0, BITS, U},
    {o::tile_minimums, F32, n0, p0, p0, BITS, U},
    {o::tile_minimums, F32, qnan, one, one, BITS, U},
    {o::tile_minimums, F32, one, qnan, qnan, NaN, U},

    //--- lrelu(x, a) = x if x > 0 else a * x ---
    {o::tile_lrelu, F32, three, tenth, three},
    {o::tile_lrelu, F32, m3, tenth, 0xBE99999A},           // -3 * 0.1f = -0.300000004 -> -0.3f
    {o::tile_lrelu, F32, m2, half, m1},
    {o::tile_lrelu, F32, m3, 0xBF000000, one5},            // negative slope: -3 * -0.5 = 1.5
    {o::tile_lrelu, F32, dmin, tenth, dmin},
    {o::tile_lrelu, F32, mdmin, half, n0},                 // -2^-150: tie, even -> -0
    {o::tile_lrelu, F32, 0x80000003, half, 0x80000002},    // -1.5*2^-149: tie, even -> -2*2^-149
    {o::tile_lrelu, F32, mfmax, two, minf},
    {o::tile_lrelu, F32, inf, tenth, inf},
    {o::tile_lrelu, F32, minf, tenth, minf},
    {o::tile_lrelu, F32, minf, p0, qnan, NaN},             // a * x = 0 * -inf
    {o::tile_lrelu, F32, qnan, tenth, qnan, NaN},
    {o::tile_lrelu, F32, p0, tenth, p0, BITS, U},          // [U at x=0] simulator: a * x
    {o::tile_lrelu, F32, n0, tenth, n0, BITS, U},
    {o::tile_lrelu, F32, p0, 0xBF000000, n0, BITS, U},

    //--- full(s): every element is s (x unused) ---
    {o::tile_full, F32, 0, three, three},
    {o::tile_full, F32, 0, 0xC0200000, 0xC0200000},        // -2.5
    {o::tile_full, F32, 0, p0, p0},
    {o::tile_full, F32, 0, n0, n0},
    {o::tile_full, F32, 0, dmin, dmin},
    {o::tile_full, F32, 0, fmax, fmax},
    {o::tile_full, F32, 0, minf, minf},
    {o::tile_full, F32, 0, qnan, qnan, NaN},
};
// clang-format on

//===--- compile-time coverage ---===//

constexpr bool f32_nan(std::uint32_t b) { return (b & 0x7F800000u) == 0x7F800000u && (b & 0x007FFFFFu) != 0; }
constexpr bool f16_nan(std::uint32_t b) { return (b & 0x7C00u) == 0x7C00u && (b & 0x03FFu) != 0; }
constexpr bool is_nan(dtype d, std::uint32_t b) { return d == dtype::fp16 ? f16_nan(b) : f32_nan(b); }

/// Input classes every float row must exercise (as any operand the op reads).
enum input_class : unsigned { negative = 1, pos_zero = 2, neg_zero = 4, subnormal = 8, infinite = 16, not_a_number = 32 };
constexpr unsigned all_float_classes = 63;
constexpr unsigned classify(dtype d, std::uint32_t b) {
  const bool h = d == dtype::fp16;
  const std::uint32_t sign = h ? 0x8000u : 0x80000000u, exp = h ? 0x7C00u : 0x7F800000u, man = h ? 0x03FFu : 0x007FFFFFu;
  const std::uint32_t e = b & exp, m = b & man;
  unsigned c = 0;
  if (e == exp) c |= m != 0 ? not_a_number : infinite;
  if (e == 0 && m == 0) c |= (b & sign) != 0 ? neg_zero : pos_zero;
  if (e == 0 && m != 0) c |= subnormal;
  if ((b & sign) != 0 && !(e == 0 && m == 0) && !(e == exp && m != 0)) c |= negative;
  return c;
}
constexpr unsigned classes_read(const ew_case& k) {
  switch (info(k.op).ew) {
    case ew_kind::unary: return classify(k.dt, k.x);
    case ew_kind::fill: return classify(k.dt, k.y);
    default: return classify(k.dt, k.x) | classify(k.dt, k.y);
  }
}

/// Every (row, dtype) of the spec's table has hand rows, every hand row is such a pair, float
/// pairs read every input class, INT32 pairs read a negative, a zero and INT32_MIN or INT32_MAX.
constexpr bool covers_spec_table() {
  for (const auto& row : elementwise_table)
    for (std::size_t i = 0; i < row.count; ++i) {
      const dtype d = row.dtypes[i];
      unsigned classes = 0;
      bool any = false, neg = false, zero = false, edge = false;
      for (const auto& k : cases) {
        if (k.op != row.op || k.dt != d) continue;
        any = true;
        if (is_float(d)) classes |= classes_read(k);
        for (std::uint32_t v : {k.x, k.y}) {
          neg = neg || (v & 0x80000000u) != 0;
          zero = zero || v == 0;
          edge = edge || v == 0x80000000u || v == 0x7FFFFFFFu;
        }
      }
      if (!any) return false;
      if (is_float(d) && classes != all_float_classes) return false;
      if (!is_float(d) && !(neg && zero && edge)) return false;
    }
  for (const auto& k : cases)
    if (!elementwise_allows(k.op, k.dt)) return false;
  return true;
}
static_assert(covers_spec_table(),
              "ew_table_test: every row x dtype of elementwise_table needs hand-written cases (with negative, "
              "+0, -0, subnormal, infinite and NaN inputs for floats), and only those pairs may appear");

//===--- running one case through the simulator's element path ---===//

std::size_t width(dtype d) { return d == dtype::fp16 ? 2 : 4; }

sim::element load(dtype d, std::uint32_t bits) {
  std::uint8_t b[8] = {};  // as wide as any element type read_element/write_element handle
  for (std::size_t i = 0; i < width(d); ++i) b[i] = static_cast<std::uint8_t>(bits >> (8 * i));
  return sim::read_element(d, b);
}
std::uint32_t store(dtype d, sim::element e) {
  std::uint8_t b[8] = {};  // as wide as any element type read_element/write_element handle
  sim::write_element(d, b, e);
  std::uint32_t bits = 0;
  for (std::size_t i = 0; i < width(d); ++i) bits |= static_cast<std::uint32_t>(b[i]) << (8 * i);
  return bits;
}

/// Distance in FP32 units in the last place (both zeros count as one point).
std::int64_t ulps(std::uint32_t a, std::uint32_t b) {
  const auto key = [](std::uint32_t v) {
    const auto mag = static_cast<std::int64_t>(v & 0x7FFFFFFFu);
    return (v & 0x80000000u) != 0 ? -mag : mag;
  };
  const std::int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", static_cast<unsigned>(v));
  return buf;
}

/// Result bits of `c` (a tile.* or buffer.* elementwise op) on the case's operands.
std::uint32_t run(opcode c, const ew_case& k) {
  const sim::ew_semantics* sem = sim::ew_op_of(c);
  REQUIRE(sem != nullptr);
  REQUIRE(sim::ew_defined(*sem, k.dt));
  return store(k.dt, sim::ew_apply(*sem, k.dt, load(k.dt, k.x), load(k.dt, k.y)));
}

bool matches(const ew_case& k, std::uint32_t got) {
  switch (k.how) {
    case expect::bits: return got == k.want;
    case expect::nan: return is_nan(k.dt, got);
    case expect::ulp1: return !is_nan(k.dt, got) && ulps(got, k.want) <= 1;
  }
  return false;
}

void check_case(const ew_case& k) {
  const auto buffer_op = buffer_counterpart(k.op);
  REQUIRE(buffer_op.has_value());
  for (opcode c : {k.op, *buffer_op}) {
    const std::uint32_t got = run(c, k);
    std::string what = std::string(mnemonic(c)) + " on " + std::string(name(k.dt)) + ": x=" + hex(k.x) + " y=" + hex(k.y) +
                       " expected " + (k.how == expect::nan ? std::string("NaN") : hex(k.want)) +
                       (k.how == expect::ulp1 ? " (+-1 ulp)" : "") + ", got " + hex(got) +
                       (k.why == basis::unspecified ? " [spec silent: pinned simulator choice]" : "");
    INFO(what);
    CHECK(matches(k, got));
  }
}

}  // namespace

TEST_CASE("ew_table: hand-written spec values (§9.3, IEEE RNE, two's complement) for every op x dtype") {
  std::size_t n = 0;
  for (const auto& k : cases)
    if (k.why == basis::spec) {
      check_case(k);
      ++n;
    }
  CHECK(n > 200);
}

TEST_CASE("ew_table: points the spec leaves open (NaN/±0 in maximum, minimum, relu; lrelu at 0) stay as pinned") {
  std::size_t n = 0;
  for (const auto& k : cases)
    if (k.why == basis::unspecified) {
      check_case(k);
      ++n;
    }
  CHECK(n > 0);
}
