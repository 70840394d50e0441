// SPDX-License-Identifier: Apache-2.0
/// @file sim/compare.hpp
/// The differential numerics check: run a Tile kernel and its Buffer lowering on the same seeded
/// inputs and compare every GM element, sentinel bands included. This is the project's numerical
/// evidence without an NPU.
///
/// One entry point:
///
///     sim::compare_report r = sim::check_numerics(tile_program, buffer_program, "kernel", {.seed = 7});
///     if (!r.ok) std::fputs(r.text.c_str(), stderr);  // "numerics: ok" on success
///
/// Rules, per element of every tensor parameter (`in` tensors included: they must stay unchanged):
///  - both runs must agree on whether the element was written; unwritten `out` elements keep -555;
///  - written values compare exactly (NaN equals NaN, +0 equals -0), except values that depend on
///    an op without a correctly rounded native implementation (exp, log, sqrt, div, divs, recip):
///    |tile - buffer| <= rel * max(|tile|, |buffer|) + 1e-6, with rel = 1e-6 for FP32 and one unit
///    in the last place of the stored type for FP16 (2^-10) and BF16 (2^-7);
///  - a written value derived from never-written storage (poison) is a failure in either run; when
///    both runs stored it, the report says the kernel reads before it writes;
///  - no sentinel-band element may be written (sentinel hit).
/// A failure report names the tensor, the element (row, col), both values, the op that last wrote
/// the element in the Buffer run (mnemonic and line:col) and where its data came from.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "tile2buffer/detail/algorithm.hpp"
#include "tile2buffer/diag/diagnostic.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/sim/gm.hpp"
#include "tile2buffer/sim/interpreter.hpp"
#include "tile2buffer/sim/launch.hpp"
#include "tile2buffer/sim/options.hpp"
#include "tile2buffer/sim/run_buffer.hpp"
#include "tile2buffer/sim/run_tile.hpp"

