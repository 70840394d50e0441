// SPDX-License-Identifier: Apache-2.0
/// @file emit/memory_map.hpp
/// A memory map of a planned program as SVG (`t2b-opt --memory-map=FILE`): one plot per kernel,
/// memory space and planner, each allocation a rectangle spanning its live op range (x) and its
/// bytes [address, address + size) (y), so reuse shows as rectangles stacked on the same bytes at
/// disjoint op ranges. Read by people, and by tests/emit/memory_map_test.py through the `data-*`
/// attributes and the tick lines, so the geometry is checked against the planned addresses.
///
/// Why here and not in the tool: it reads only the planned program and the planners' own
/// lifetime analysis, so a host can draw its plans too; like the other consumers it sits above
/// the pipeline and nothing below depends on it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tile2buffer/analysis/divisibility.hpp"
#include "tile2buffer/analysis/descriptor.hpp"
#include "tile2buffer/analysis/storage.hpp"
#include "tile2buffer/analysis/windows.hpp"
#include "tile2buffer/detail/text.hpp"
#include "tile2buffer/ir/function.hpp"
#include "tile2buffer/ir/walk.hpp"
#include "tile2buffer/options.hpp"
#include "tile2buffer/plan/lifetime.hpp"

namespace tile2buffer {
inline namespace v0 {

/// One `tile.alloc` of a planned kernel.
struct memory_map_allocation {
  text name;                ///< the tile.alloc result's name, `%N` when it has none
  std::uint32_t index = 0;  ///< position in the kernel's storage facts (fixes its colour)
  memory_space space = memory_space::vec;
  std::int64_t size = 0;                ///< bytes
  std::optional<std::int64_t> address;  ///< none under PTOAS
  live_interval live;                   ///< op positions, as the planners compute them
  bool address_from_input = false;      ///< the input program already placed it (a hand placement)
};

/// A loop or branch of the kernel: the op positions from its header to its last nested op.
struct memory_map_region {
  std::string_view kind;  ///< "for", "while" or "if"
  std::uint32_t first = 0, last = 0;
  std::uint32_t line = 0;  ///< its source line, 0 when unknown
};

struct memory_map_kernel {
  text name;
  std::vector<std::string_view> ops;  ///< mnemonic at each program-order position
  /// What the x axis calls each position: the op's value name, else `line N`; empty for a
  /// tile.alloc, which declares storage (the pipeline inserts most of them) rather than computing.
  std::vector<text> labels;
  std::vector<std::uint32_t> lines;  ///< each position's source line, 0 when unknown
  std::vector<memory_map_region> regions;
  std::vector<memory_map_allocation> allocations;
  bool addresses_from_input = false;  ///< some allocation's address came with the input
};

/// One planner's plan of a whole program: a column of the picture.
struct memory_map_panel {
  planner_kind planner = planner_kind::pypto;
  std::vector<memory_map_kernel> kernels;
  /// Why this planner could not plan the program (e.g. an allocation that does not fit); empty
  /// when it could. The column then says so instead of drawing a plan.
  text failure{};
};

namespace detail {
/// Names of the allocations `f` places itself (its tile.alloc ops with `addr =`).
template <class = void>
constexpr std::vector<std::string_view> placed_in(const function& f) {
  std::vector<std::string_view> out;
  const storage_facts facts(f);
  for (const allocation& a : facts.allocations())
    if (a.address) out.push_back(f.name_of(a.mem));
  return out;
}
}  // namespace detail

/// Reads the allocations of every device Tile kernel of `planned` (the program after the plan
/// pass). Why the intervals are recomputed rather than taken from the planner: the plan pass only
/// appends `addr =` to tile.alloc ops, so ops and values keep their ids and `live_intervals` on the
/// planned kernel gives exactly the intervals the planner placed by. With `input` (the program
/// before the pipeline), an allocation the input already addressed is marked as such.
template <class = void>
constexpr memory_map_panel memory_map_of(const program& planned, planner_kind planner, const program* input = nullptr) {
  memory_map_panel panel{planner, {}};
  for (const function& f : planned.functions) {
    if (!f.is_device() || f.stage != ir_stage::tile) continue;
    const storage_facts facts(f);
    if (facts.allocations().empty()) continue;
    const scalar_divisibility div(f);
    const window_facts windows(f, div);
    const std::vector<live_interval> live = live_intervals(f, facts, &windows);
    std::vector<std::string_view> from_input;
    if (input != nullptr)
      for (const function& g : input->functions)
        if (g.name_of() == f.name_of() && g.stage == ir_stage::tile) from_input = detail::placed_in(g);
    memory_map_kernel k{text(f.name_of()), {}, {}, {}, {}, {}, false};
    std::vector<std::uint32_t> position(f.ops.size(), 0);
    walk(f, [&](op_id o) {
      const op_node& n = f.op(o);
      position[o.index] = static_cast<std::uint32_t>(k.ops.size());
      k.ops.push_back(mnemonic(n.code()));
      const location loc = f.loc_of(o);
      k.lines.push_back(loc.line);
      text label;
      if (n.code() != opcode::tile_alloc) {
        if (n.results.count > 0 && !f.name_of(f.result(o)).empty()) label << f.name_of(f.result(o));
        else if (loc.known()) label << "line " << static_cast<std::int64_t>(loc.line);
        else label << mnemonic(n.code());
      }
      k.labels.push_back(static_cast<text&&>(label));
    });
    // A region spans its header and every op nested in it, in program order.
    const auto last_nested = [&](const auto& self, op_id o) -> std::uint32_t {
      std::uint32_t last = position[o.index];
      const op_node& n = f.op(o);
      for (std::uint32_t r = 0; r < n.region_count; ++r)
        for (const op_id inner : f.ops_of(f.region_of(o, r))) {
          const std::uint32_t l = self(self, inner);
          last = l > last ? l : last;
        }
      return last;
    };
    walk(f, [&](op_id o) {
      const opcode c = f.op(o).code();
      if (c != opcode::cf_for && c != opcode::cf_while && c != opcode::cf_if) return;
      k.regions.push_back(memory_map_region{c == opcode::cf_for     ? "for"
                                            : c == opcode::cf_while ? "while"
                                                                    : "if",
                                            position[o.index], last_nested(last_nested, o), f.loc_of(o).line});
    });
    for (std::uint32_t i = 0; i < facts.allocations().size(); ++i) {
      const allocation& a = facts.allocations()[i];
      memory_map_allocation m{text(f.name_of(a.mem)), i, a.space, a.capacity, a.address, live[i], false};
      for (const std::string_view n : from_input)
        m.address_from_input = m.address_from_input || (a.address && n == f.name_of(a.mem));
      k.addresses_from_input = k.addresses_from_input || m.address_from_input;
      if (m.name.empty()) m.name << '%' << static_cast<std::int64_t>(a.mem.index);
      k.allocations.push_back(static_cast<memory_map_allocation&&>(m));
    }
    panel.kernels.push_back(static_cast<memory_map_kernel&&>(k));
  }
  return panel;
}

/// How much of one memory space a kernel's plan uses: `peak`, the highest byte any placed
/// allocation reaches (none when nothing in the space has an address: PTOAS places later), and
/// `live_bound`, the largest sum of sizes of allocations live at one op position, which no
/// placement can go below. Their gap is what a planner loses to fragmentation and alignment.
struct memory_space_usage {
  std::optional<std::int64_t> peak;
  std::int64_t live_bound = 0;
  std::uint32_t live_bound_at = 0;  ///< an op position where `live_bound` bytes are live
};

constexpr memory_space_usage usage_of(const memory_map_kernel& k, memory_space space) {
  memory_space_usage u;
  for (const memory_map_allocation& a : k.allocations)
    if (a.space == space && a.address) u.peak = u.peak && *u.peak > *a.address + a.size ? *u.peak : *a.address + a.size;
  const auto& all = k.allocations;
  const live_peak live = largest_live_sum(
      all.size(), [&](std::size_t i) { return all[i].space == space ? all[i].size : std::int64_t{0}; },
      [&](std::size_t i) { return all[i].space == space ? all[i].live : live_interval{}; });
  u.live_bound = live.bytes;
  u.live_bound_at = live.at;
  return u;
}

namespace detail {

// Geometry of one plot, in pixels. Coordinates are kept in hundredths of a pixel as integers so
// no floating point enters the picture and it cannot change with a compiler's rounding.
inline constexpr std::int64_t mm_plot_w = 420, mm_plot_h = 240;
// Below the plot: the source-op labels (rotated), the axis caption, the legend, the not-drawn note.
inline constexpr std::int64_t mm_left = 86, mm_top = 52, mm_bottom = 118, mm_right = 24;
inline constexpr std::int64_t mm_cell_w = mm_left + mm_plot_w + mm_right;
inline constexpr std::int64_t mm_cell_h = mm_top + mm_plot_h + mm_bottom + 24;  // + one note line
inline constexpr std::int64_t mm_header_h = 64;

/// An allocation's fill. Why by allocation index, not position: one allocation looks the same in
/// every planner's column, and in the legend.
constexpr void mm_colour(text& out, std::uint32_t index) {
  out << "hsl(" << static_cast<std::int64_t>(index * 67 % 360) << ",65%,68%)";
}
/// `v` hundredths of a pixel as a decimal with two digits.
constexpr void mm_px(text& out, std::int64_t v) {
  if (v < 0) {
    out << '-';
    v = -v;
  }
  out << v / 100 << '.' << static_cast<char>('0' + v / 10 % 10) << static_cast<char>('0' + v % 10);
}

constexpr void mm_escape(text& out, std::string_view s) {
  for (const char c : s) {
    switch (c) {
      case '&': out << "&amp;"; break;
      case '<': out << "&lt;"; break;
      case '>': out << "&gt;"; break;
      case '"': out << "&quot;"; break;
      default: out << c;
    }
  }
}

/// Bytes for a label: KiB when whole, so capacities read as the hardware manuals state them.
constexpr void mm_bytes(text& out, std::int64_t b) {
  if (b >= 1024 && b % 1024 == 0) out << b / 1024 << " KiB";
  else out << b << " B";
}

/// Where one drawn allocation sits on the byte axis. Under PTOAS there is no address, so the
/// rectangles are stacked in definition order (`stacked`): the lifetimes stay readable and the
/// stack's height is what the space would need without any reuse. The stack starts above any
/// address the input already fixed, so it never seems to collide with one.
struct mm_box {
  const memory_map_allocation* a = nullptr;
  std::int64_t offset = 0;
  bool stacked = false;
};

/// The allocations of `k` in `space` that can be drawn, and the names of those that cannot.
template <class = void>
constexpr std::vector<mm_box> mm_boxes(const memory_map_kernel& k, memory_space space, text& skipped) {
  std::vector<mm_box> boxes;
  std::int64_t stack = 0;
  for (const auto& a : k.allocations)
    if (a.space == space && a.address && *a.address + a.size > stack) stack = align32(*a.address + a.size);
  for (const auto& a : k.allocations) {
    if (a.space != space) continue;
    if (a.live.empty() || a.size <= 0) {
      if (!skipped.empty()) skipped << ", ";
      skipped << a.name << (a.live.empty() ? " (never used)" : " (size not static)");
      continue;
    }
    if (a.address) {
      boxes.push_back(mm_box{&a, *a.address, false});
    } else {
      boxes.push_back(mm_box{&a, stack, true});
      stack += align32(a.size);
    }
  }
  return boxes;
}

/// A row's byte axis: `ticks` steps of `step` bytes from 0.
struct mm_axis {
  std::int64_t step = 8;
  std::int64_t ticks = 4;
  [[nodiscard]] constexpr std::int64_t top() const { return step * ticks; }
};

/// The capacity when the row uses at least a quarter of it (the capacity line then sits at its
/// true height), else 4 to 8 power-of-two steps just above the highest byte used, so a kernel of
/// a few KiB is not a sliver under a 192 KiB line.
constexpr mm_axis mm_axis_for(std::int64_t used, std::int64_t capacity) {
  if (used <= capacity && used * 4 >= capacity) return mm_axis{capacity / 4, 4};
  // Above the capacity (PTOAS stacked without reuse) the axis reaches past it, line included.
  const std::int64_t target = used > capacity ? used : used + used / 4 > 32 ? used + used / 4 : 32;
  std::int64_t step = 8;
  while (8 * step < target) step *= 2;
  return mm_axis{step, (target + step - 1) / step};
}

struct mm_cell {
  std::int64_t x = 0, y = 0;  // top-left corner, hundredths
  mm_axis axis;
};

/// A plot's title line: `@kernel · space · planner`.
constexpr void mm_cell_title(text& out, std::int64_t x0, std::int64_t y, const memory_map_kernel& k, memory_space space,
                             planner_kind planner) {
  out << "<text class=\"cell-title\" x=\"";
  mm_px(out, x0);
  out << "\" y=\"";
  mm_px(out, y + 2000);
  out << "\">@";
  mm_escape(out, k.name.view());
  out << " · " << name(space) << " · " << name(planner) << "</text>\n";
}

/// Draws one plot: `k`'s allocations in `space` as `planner` placed them.
template <class = void>
constexpr void mm_draw_cell(text& out, const mm_cell& c, const memory_map_kernel& k, memory_space space, planner_kind planner) {
  text skipped;
  const std::vector<mm_box> boxes = mm_boxes(k, space, skipped);
  const std::int64_t x0 = c.x + mm_left * 100, y_origin = c.y + (mm_top + mm_plot_h) * 100;
  const std::int64_t positions = k.ops.empty() ? 1 : static_cast<std::int64_t>(k.ops.size());
  const auto px_x = [&](std::int64_t pos) { return x0 + pos * mm_plot_w * 100 / positions; };
  const auto px_y = [&](std::int64_t bytes) { return y_origin - bytes * mm_plot_h * 100 / c.axis.top(); };
  const std::int64_t capacity = space_capacity(space);

  const memory_space_usage use = usage_of(k, space);
  out << "<g class=\"cell\" data-kernel=\"";
  mm_escape(out, k.name.view());
  out << "\" data-space=\"" << name(space) << "\" data-planner=\"" << name(planner) << "\" data-positions=\"" << positions
      << "\" data-live-bound=\"" << use.live_bound << "\"";
  if (use.peak && addressed(planner)) out << " data-peak=\"" << *use.peak << '"';
  out << ">\n";
  mm_cell_title(out, x0, c.y, k, space, planner);
  // The plan's peak against the liveness lower bound, right-aligned on the title line.
  out << "<text class=\"usage\" text-anchor=\"end\" x=\"";
  mm_px(out, x0 + mm_plot_w * 100);
  out << "\" y=\"";
  mm_px(out, c.y + 2000);
  out << "\">";
  if (use.peak && addressed(planner)) {
    out << "peak ";
    mm_bytes(out, *use.peak);
    out << ", ";
  }
  out << "live bound ";
  mm_bytes(out, use.live_bound);
  out << "</text>\n";
  if (!addressed(planner) || k.addresses_from_input) {
    out << "<text class=\"note\" x=\"";
    mm_px(out, x0);
    out << "\" y=\"";
    mm_px(out, c.y + 3600);
    out << "\">";
    if (k.addresses_from_input)
      out << "addresses from the input (pre-planned), kept by the planner" << (addressed(planner) ? "" : "; ");
    if (!addressed(planner))
      out << (k.addresses_from_input ? "others " : "") << "stacked in definition order, no reuse (PTOAS assigns addresses)";
    out << "</text>\n";
  }
  // Frame, then byte ticks (the scale a reader, and the test, measures rectangles against).
  out << "<rect class=\"frame\" x=\"";
  mm_px(out, x0);
  out << "\" y=\"";
  mm_px(out, y_origin - mm_plot_h * 100);
  out << "\" width=\"" << mm_plot_w << "\" height=\"" << mm_plot_h << "\"/>\n";
  for (std::int64_t t = 0; t <= c.axis.ticks; ++t) {
    const std::int64_t bytes = c.axis.step * t;
    out << "<line class=\"ytick\" data-bytes=\"" << bytes << "\" x1=\"";
    mm_px(out, x0 - 500);
    out << "\" x2=\"";
    mm_px(out, x0);
    out << "\" y1=\"";
    mm_px(out, px_y(bytes));
    out << "\" y2=\"";
    mm_px(out, px_y(bytes));
    out << "\"/><text class=\"ylabel\" x=\"";
    mm_px(out, x0 - 700);
    out << "\" y=\"";
    mm_px(out, px_y(bytes) + 350);
    out << "\">";
    mm_bytes(out, bytes);
    out << "</text>\n";
  }
  // Source ops along x: each computing op's value name (or line), rotated, skipping one that
  // would crowd the last drawn; the hover text names the op and its line. Positions still count
  // every op (allocations included): that is what the planners' lifetimes are measured in.
  std::int64_t last_label = -100000;
  for (std::int64_t p = 0; p < positions; ++p) {
    const auto i = static_cast<std::size_t>(p);
    if (i >= k.labels.size() || k.labels[i].empty()) continue;
    const std::int64_t mid = (px_x(p) + px_x(p + 1)) / 2;
    if (mid - last_label < 1100) continue;
    last_label = mid;
    out << "<text class=\"xlabel\" data-op=\"" << p << "\" x=\"";
    mm_px(out, mid);
    out << "\" y=\"";
    mm_px(out, y_origin + 1000);
    out << "\" transform=\"rotate(-45 ";
    mm_px(out, mid);
    out << ' ';
    mm_px(out, y_origin + 1000);
    out << ")\"><title>op " << p << ": " << k.ops[i];
    if (k.lines[i] != 0) out << " (line " << static_cast<std::int64_t>(k.lines[i]) << ')';
    out << "</title>";
    // Long names are cut; the hover text and the rectangles' titles have them whole.
    const std::string_view l = k.labels[i].view();
    mm_escape(out, l.size() > 14 ? l.substr(0, 13) : l);
    if (l.size() > 14) out << "…";
    out << "</text>\n";
  }
  out << "<text class=\"axis\" x=\"";
  mm_px(out, x0 + mm_plot_w * 50);
  out << "\" y=\"";
  mm_px(out, y_origin + 7400);
  out << "\">source ops in program order (value name, or line)</text>\n";

  // Loops and branches: a band over the ops each one spans, so a lifetime widened to a whole
  // loop reads as such.
  for (const memory_map_region& r : k.regions) {
    const std::int64_t left = px_x(r.first), right = px_x(static_cast<std::int64_t>(r.last) + 1);
    out << "<rect class=\"region\" data-kind=\"" << r.kind << "\" data-first-op=\"" << static_cast<std::int64_t>(r.first)
        << "\" data-last-op=\"" << static_cast<std::int64_t>(r.last) << "\" x=\"";
    mm_px(out, left);
    out << "\" y=\"";
    mm_px(out, y_origin - mm_plot_h * 100);
    out << "\" width=\"";
    mm_px(out, right - left);
    out << "\" height=\"" << mm_plot_h << "\"><title>" << r.kind;
    if (r.line != 0) out << " at line " << static_cast<std::int64_t>(r.line);
    out << ": ops " << static_cast<std::int64_t>(r.first) << ".." << static_cast<std::int64_t>(r.last) << "</title></rect>\n";
    out << "<text class=\"region-label\" x=\"";
    mm_px(out, left + 200);
    out << "\" y=\"";
    mm_px(out, y_origin - mm_plot_h * 100 + 1000);
    out << "\">" << r.kind << "</text>\n";
  }

  std::vector<const memory_map_allocation*> unlabelled;
  for (const mm_box& b : boxes) {
    const memory_map_allocation& a = *b.a;
    const std::int64_t top = px_y(b.offset + a.size), bottom = px_y(b.offset);
    const std::int64_t left = px_x(a.live.start), right = px_x(static_cast<std::int64_t>(a.live.end) + 1);
    out << "<rect class=\"alloc" << (b.stacked ? " unplaced" : "") << "\" data-name=\"";
    mm_escape(out, a.name.view());
    out << "\" data-space=\"" << name(a.space) << "\" data-address=\"";
    if (a.address) out << *a.address;
    else out << "none";
    out << "\" data-offset=\"" << b.offset << "\" data-size=\"" << a.size << "\" data-first-op=\""
        << static_cast<std::int64_t>(a.live.start) << "\" data-last-op=\"" << static_cast<std::int64_t>(a.live.end) << "\" x=\"";
    mm_px(out, left);
    out << "\" y=\"";
    mm_px(out, top);
    out << "\" width=\"";
    mm_px(out, right - left);
    out << "\" height=\"";
    mm_px(out, bottom - top);
    out << "\" fill=\"";
    mm_colour(out, a.index);
    out << "\"><title>";
    mm_escape(out, a.name.view());
    out << ": " << name(a.space) << ", " << a.size << " bytes, ";
    if (a.address)
      out << "address " << *a.address << (a.address_from_input ? " (from the input)" : "") << ", bytes [" << *a.address << ", "
          << *a.address + a.size << ")";
    else out << "no address (PTOAS assigns it), drawn at offset " << b.offset;
    out << ", live ops " << static_cast<std::int64_t>(a.live.start) << ".." << static_cast<std::int64_t>(a.live.end);
    if (a.live.end < k.ops.size()) out << " (" << k.ops[a.live.start] << " .. " << k.ops[a.live.end] << ')';
    out << "</title></rect>\n";
    // A label only where it fits (about 6 px a character); the legend names the others.
    if (right - left < static_cast<std::int64_t>(a.name.size()) * 600 + 400 || bottom - top < 1200) {
      unlabelled.push_back(&a);
    } else {
      out << "<text class=\"name\" x=\"";
      mm_px(out, (left + right) / 2);
      out << "\" y=\"";
      mm_px(out, (top + bottom) / 2 + 350);
      out << "\">";
      mm_escape(out, a.name.view());
      out << "</text>\n";
    }
  }

  // The capacity: at its height when on the axis, else along the top edge, marked as cut.
  const bool on_scale = capacity <= c.axis.top();
  const std::int64_t cap_y = on_scale ? px_y(capacity) : y_origin - mm_plot_h * 100;
  out << "<line class=\"capacity\" data-bytes=\"" << capacity << "\" data-on-scale=\"" << (on_scale ? "true" : "false")
      << "\" x1=\"";
  mm_px(out, x0);
  out << "\" x2=\"";
  mm_px(out, x0 + mm_plot_w * 100);
  out << "\" y1=\"";
  mm_px(out, cap_y);
  out << "\" y2=\"";
  mm_px(out, cap_y);
  out << "\"><title>" << name(space) << " capacity: " << capacity << " bytes</title></line>\n";
  out << "<text class=\"cap-label\" x=\"";
  mm_px(out, x0 + mm_plot_w * 100);
  out << "\" y=\"";
  mm_px(out, cap_y + 1100);  // under the line, inside the plot: above it is the cell's note
  out << "\">capacity ";
  mm_bytes(out, capacity);
  if (!on_scale) {
    out << " (off scale: axis cut at ";
    mm_bytes(out, c.axis.top());
    out << ')';
  }
  out << "</text>\n";
  // The legend: a swatch and the name of every rectangle too small for its label.
  if (!unlabelled.empty()) {
    std::int64_t x = x0;
    const std::int64_t y = y_origin + 9000;
    out << "<g class=\"legend\"><text class=\"note\" x=\"";
    mm_px(out, x);
    out << "\" y=\"";
    mm_px(out, y);
    out << "\">small:</text>\n";
    x += 3800;
    for (std::size_t i = 0; i < unlabelled.size(); ++i) {
      const memory_map_allocation* a = unlabelled[i];
      if (x > x0 + mm_plot_w * 100 - 3000) {
        // No room for the rest: an ellipsis whose hover text names them.
        out << "<text class=\"more\" x=\"";
        mm_px(out, x);
        out << "\" y=\"";
        mm_px(out, y);
        out << "\"><title>";
        for (std::size_t j = i; j < unlabelled.size(); ++j) {
          if (j > i) out << ", ";
          mm_escape(out, unlabelled[j]->name.view());
        }
        out << "</title>…</text>\n";
        break;
      }
      out << "<rect class=\"swatch\" data-name=\"";
      mm_escape(out, a->name.view());
      out << "\" x=\"";
      mm_px(out, x);
      out << "\" y=\"";
      mm_px(out, y - 800);
      out << "\" width=\"8\" height=\"8\" fill=\"";
      mm_colour(out, a->index);
      out << "\"/><text class=\"note\" x=\"";
      mm_px(out, x + 1100);
      out << "\" y=\"";
      mm_px(out, y);
      out << "\">";
      mm_escape(out, a->name.view());
      out << "</text>\n";
      x += 1100 + static_cast<std::int64_t>(a->name.size()) * 600 + 1200;
    }
    out << "</g>\n";
  }
  if (!skipped.empty()) {
    out << "<text class=\"note\" x=\"";
    mm_px(out, x0);
    out << "\" y=\"";
    mm_px(out, y_origin + 10600);
    out << "\">not drawn: ";
    mm_escape(out, skipped.view());
    out << "</text>\n";
  }
  out << "</g>\n";
}

/// A plot a planner could not produce: the frame, and why (the planner's own diagnostic).
template <class = void>
constexpr void mm_draw_failed_cell(text& out, const mm_cell& c, const memory_map_kernel& k, memory_space space,
                                   planner_kind planner, std::string_view why) {
  const std::int64_t x0 = c.x + mm_left * 100, top = c.y + mm_top * 100;
  out << "<g class=\"cell failed-cell\" data-kernel=\"";
  mm_escape(out, k.name.view());
  out << "\" data-space=\"" << name(space) << "\" data-planner=\"" << name(planner) << "\" data-failed=\"true\">\n";
  mm_cell_title(out, x0, c.y, k, space, planner);
  out << "<rect class=\"failed\" x=\"";
  mm_px(out, x0);
  out << "\" y=\"";
  mm_px(out, top);
  out << "\" width=\"" << mm_plot_w << "\" height=\"" << mm_plot_h << "\"/>\n";
  // The diagnostic, wrapped at spaces into lines of about 70 characters.
  std::int64_t y = top + 2000;
  out << "<text class=\"failure\" x=\"";
  mm_px(out, x0 + 800);
  out << "\" y=\"";
  mm_px(out, y);
  out << "\">" << name(planner) << " could not plan this program:</text>\n";
  std::string_view rest = why;
  for (int line = 0; line < 12 && !rest.empty(); ++line) {
    std::size_t cut = rest.size() <= 70 ? rest.size() : rest.rfind(' ', 70);
    if (cut == std::string_view::npos || cut == 0) cut = rest.size() < 70 ? rest.size() : 70;
    y += 1400;
    out << "<text class=\"failure\" x=\"";
    mm_px(out, x0 + 800);
    out << "\" y=\"";
    mm_px(out, y);
    out << "\">";
    mm_escape(out, rest.substr(0, cut));
    out << "</text>\n";
    rest = rest.substr(cut);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\n')) rest = rest.substr(1);
  }
  out << "</g>\n";
}

}  // namespace detail

/// The SVG page: one column per panel (planner), one row per kernel and memory space in use.
/// Rows share one byte axis across columns, so the planners compare at a glance. `source` is
/// named in the page heading.
template <class = void>
constexpr text render_memory_map(const std::vector<memory_map_panel>& panels, std::string_view source) {
  using namespace detail;
  struct row {
    std::size_t kernel;
    memory_space space;
    mm_axis axis;
  };
  // Every panel plans the same program, so kernel i is the same kernel in every column (a
  // panel whose planner failed has none: it marks each row instead).
  std::vector<row> rows;
  std::size_t kernels = 0;
  for (const auto& p : panels) kernels = p.kernels.size() > kernels ? p.kernels.size() : kernels;
  for (std::size_t ki = 0; ki < kernels; ++ki) {
    for (std::size_t s = 0; s < detail::space_names.size(); ++s) {
      const auto space = static_cast<memory_space>(s);
      bool present = false;
      std::int64_t used = 0;
      for (const auto& p : panels) {
        if (ki >= p.kernels.size()) continue;
        text ignored;
        for (const auto& a : p.kernels[ki].allocations) present = present || a.space == space;
        for (const mm_box& b : mm_boxes(p.kernels[ki], space, ignored))
          used = b.offset + b.a->size > used ? b.offset + b.a->size : used;
      }
      if (present) rows.push_back(row{ki, space, mm_axis_for(used, space_capacity(space))});
    }
  }
  const std::int64_t columns = panels.empty() ? 1 : static_cast<std::int64_t>(panels.size());
  const std::int64_t width = columns * mm_cell_w;
  const std::int64_t height = mm_header_h + static_cast<std::int64_t>(rows.size() > 0 ? rows.size() : 1) * mm_cell_h;
  text out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width
      << ' ' << height << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
      << "<style>.frame{fill:#fafafa;stroke:#999}.alloc{stroke:#222;stroke-width:0.8}"
         ".unplaced{stroke-dasharray:4 2}.capacity{stroke:#c00;stroke-width:1.5;stroke-dasharray:6 3}"
         ".ytick{stroke:#999}.ylabel{text-anchor:end;fill:#444}.xlabel{text-anchor:end;fill:#444;font-size:9px}"
         ".axis{text-anchor:middle;fill:#444}.cap-label{text-anchor:end;fill:#c00;font-size:10px;paint-order:stroke;stroke:#fff;stroke-width:3px}"
         ".name{text-anchor:middle;font-size:10px}.note{fill:#666;font-size:10px}"
         ".cell-title{font-weight:bold;font-size:12px}.heading{font-size:14px;font-weight:bold}"
         ".region{fill:#36c;fill-opacity:0.07;stroke:#36c;stroke-opacity:0.4;stroke-dasharray:2 2}"
         ".region-label{fill:#36c;font-size:9px}.swatch{stroke:#222;stroke-width:0.6}"
         ".failed{fill:#fff0f0;stroke:#c00}.failure{fill:#c00;font-size:10px}.more{fill:#666;font-size:10px}</style>\n";
  out << "<text class=\"heading\" x=\"10\" y=\"22\">memory map of ";
  mm_escape(out, source);
  // Short lines: a one-column page is only one plot wide.
  out << "</text>\n<text class=\"note\" x=\"10\" y=\"38\">x: the ops where the allocation is live (program "
         "order; loops, shaded, widened as the planners do)</text>\n<text class=\"note\" x=\"10\" y=\"51\">y: bytes [address, "
         "address + size) · hover a rectangle for its name, size, address and lifetime</text>\n";
  if (rows.empty())
    out << "<text class=\"note\" x=\"10\" y=\"" << mm_header_h + 20 << "\">no device kernel has a planned allocation</text>\n";
  for (std::size_t col = 0; col < panels.size(); ++col) {
    const memory_map_panel& p = panels[col];
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const mm_cell c{static_cast<std::int64_t>(col) * mm_cell_w * 100,
                      (mm_header_h + static_cast<std::int64_t>(r) * mm_cell_h) * 100, rows[r].axis};
      if (!p.failure.empty()) {
        const memory_map_kernel* k = nullptr;
        for (const auto& q : panels)
          if (rows[r].kernel < q.kernels.size()) k = &q.kernels[rows[r].kernel];
        if (k != nullptr) mm_draw_failed_cell(out, c, *k, rows[r].space, p.planner, p.failure.view());
        continue;
      }
      if (rows[r].kernel >= p.kernels.size()) continue;
      mm_draw_cell(out, c, p.kernels[rows[r].kernel], rows[r].space, p.planner);
    }
  }
  out << "</svg>\n";
  return out;
}

}  // namespace v0
}  // namespace tile2buffer
