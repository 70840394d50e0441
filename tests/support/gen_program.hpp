// SPDX-License-Identifier: Apache-2.0
/// @file gen_program.hpp
/// Random generator of valid, unplanned Tile kernels (straight-line, or with branches and loops) for
/// differential testing.
///
///     tile2buffer::program p = tile2buffer::testing::generate_kernel(seed, 40, {});
///
/// The kernel (`aiv @gen_<seed>`) loads rank-2 Vec tiles (`rows` x a column count that is a
/// multiple of 32 bytes) from its `in` tensors, computes with every op of the spec's elementwise
/// table on its allowed element types (add/mul on FP16, FP32 and INT32; the other binary, unary and
/// scalar ops and full on FP32), and stores to `out` tensors (one 16-row slot per store, chained
/// through the store results; each output is returned). FP16, BF16, FP32 and INT32 are loaded and
/// stored; BF16 is only transferred, never computed. Shapes come from a small per-kernel set, so
/// values share inputs (one tensor loaded several times, tall tensors loaded by halves) and the
/// kernel has many short-lived temporaries, dead values and reuse opportunities.
///
/// Values stay finite: the generator tracks an interval per value (inputs are seeded in [-2, 2],
/// integers in [-16, 16], see sim/gm.hpp) and only emits an op when its precondition holds
/// (log of >= 0.25, sqrt of >= 0, division and recip by |x| >= 0.5, exp of <= 4) and its result stays
/// within a bound (FP32 1e4, FP16 1e3); otherwise it conditions an operand first (abs, adds 1,
/// minimums 2) or picks another op.
///
/// Windows (`gen_options::windows`, off by default): the kernel also loads window parents (tall
/// or wide tiles, 8 KiB at 16 rows) and adds window steps whose results are used like any other
/// value:
///  - tile.slice with static or runtime offsets, nested slices (a slice of a slice), all with
///    window rows a multiple of 32 bytes. Runtime row offsets come from INDEX parameters
///    (`row<n>`, possibly plus a literal); runtime column offsets are provably 32-byte aligned
///    scalar SSA: `block = tile.get_block_idx()`, `s = block * K` or `s = col<n> * K` with K a
///    whole number of 32-byte units, and sums of such terms and aligned literals;
///  - tile.reshape of dense non-window tiles (same bytes, rows a multiple of 32 bytes);
///  - tile.assemble into a dense non-window target from a source with the target's row pitch: a
///    dense tile as wide as the target, or a slice of such a tile, including the target itself
///    (overlapping, or at the slice's own offsets: an exact self-write).
/// About `unaligned_probability` of window kernels (`gen_plan::unaligned`) start with a slice
/// whose column offset selection cannot prove 32-byte aligned (a static offset off the 32-byte
/// grid, a parameter used directly, or an aligned `col<n> * K` combined with a literal off the
/// grid by a sum, difference, min, max or mod), so the kernel must stay Tile.
/// Every runtime scalar has a recorded legal range (`gen_plan::scalars`, `gen_plan::block_max`)
/// inside which every window stays within its source, for every combination of values;
/// `bindings(plan)` picks 0, 1, the middle and the maximum of each range, and a corner mix, and
/// `sim_options_for` turns one into simulator options (which also plant one signalling NaN in
/// each float input tensor, so campaigns move such patterns; values derived from it are NaN).
///
/// Valid extents (`gen_options::valid_extents`, off by default): loads may have partial valid
/// rectangles (`tile.load(X, (r0, c0), (R, C), (vr, vc))`, the third operand the physical shape,
/// the fourth restating the result type's `valid=[vr, vc]`); each extent is the physical extent, a
/// literal in [1, extent], or a runtime INDEX scalar: a parameter (`rows<n>`, `cols<n>`) or block
/// index arithmetic (`block`, `block * K`, `min(block * K, extent)`), whose recorded range is
/// [0, physical extent], so bindings reach empty, one-element, middle and full extents. Loads of
/// one shape often share a valid pattern, so elementwise ops combine operands whose valid
/// expressions are structurally identical (the same SSA scalar), and results restate them.
/// `tile.set_validshape` narrows a current version to extents that stay within its valid
/// rectangle under every binding (a literal no larger, a parameter ranging up to the literal,
/// `min(s, k)` of a runtime extent `s`), so nothing uninitialized ever becomes readable; the old
/// version is never used again. About `stays_tile_probability` of the kernels
/// (`gen_plan::tile_reason`) deliberately break that rule once (a read of the old version after a
/// setter: "metadata version") or, with windows, narrow a slice ("window"), and must stay Tile.
/// Windows only cut, relabel and assemble fully valid current versions that no setter produced.
///
/// Regions (`gen_options::regions`, off by default): the kernel also has branches and loops,
/// nested up to `region_depth` deep (a loop in a loop, a branch in a loop, a loop in a branch),
/// planned in the flat step list between `open`, `next` and `close` markers (gen_mark):
///  - `if` on a BOOL parameter (`flag<n>`) with Tile results and an INDEX result: an arm computes
///    a fresh value or yields one defined before the branch, both arms may yield the same outer
///    value, and pairs swap (`yield a, b` / `yield b, a`); the INDEX result may become a store's
///    row offset (the output reserves every row it may reach);
///  - `for` with a constant trip count (0 to 3, start 0 or 1, step 1 or 2) or a runtime one
///    (`range(0, count<n>, step)`, count in [0, 3], so zero trips happen), and `while` whose
///    condition `k < limit<n>` reads a carried INDEX counter (k += 1);
///  - carries that swap, rotate (three), fan out (two carries from one initializer; one value
///    yielded to two carries), accumulate (`acc_next = tile.add(acc, x)`) or update, INDEX
///    offsets advancing each iteration, and GM carries: an output stored inside the body at a
///    carried row offset (`o_out, r_out = for ... iter(o = Out, r = base) { s = tile.store(x,
///    (r, 0), o); yield s, r + rows }`, the output reserving rows for every iteration); an
///    output stored by a nested region is carried (or yielded by both arms) by every enclosing
///    region, and a branch may yield one input parameter in both arms (a GM result);
///  - initializers are often read again after their loop.
/// Branch results and carries are dense, fully and statically valid values of a loaded class;
/// region bodies compute, load and (with windows) slice values defined outside the region. A
/// loop body runs at most `trips` times (3), so when a loop closes the generator re-derives the
/// intervals of everything in it over that many iterations and drops the loop (restoring the
/// plan) if a bound or precondition would fail. About `region_tile_probability` of region
/// kernels (`gen_plan::tile_reason`) have one construct that must stay Tile: a for loop whose
/// step is a runtime INDEX parameter (`step<n>` in [1, 2]: "step"), a branch whose arms yield two
/// different input parameters as a GM result ("GM branch results must alias the same
/// parameter"), or a loop whose backedge yields another input parameter than its initializer
/// ("GM loop results must retain their initial parameter alias"); loads then read the result.
/// With `region_valid_probability`, that share of them instead has a loop whose body loads a
/// tile with runtime valid rows (or an empty extent) and stores it ("user control flow with
/// dynamic valid state"). With `extended` the same loop is drawn, with that probability, in
/// kernels that must lower (the extended rollout lowers runtime valid state local to one body).
/// `bindings(plan)` adds two mixes for region parameters, so each flag is bound to 0 and 1, each
/// count and limit to 0, 1, 2 and 3, and each step to 1 and 2.
///
/// Cube (`gen_options::cube`, off by default): instead of an elementwise kernel, an unplanned
/// `aic` kernel of one to three chains (ops / 8 at most), each with operands of one dtype (FP16,
/// BF16, FP32 or INT8; FP32 accumulation for floats, INT32 for INT8) and a product [M, K] x [K, N]
/// of whole boxes (M, N in 16..64 by 16, K 32 or 64; an INT8 rhs loaded as Mat [K, N] has N a
/// multiple of 32). GM inputs are read into Mat (`tile.load`), then moved to Left/Right
/// (`tile.move`) or cut from a larger Mat tile with `tile.extract` at box-aligned literal offsets;
/// a rhs may come from B^T ([N, K] in GM and Mat, relabelled by `tile.transpose_view` to Mat ZN
/// [K, N]). A chain is one of:
///  - a `tile.matmul`, followed by up to two `tile.matmul_acc` (fresh or reused operands);
///  - a wider accumulator: a full [M, N] product, then a `matmul_acc` whose Right operand is valid
///    in its first whole 16-column box columns only (a partially valid Mat load moved to Right);
///  - a product of partially valid operands (Left [vm, vk], Right [vk' >= vk, vn], any extents,
///    from partially valid Mat loads) into an accumulator valid in [vm, vn], stored as such;
///  - a K loop `for k in range(start, stop, 1)` carrying the accumulator over slices of A [M, 3K]
///    and B [3K, N] (or B^T) loaded at runtime offsets `k * K`, or loaded whole into Mat before
///    the loop and cut by `tile.extract` at those offsets, the Left operand possibly shared by
///    every iteration, sometimes carrying a second accumulator (the same Left slices times
///    another B): from `tile.create()` with `init_cond = (k == 0)` (1 to 3 trips), or from
///    the product of slice 0 over iterations 1 .. stop (0 to 2 trips); `stop` is a literal or a
///    `count<n>` parameter in [1, 3].
/// So that live ranges overlap inside each memory space (a planner that wrongly shares storage
/// then changes the numbers): half the products load both Mat operands before moving either,
/// half the multi-product chains bring every operand pair into L0 before the first product, and
/// half the chain results are stored only at the end of the kernel. With `cube_guard_probability`
/// (0 by default, so other seeds keep their programs), a chain's matmul_acc sits in one arm of an
/// `if` on a `flag<n>` parameter whose other arm yields the accumulator unchanged (a guarded
/// accumulator, lowered by coalescing the arms' storage). With `cube_branch_init_probability` (0
/// by default), a K loop from `tile.create()` writes its update as pypto-lib's gemm.py does, `if
/// k == 0 { tile.matmul(l, r) } else { tile.matmul_acc(acc, l, r) }` on operands made before the
/// if: it lowers only under the extended rollout, through fold_matmul_if (quantized-path.md §2.7),
/// and stays Tile under the default one ("matrix region carries must preserve one storage alias").
/// matmul_acc's init_cond is absent, a literal, a BOOL parameter (`flag<n>`) or `k == 0`; an
/// accumulator is never read after the matmul_acc that updates it, and one that may be read
/// (init_cond not literally true) always holds data. Each chain's result is stored through the
/// fix-pipe: FP32 to an FP32, FP16 or BF16 output, INT32 to INT32. About `cube_tile_probability`
/// of the kernels (`gen_plan::tile_reason`) give their first store a keyword no recipe lowers
/// (`atomic = 1`, `pre_relu = true`, `pre_quant = 1`), or start with a product of partially valid
/// operands whose Left rows are a runtime `rows<n>` parameter in [1, M] (Mat has no runtime
/// valid metadata: "static positive valid extents"; the rows it does not store stay unwritten),
/// and must stay Tile. (The spec's other
/// unsupported Acc stores, FP32 -> INT32 and INT32 -> FP32, are rejected by the Tile verifier,
/// so they cannot appear in a valid kernel.) The cube draws come first and only with cube on,
/// so the other kernels are unchanged.
///
/// Extended rollout (`gen_options::extended`, off by default; lower with `rollout = extended`):
/// the elementwise table gains `tile.rsqrt` (operands conditioned to >= 1), and about
/// `extended_probability` of the compute steps are instead one of (extended-rollout.md §3):
///  - a row reduction (`tile.row_sum/max/min`) of an FP32 [R, C] allocation into an [R, 1]
///    column vector (R * 4 bytes a multiple of 32), or a column reduction (`tile.col_sum/max/min`)
///    into a [1, C] row; scratch operands are left to the pipeline;
///  - a row broadcast: `tile.row_expand(v)` to a class width, or `tile.row_expand_sub/div/mul(x,
///    v)` with x's valid rows v's; a column broadcast: `tile.col_expand(w)`, or
///    `tile.col_expand_add/sub/mul/div/max/min/expdif(x, w)` with x's valid columns w's (divisors
///    made |w| + 1; expdif's operands clamped so exp stays in bounds);
///  - `tile.cast` FP32 -> FP16 / BF16 (rows of 32-byte multiples, mode 1-5 or none) and
///    FP16 / BF16 -> FP32.
/// Column vectors and [1, C] rows then feed the elementwise table like any class (column vectors
/// only with static valid extents, which row reductions guarantee) and are stored; a column
/// vector lands in column 0 of a 32-byte-wide output. With `column_transfer_probability`
/// (quantized-path.md §2.4; draws only when set), that share of the column vectors a step loads
/// are windows of a one-column input (its column contiguous: the DN view a2a3 loads a DN tile
/// from) instead of a load's row maximum, and in that share of the kernels without regions every
/// output that only column vectors are stored to becomes one column wide (its DN view).
/// Windows and setters leave column vectors alone. With valid extents a reduction's source may
/// be a fresh load whose reduced extent is a literal or an `nrows<n>` / `ncols<n>` parameter in
/// [1, extent] (never empty: a reduction over an empty axis leaves its result unspecified, §2.4),
/// and whose kept extent is partial (a runtime column count only for column reductions: a column
/// vector with runtime valid rows stays Tile); inside regions only static extents are drawn. So
/// every extended kernel without a `tile_reason` (or unalignable slice) lowers under the extended
/// rollout, and under the default rollout every kernel using one of these ops stays Tile.
///
/// GM through the parameter (`gen_options::gm_parameter_probability`, 0 by default): in that share
/// of the kernels (`gen_plan::gm_by_parameter`) every store outside a region names its output
/// parameter itself instead of the latest store's result, so stores are not chained, and the
/// kernel returns the parameters. GM is memory (reference §9.2): every store lands whether or not
/// its result is used. The draw happens only when the option is set; only the two below follow it.
///
/// Kernels that must stay Tile, drawn last and only when their option is set (so other seeds'
/// programs do not change), in kernels without another Tile-only construct (not cube kernels):
///  - `half_reduction_probability` (with `extended`): one row or column reduction (sum, max or
///    min) of an FP16 or BF16 tile, its result unused (`tile_reason` "on FP16 is not in the
///    extended rollout", or BF16: extended-rollout.md §3.1 keeps them Tile; the default rollout
///    keeps every reduction Tile);
///  - `abi_probability`: one construct the PTO kernel ABI forbids (reference §3.3,
///    analysis/pto_abi.hpp), which selection keeps Tile in the PTO preflight's words: an unused
///    [rows, 1] input (a one-column tensor is inside the ABI only when columns move through it;
///    `tile_reason` "columns > 1"), or the kernel loads back a window of an output it stored, an
///    out parameter (`tile_reason` "parameter direction").
///
/// Growth: `generate_plan` produces an abstract plan (steps over value numbers) that `emit`
/// turns into IR; new features (views, control flow, runtime valid extents, cube) add step kinds
/// and options without changing existing seeds' programs when their options are off.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tile2buffer/ir/builder.hpp"
#include "tile2buffer/sim/options.hpp"