namespace tile2buffer {
inline namespace v0 {
namespace sim {

/// One disagreement between the two runs.
struct mismatch {
  /// `both_poison`: both runs stored data derived from never-written storage, so the kernel itself
  /// reads before it writes (an `out` parameter, an uninitialized tile); not the lowering's fault.
  enum class kind : std::uint8_t {
    value,
    unwritten_in_buffer,
    unwritten_in_tile,
    buffer_poison,
    tile_poison,
    both_poison,
    sentinel
  };
  kind what = kind::value;
  std::string tensor;
  std::int64_t row = 0;  ///< row and column in packed order (band elements: beyond the shape)
  std::int64_t col = 0;
  std::int64_t flat = 0;
  std::string description;  ///< the report lines for this element
};

struct compare_report {
  bool ok = false;
  std::string text;                  ///< "numerics: ok\n" or the failure report
  std::vector<mismatch> mismatches;  ///< every disagreeing element (run failures are only in `text`)
  std::size_t compared = 0;          ///< tensor elements compared, bands included
  run_result tile;                   ///< the reference run
  run_result buffer;                 ///< the Buffer run
};

/// Relative tolerance for values that depend on an inexact op (see the file comment).
inline double relative_tolerance(dtype d) {
  if (d == dtype::fp16) return 1.0 / 1024.0;
  if (d == dtype::bf16) return 1.0 / 128.0;
  return 1e-6;
}

namespace detail {

inline bool values_agree(dtype d, element a, element b, bool inexact) {
  if (!is_float(d)) return a.i == b.i;
  const double x = a.f, y = b.f;
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (x == y) return true;
  if (!inexact) return false;
  return std::fabs(x - y) <= relative_tolerance(d) * std::fmax(std::fabs(x), std::fabs(y)) + 1e-6;
}

inline std::string where(const gm_tensor& g, std::int64_t f) {
  if (f < 0) return g.name + "[flat " + std::to_string(f) + "] (sentinel band before the tensor)";
  const std::string rc = g.name + "[" + std::to_string(f / g.cols) + ", " + std::to_string(f % g.cols) + "]";
  return f >= g.size() ? rc + " (sentinel band after the tensor)" : rc;
}

inline std::string value_name(const function& f, std::uint32_t v) {
  if (v == no_id || v >= f.values.size()) return "<unknown>";
  const auto n = f.name_of(value_id{v});
  return "`" + (n.empty() ? "%" + std::to_string(v) : std::string(n)) + "`";
}

/// "last written by <store>; value computed by <op>" for a written GM element.
inline std::string provenance(const function& f, const cell_meta& m, std::string_view side) {
  std::string s = "    " + std::string(side) + ": last written by " + describe_op(f, m.writer);
  if (m.state == cell_state::poison) {
    s += "; the data was never written: ";
    s += m.origin != no_id ? value_name(f, m.origin) + " was read before anything wrote it, first by "
                           : std::string("never-written storage was first read by ");
    s += describe_op(f, m.producer);
  } else if (m.producer != no_id && m.producer != m.writer) {
    s += "; value computed by " + describe_op(f, m.producer);
    if (m.via != no_id && m.via != m.producer && m.via != m.writer) s += ", last moved by " + describe_op(f, m.via);
  }
  return s + "\n";
}

inline void compare_tensor(const function& tf, const function& bf, const gm_tensor& t, const gm_tensor& b, compare_report& rep) {
  for (std::int64_t f = -t.band; f < t.size() + t.band; ++f) {
    ++rep.compared;
    const cell_meta& mt = t.meta_at(f);
    const cell_meta& mb = b.meta_at(f);
    const bool wt = mt.writer != no_id;
    const bool wb = mb.writer != no_id;
    const element et = t.get(f);
    const element eb = b.get(f);
    mismatch mm;
    mm.tensor = t.name;
    mm.flat = f;
    mm.row = f >= 0 ? f / t.cols : -1;
    mm.col = f >= 0 ? f % t.cols : f;
    const std::string at = where(t, f);
    const auto value_text = [&](const element& e, bool written, const cell_meta& m) {
      if (!written)
        return std::string(m.state == cell_state::unset && t.interior(f) && t.dir == direction::out ? "unwritten ("
                                                                                                    : "unchanged (") +
               format_element(t.dt, e) + ")";
      return format_element(t.dt, e);
    };
    if (!t.interior(f)) {
      if (!wt && !wb) continue;
      mm.what = mismatch::kind::sentinel;
      mm.description = "  " + at + ": sentinel hit";
      mm.description += wb ? ", buffer = " + format_element(t.dt, eb) + "\n" + provenance(bf, mb, "buffer")
                           : ", tile = " + format_element(t.dt, et) + "\n" + provenance(tf, mt, "tile");
      rep.mismatches.push_back(std::move(mm));
      continue;
    }
    if (wb && mb.state == cell_state::poison && wt && mt.state == cell_state::poison) {
      mm.what = mismatch::kind::both_poison;
      mm.description = "  " + at +
                       ": both runs stored never-written data (the kernel reads storage before anything writes it)\n" +
                       provenance(tf, mt, "tile") + provenance(bf, mb, "buffer");
      rep.mismatches.push_back(std::move(mm));
      continue;
    }
    if (wb && mb.state == cell_state::poison) {
      mm.what = mismatch::kind::buffer_poison;
      mm.description = "  " + at + ": buffer stored poison (tile = " + value_text(et, wt, mt) + ")\n" +
                       provenance(bf, mb, "buffer");
      rep.mismatches.push_back(std::move(mm));
      continue;
    }
    if (wt && mt.state == cell_state::poison) {
      mm.what = mismatch::kind::tile_poison;
      mm.description = "  " + at + ": the Tile reference stored poison (buffer = " + value_text(eb, wb, mb) + ")\n" +
                       provenance(tf, mt, "tile");
      rep.mismatches.push_back(std::move(mm));
      continue;
    }
    if (wt == wb && values_agree(t.dt, et, eb, mt.inexact || mb.inexact)) continue;
    mm.what = wt == wb ? mismatch::kind::value : wt ? mismatch::kind::unwritten_in_buffer : mismatch::kind::unwritten_in_tile;
    mm.description = "  " + at + ": tile = " + value_text(et, wt, mt) + ", buffer = " + value_text(eb, wb, mb) + "\n";
    if (wb) mm.description += provenance(bf, mb, "buffer");
    if (wt) mm.description += provenance(tf, mt, "tile");
    rep.mismatches.push_back(std::move(mm));
  }
}

inline std::string failed_run(std::string_view which, const run_result& r, std::string_view file) {
  std::string s = "numerics: " + std::string(which) + " run failed\n";
  for (const auto& d : r.errors) {
    s += "  ";
    if (!file.empty()) s += std::string(file) + ":";
    s += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + std::string(d.message.view()) + "\n";
    for (const auto& n : d.notes) s += "    note: " + std::string(n.message.view()) + "\n";  // e.g. the block of a grid
  }
  return s;
}

}  // namespace detail

/// Compares two finished runs of the same kernel (see the file comment for the rules).
inline compare_report compare_runs(run_result tile, run_result buffer, const sim_options& opt = {}) {
  compare_report rep;
  rep.tile = std::move(tile);
  rep.buffer = std::move(buffer);
  if (!rep.tile.ok()) {
    rep.text = detail::failed_run("Tile reference", rep.tile, opt.source);
    return rep;
  }
  if (!rep.buffer.ok()) {
    rep.text = detail::failed_run("Buffer", rep.buffer, opt.source);
    return rep;
  }
  std::string problems;
  const std::size_t n = rep.tile.tensors.size() < rep.buffer.tensors.size() ? rep.tile.tensors.size() : rep.buffer.tensors.size();
  for (std::size_t p = 0; p < n; ++p) {
    const auto& t = rep.tile.tensors[p];
    const auto& b = rep.buffer.tensors[p];
    if (!t && !b) continue;
    if (!t || !b || t->size() != b->size() || t->dt != b->dt || t->band != b->band) {
      problems += "  parameter " + std::to_string(p) + ": the two functions disagree on this GM tensor\n";
      continue;
    }
    const std::size_t before = rep.mismatches.size();
    detail::compare_tensor(*rep.tile.fn, *rep.buffer.fn, *t, *b, rep);
    if (rep.mismatches.size() == before) continue;
    // Where the disagreement is: interior bounding box and sentinel hits.
    std::int64_t r0 = t->rows, r1 = -1, c0 = t->cols, c1 = -1, hits = 0;
    for (std::size_t i = before; i < rep.mismatches.size(); ++i) {
      const mismatch& m = rep.mismatches[i];
      if (m.what == mismatch::kind::sentinel) {
        ++hits;
        continue;
      }
      r0 = m.row < r0 ? m.row : r0;
      r1 = m.row > r1 ? m.row : r1;
      c0 = m.col < c0 ? m.col : c0;
      c1 = m.col > c1 ? m.col : c1;
    }
    problems += "  " + t->name + ": " + std::to_string(rep.mismatches.size() - before) + " elements differ";
    if (r1 >= 0)
      problems += " within rows [" + std::to_string(r0) + ", " + std::to_string(r1) + "] x cols [" + std::to_string(c0) + ", " +
                  std::to_string(c1) + "]";
    if (hits > 0) problems += (r1 >= 0 ? ", " : ": ") + std::to_string(hits) + " sentinel hits";
    problems += "\n";
  }
  if (problems.empty() && rep.mismatches.empty()) {
    rep.ok = true;
    rep.text = "numerics: ok\n";
    return rep;
  }
  std::string name = rep.tile.fn ? std::string(rep.tile.fn->name_of()) : std::string();
  const auto unwritten_in_both = static_cast<std::size_t>(std::count_if(
      rep.mismatches.begin(), rep.mismatches.end(), [](const mismatch& m) { return m.what == mismatch::kind::both_poison; }));
  rep.text = "numerics: FAILED for @" + name + " (seed " + std::to_string(opt.seed) +
             "): " + std::to_string(rep.mismatches.size()) + " of " + std::to_string(rep.compared) + " GM elements differ";
  if (unwritten_in_both > 0)
    rep.text += ", " + std::to_string(unwritten_in_both) +
                " of them never-written data in both runs (the kernel reads before it writes)";
  rep.text += "\n";
  rep.text += problems;
  // Why: the most telling problems first (sentinel hits, poison), then values in element order.
  std::vector<const mismatch*> order;
  for (const auto& m : rep.mismatches) order.push_back(&m);
  const auto severity = [](const mismatch* m) {
    switch (m->what) {
      case mismatch::kind::sentinel: return 0;
      case mismatch::kind::both_poison: return 1;
      case mismatch::kind::buffer_poison: return 2;
      case mismatch::kind::tile_poison: return 3;
      default: return 4;
    }
  };
  std::stable_sort(order.begin(), order.end(), [&](const mismatch* a, const mismatch* b) { return severity(a) < severity(b); });
  int shown = 0;
  for (const mismatch* m : order) {
    if (shown++ == opt.max_reported) {
      rep.text += "  ... and " + std::to_string(order.size() - static_cast<std::size_t>(opt.max_reported)) + " more\n";
      break;
    }
    rep.text += m->description;
  }
  int notes = 0;
  for (const auto& a : rep.buffer.alias_reads) {
    if (notes++ == 4) break;
    const function& bf = *rep.buffer.fn;
    rep.text += "  note: " + describe_op(bf, a.op) + " read " + detail::value_name(bf, a.read) + " where " +
                describe_op(bf, a.writer) + " wrote through " + detail::value_name(bf, a.written) + " (their storage overlaps)\n";
  }
  return rep;
}

/// Runs function `kernel` of `tile_program` (the reference, normally Tile stage) and of
/// `buffer_program` (its lowering) on the inputs `make_inputs` builds from `opt` and the reference
/// function, and compares the results. Each side runs the interpreter of its function's stage, so a
/// kernel that selection kept at Tile stage is checked Tile against Tile. Both sides run as
/// `run_function` launches them (sim/launch.hpp): one block, the whole grid with
/// `opt.whole_grid`, and an orchestration `kernel` with every submit's grid. Parameters must agree in
/// number, kind, element type and shape (names may differ); scalar values are bound by the
/// reference's parameter names.
inline compare_report check_numerics(const program& tile_program, const program& buffer_program, std::string_view kernel,
                                     const sim_options& opt = {}) {
  const function* tf = tile_program.find(kernel);
  const function* bf = buffer_program.find(kernel);
  if (!tf || !bf) {
    compare_report rep;
    rep.text = "numerics: kernel @" + std::string(kernel) + " is missing from the " + (tf ? "Buffer" : "Tile") + " program\n";
    return rep;
  }
  bool same_params = tf->params.size() == bf->params.size();
  for (std::size_t p = 0; same_params && p < tf->params.size(); ++p) {
    const type& a = tf->type_of(tf->params[p].value);
    const type& b = bf->type_of(bf->params[p].value);
    same_params = a.kind == b.kind && a.dt == b.dt && a.shape == b.shape;
  }
  if (!same_params) {
    compare_report rep;
    rep.text = "numerics: @" + std::string(kernel) + " has different parameters in the Tile and Buffer programs\n";
    return rep;
  }
  const sim_inputs in = make_inputs(*tf, opt);
  run_result tile = run_function(tile_program, *tf, in, opt);
  if (!tile.ok()) return compare_runs(std::move(tile), run_result{}, opt);
  // Why the Buffer run has no element budget: it runs the trips the Tile reference ran within
  // the budget, plus the copies and views lowering adds, which must not read as a lowering
  // failure. Its op budget still stops an endless loop.
  sim_options buffer_opt = opt;
  buffer_opt.max_elements = std::numeric_limits<std::uint64_t>::max();
  return compare_runs(std::move(tile), run_function(buffer_program, *bf, in, buffer_opt), opt);
}

}  // namespace sim
}  // namespace v0
}  // namespace tile2buffer