namespace tile2buffer {
namespace testing {

struct gen_options {
  std::int64_t rows = 16;                   ///< tile rows
  bool extended = false;                    ///< draw the extended rollout's ops too (lower with --rollout=extended)
  double extended_probability = 0.35;       ///< with `extended`: chance that a compute step is a reduction, broadcast or cast
  bool fp16 = true;                         ///< FP16 tiles (add/mul)
  bool bf16 = true;                         ///< BF16 tiles (load/store only)
  bool int32 = true;                        ///< INT32 tiles (add/mul)
  int fp32_shapes = 2;                      ///< distinct FP32 column counts per kernel
  std::int64_t max_row_bytes = 256;         ///< column counts are 32..max_row_bytes bytes, powers of two
  double load_probability = 0.18;           ///< chance that a step loads a new tile
  double store_probability = 0.08;          ///< chance that a step stores a live value
  double final_store_probability = 0.7;     ///< chance that a never-stored leaf is stored at the end
  bool windows = false;                     ///< window parents and window steps (see the file comment)
  double window_probability = 0.3;          ///< chance that a step is a window step
  double runtime_offset_probability = 0.5;  ///< chance that a slice has runtime offsets
  double unaligned_probability = 0.12;      ///< chance that a window kernel has an unalignable slice
  bool valid_extents = false;               ///< partial and runtime valid extents, setters (see the file comment)
  double partial_valid_probability = 0.6;   ///< chance that a load has a partial valid rectangle
  double runtime_extent_probability = 0.5;  ///< chance that a new partial extent is a runtime scalar
  double spmd_extent_probability = 0.3;     ///< chance that a new runtime extent derives from the block index
  double setter_probability = 0.06;         ///< chance that a step is a tile.set_validshape
  double stays_tile_probability = 0.1;      ///< chance that a valid-extent kernel must stay Tile
  bool regions = false;                     ///< branches and loops with carries (see the file comment)
  double region_probability = 0.3;          ///< chance that a step is a branch or a loop
  double region_tile_probability = 0.1;     ///< chance that a region kernel must stay Tile
  double region_valid_probability =
      0;                 ///< of those, the chance that the construct is a runtime-valid load and store in a loop body
  int region_depth = 2;  ///< deepest nesting of regions
  bool cube = false;     ///< cube (`aic`) kernels instead of elementwise ones (see the file comment)
  double cube_loop_probability = 0.3;        ///< chance that a chain is a K loop
  double cube_wide_probability = 0.15;       ///< chance that a chain accumulates into a wider accumulator
  double cube_acc_probability = 0.4;         ///< chance that a chain's matmul is followed by a matmul_acc
  double cube_transpose_probability = 0.25;  ///< chance that a rhs is loaded transposed (B^T, transpose_view)
  double cube_extract_probability = 0.25;    ///< chance that an operand is extracted from a larger Mat tile
  double cube_partial_probability = 0.12;    ///< chance that a chain multiplies partially valid operands
  double cube_tile_probability = 0.1;        ///< chance that a cube kernel has a store that must stay Tile
  double gm_parameter_probability = 0.0;     ///< chance that top-level stores name the parameter (see the file comment)
  double cube_guard_probability = 0.0;       ///< chance that a chain's matmul_acc sits in one arm of an if (guarded accumulator)
  double cube_branch_init_probability =
      0.0;  ///< chance that a K loop from tile.create() writes its update as an if (see the file comment)
  double half_reduction_probability =
      0.0;                       ///< with `extended`: chance of one FP16/BF16 reduction (stays Tile, see the file comment)
  double abi_probability = 0.0;  ///< chance of one construct the PTO kernel ABI forbids (stays Tile, see the file comment)
  double column_transfer_probability =
      0.0;  ///< with `extended`: chance of a column vector loaded from, and of outputs stored as, one-column tensors
};

/// An index operand: scalar number `scalar` (see gen_plan::scalars) when >= 0, else literal `num`.
struct gen_index {
  int scalar = -1;
  std::int64_t num = 0;
  bool operator==(const gen_index&) const = default;
};
/// What a region operand names: a value, an INDEX operand, or a GM tensor: output number `id`
/// when `id >= 0`, else input number `-1 - id` (the emitter uses its current SSA version).
enum class gen_ref_kind : std::uint8_t { tile, scalar, tensor };
struct gen_ref {
  gen_ref_kind kind = gen_ref_kind::tile;
  int id = -1;        ///< tile: value number; tensor: see above
  gen_index index{};  ///< scalar operand
};
/// One loop carry or branch result. `arg` and `result` are value numbers (tiles) or scalar numbers
/// (scalars); tensors have neither in the plan: the result becomes the current version of `init`'s
/// tensor (branches use only `init.id` of a tensor result).
struct gen_carry {
  gen_ref init;
  int arg = -1;
  int result = -1;
};
/// Region structure in the flat step list: `open` (op cf_if, cf_for or cf_while), the region's
/// steps ending in a `cf_yield` step, for `if` a `next` marker and the else steps (ending in a
/// yield), then `close` (same op).
enum class gen_mark : std::uint8_t { none, open, next, close };
/// One planned step; `in` and `result` are value numbers, `tensor` an input or output number.
/// Scalar steps (tile.get_block_idx, scalar.mul, scalar.add) read `args` and define scalar
/// number `result` instead. A store with `args` writes at row `args[0]` (a runtime offset).
/// Region opens: `args` is (flag) for if, (start, stop, step) for for, (limit) for while, whose
/// condition is `carries[0] < limit`; `carries` are the carries or results, `trips` the most
/// iterations any binding runs. Yields list their operands in `refs`.
struct gen_step {
  opcode op = opcode::tile_add;
  std::vector<int> in;
  std::int64_t mantissa = 0;  ///< scalar operand mantissa * 10^exp10 (scalar forms, full)
  int exp10 = 0;
  int tensor = -1;
  std::int64_t row = 0;  ///< load/store row offset
  int result = -1;
  std::array<gen_index, 2> offsets{};  ///< slice/assemble (row, column) offsets
  std::vector<gen_index> args;         ///< scalar steps' operands; set_validshape's (rows, cols)
  gen_mark mark = gen_mark::none;
  std::vector<gen_carry> carries;
  std::vector<gen_ref> refs;
  std::int64_t trips = 0;
  int iv = -1;               ///< cf_for: the scalar number its induction variable binds, if the body reads it
  std::vector<kwarg> flags;  ///< literal keyword arguments (a store's atomic/pre_relu/pre_quant)
  bool from_output = false;  ///< a load whose `tensor` is an output number (it reads the output's current version)
};
/// What storage a value names: its own, a window of a tile (slice), or a relabel (reshape).
enum class gen_kind : std::uint8_t { dense, window, relabel };
struct gen_value {
  dtype dt = dtype::fp32;
  std::int64_t cols = 0;
  double lo = 0, hi = 0;  ///< conservative bounds of every element
  bool stored = false;
  bool used = false;
  std::int64_t rows = 0;
  gen_kind kind = gen_kind::dense;
  std::int64_t pitch = 0;              ///< row pitch in elements: `cols`, or the sliced dense tile's
  bool unaligned = false;              ///< a window whose column offset selection cannot prove aligned
  std::array<gen_index, 2> valid{};    ///< valid (rows, cols); the physical shape when fully valid
  bool stale = false;                  ///< a set_validshape superseded it: an old metadata version
  opcode made_by = opcode::tile_load;  ///< the defining op
  bool viewed = false;                 ///< a slice, reshape or assemble result may alias its storage
  bool hidden = false;                 ///< defined inside a closed region: out of scope
  bool carried = false;                ///< a loop's region argument
  memory_space space = memory_space::vec;
  bool zn = false;  ///< a Mat relabel in the ZN layout (tile.transpose_view's result)
};
/// An INDEX scalar: a kernel parameter (`param`, bound by `name`) or a scalar SSA result.
/// Over every legal binding its value lies in [lo, hi] and is a multiple of `multiple`, which
/// is all an alignment proof can know about it (parameters and the block index: 1).
struct gen_scalar {
  std::string name;
  bool param = false;
  std::int64_t lo = 0, hi = 0;
  std::int64_t multiple = 1;
  bool extent = false;   ///< used as a valid extent (its range then starts at 0)
  bool control = false;  ///< a region parameter (`flag<n>`, `count<n>`, `limit<n>`, `step<n>`)
  bool flag = false;     ///< a BOOL parameter
  bool hidden = false;   ///< defined inside a closed region: out of scope
};
struct gen_tensor {
  dtype dt = dtype::fp32;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};
struct gen_plan {
  std::uint64_t seed = 0;
  std::int64_t rows = 16;
  std::vector<gen_tensor> inputs;
  std::vector<gen_tensor> outputs;  ///< rows grow by the stored value's rows per store
  std::vector<gen_value> values;
  std::vector<gen_step> steps;
  std::vector<gen_scalar> scalars;  ///< parameters are the ones with `param`, in parameter order
  std::int64_t block_max = -1;      ///< legal block_idx range [0, block_max]; -1: never queried
  bool unaligned = false;           ///< a slice's alignment is unprovable: the kernel must stay Tile
  /// Non-empty: the kernel must stay Tile, and selection's reason contains this ("metadata
  /// version": an old version is read after a set_validshape; "window": a slice is narrowed;
  /// region kernels: "step", "GM branch results must alias the same parameter", "GM loop results
  /// must retain their initial parameter alias"; cube kernels: the store keyword, "atomic",
  /// "pre_relu" or "pre_quant"; FP16/BF16 reductions: "on FP16 is not in the extended rollout"
  /// or BF16; the PTO kernel ABI: "columns > 1", "parameter direction").
  std::string tile_reason;
  bool cube = false;             ///< an `aic` kernel of cube chains
  bool gm_by_parameter = false;  ///< stores outside regions name the output parameter; returns name it too
};

/// Values for a kernel's runtime scalars: each parameter by name, and the block index.
struct gen_binding {
  std::vector<std::pair<std::string, std::int64_t>> scalars;
  std::int64_t block_idx = 0;
  bool operator==(const gen_binding&) const = default;
};

/// The abstract plan of a kernel: deterministic per (seed, ops, options).
gen_plan generate_plan(std::uint64_t seed, int ops, const gen_options& opt = {});

/// Builds the Tile-stage program of a plan: one `aiv @gen_<seed>` function; op k is on line k + 2.
program emit(const gen_plan& plan);

/// A valid, unplanned Tile kernel with about `ops` steps (see the file comment).
program generate_kernel(std::uint64_t seed, int ops, const gen_options& opt = {});

/// A deliberately broken lowering: a copy of `p` whose addressed buffer.alloc ops all sit at
/// address 0, so live buffers overlap (proves a campaign's numerics check can fail).
program collapse_addresses(const program& p);

/// A binding as text for failure messages: `block_idx=2 row0=5 ...`.
std::string describe(const gen_binding& b);

/// Legal bindings covering every recorded range: all scalars at their minimum (0), at 1, at the
/// middle and at the maximum, then a corner mix (parameters alternately at their maximum and
/// minimum, the block index at its maximum). Duplicates are dropped; a kernel without runtime
/// scalars gets one empty binding. Extent ranges start at 0 and end at the extent they may reach,
/// so every extent parameter is bound to an empty, a one-element, a middle and a full extent, and
/// block index extents (`block * K`, capped at the extent) to 0, K, a middle value and the full
/// extent. Region parameters (flags in [0, 1], counts and limits in [0, 3], steps in [1, 2]) get
/// two more bindings, so each count and limit also meets 2 and the flags mix: one with flags
/// alternating and counts at 2, one with flags alternating the other way and counts staggered.
std::vector<gen_binding> bindings(const gen_plan& plan);

/// Simulator options running a plan's kernel under `b` (block_num covers the block range), with
/// one signalling NaN planted in each float input tensor.
sim::sim_options sim_options_for(const gen_plan& plan, const gen_binding& b, std::uint64_t seed);

}  // namespace testing
}  // namespace tile2buffer
