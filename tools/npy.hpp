// SPDX-License-Identifier: Apache-2.0
/// @file tools/npy.hpp
/// A small reader and writer of NumPy's `.npy` format, for `t2b-opt --run`.
///
/// Read: format versions 1.0 and 2.0 (2-byte and 4-byte header length), C order only, any
/// element descriptor of the form `<byte order><kind><size>` (`<f4`, `|i1`, ...); the caller
/// decides which descriptors it accepts. Multi-byte elements must be little-endian (`<`);
/// one-byte elements may say `|`, `<` or `>` and are reported as `|`. The header must be the
/// dictionary NumPy writes: exactly the keys `descr`, `fortran_order` and `shape`, with a string,
/// `True`/`False` and a tuple of non-negative integers. The data must be exactly
/// product(shape) * size bytes. Every check is bounds-checked on the file bytes, and anything else
/// (garbage, truncation, structured dtypes, extra bytes) is one error message, never a crash.
///
/// Write: format 1.0, C order, the header padded with spaces so the data starts at a multiple of
/// 64 bytes, as NumPy itself writes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace t2b_npy {

/// One array as read from or written to a `.npy` file. `data` holds the element bytes in C order,
/// little-endian, exactly as in the file.
struct array {
  std::string descr;                ///< normalized: `<f4`, `<i4`, `|i1`, ...
  std::vector<std::int64_t> shape;  ///< () is a 0-d array of one element
  std::string data;
  int item_size = 0;  ///< bytes per element (from the descriptor)
};

/// "(16, 32)" / "(5,)" / "()": a shape as NumPy prints it.
inline std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

namespace detail {

/// A cursor over the header text: the dictionary literal NumPy writes.
struct header_reader {
  std::string_view s;
  std::size_t i = 0;

  void skip_space() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  bool eat(char c) {
    skip_space();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  /// A Python string literal in single or double quotes, without escapes.
  bool string_literal(std::string& out) {
    skip_space();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return false;
    const char q = s[i++];
    const std::size_t start = i;
    while (i < s.size() && s[i] != q) {
      if (s[i] == '\\' || s[i] == '\n') return false;
      ++i;
    }
    if (i >= s.size()) return false;
    out.assign(s.substr(start, i - start));
    ++i;
    return true;
  }
  bool word(std::string_view w) {
    skip_space();
    if (s.substr(i, w.size()) != w) return false;
    const std::size_t end = i + w.size();
    if (end < s.size() && (s[end] == '_' || (s[end] >= 'A' && s[end] <= 'Z') || (s[end] >= 'a' && s[end] <= 'z') ||
                           (s[end] >= '0' && s[end] <= '9')))
      return false;
    i = end;
    return true;
  }
  /// A non-negative decimal integer below 2^48 (larger dimensions cannot match any data anyway).
  bool integer(std::int64_t& out) {
    skip_space();
    const std::size_t start = i;
    std::int64_t v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (v >= (std::int64_t{1} << 48)) return false;
      v = v * 10 + (s[i] - '0');
      ++i;
    }
    if (i == start) return false;
    if (i < s.size() && s[i] == 'L') ++i;  // Python 2 long literal, as old NumPy versions wrote
    out = v;
    return true;
  }
  /// `(d0, d1, ...)` with an optional trailing comma; a one-element tuple needs the comma.
  bool tuple(std::vector<std::int64_t>& out) {
    if (!eat('(')) return false;
    out.clear();
    if (eat(')')) return true;
    for (;;) {
      std::int64_t v = 0;
      if (out.size() >= 64 || !integer(v)) return false;
      out.push_back(v);
      if (eat(')')) return out.size() != 1 ? true : false;  // "(5)" is an int in Python, not a tuple
      if (!eat(',')) return false;
      if (eat(')')) return true;
    }
  }
};

inline std::uint32_t little(const unsigned char* p, int n) {
  std::uint32_t v = 0;
  for (int k = n - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

/// Checks `descr` (`<f4`, `|i1`, ...); returns an error or "" and sets the normalized form and size.
inline std::string check_descr(const std::string& descr, std::string& normalized, int& size) {
  if (descr.size() < 3 || descr.size() > 5) return "unsupported dtype descriptor '" + descr + "'";
  const char order = descr[0];
  const char kind = descr[1];
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return "unsupported dtype descriptor '" + descr + "' (no byte-order character)";
  if (!((kind >= 'a' && kind <= 'z') || (kind >= 'A' && kind <= 'Z'))) return "unsupported dtype descriptor '" + descr + "'";
  int n = 0;
  for (std::size_t k = 2; k < descr.size(); ++k) {
    if (descr[k] < '0' || descr[k] > '9') return "unsupported dtype descriptor '" + descr + "'";
    n = n * 10 + (descr[k] - '0');
  }
  if (n <= 0 || n > 64) return "unsupported dtype descriptor '" + descr + "'";
  if (n == 1) {
    normalized = std::string("|") + kind + "1";
  } else {
    if (order == '>') return "non-little-endian data (dtype '" + descr + "'); only little-endian ('<') files are read";
    if (order != '<') return "dtype '" + descr + "' does not state little-endian byte order ('<')";
    normalized = descr;
  }
  size = n;
  return {};
}

}  // namespace detail

/// Parses the bytes of a whole `.npy` file into `out`. Returns "" on success, else one message
/// saying what is wrong (without the file name).
inline std::string parse(std::string_view file, array& out) {
  static constexpr std::string_view magic("\x93NUMPY", 6);
  if (file.size() < magic.size() || file.substr(0, magic.size()) != magic) return "not a .npy file (bad magic string)";
  const auto* bytes = reinterpret_cast<const unsigned char*>(file.data());
  if (file.size() < 8) return "truncated .npy header (no format version)";
  const int major = bytes[6];
  const int minor = bytes[7];
  if ((major != 1 && major != 2) || minor != 0)
    return "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) + " (1.0 and 2.0 are read)";
  const std::size_t len_size = major == 1 ? 2 : 4;
  const std::size_t prefix = 8 + len_size;
  if (file.size() < prefix) return "truncated .npy header (no header length)";
  const std::size_t header_len = detail::little(bytes + 8, static_cast<int>(len_size));
  if (header_len > file.size() - prefix)
    return "truncated .npy header: it says " + std::to_string(header_len) + " bytes, the file has " +
           std::to_string(file.size() - prefix) + " after the length";
  const std::string_view header = file.substr(prefix, header_len);
  for (const char c : header)
    if (static_cast<unsigned char>(c) >= 0x80 || (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r'))
      return "malformed .npy header (not printable ASCII)";

  detail::header_reader h{header};
  const std::string bad = "malformed .npy header (expected {'descr': ..., 'fortran_order': ..., 'shape': (...)})";
  if (!h.eat('{')) return bad;
  bool have_descr = false, have_order = false, have_shape = false, fortran = false;
  std::string descr;
  std::vector<std::int64_t> shape;
  if (!h.eat('}')) {
    for (;;) {
      std::string key;
      if (!h.string_literal(key) || !h.eat(':')) return bad;
      if (key == "descr") {
        if (have_descr) return "malformed .npy header (key 'descr' given twice)";
        h.skip_space();
        if (h.i < header.size() && header[h.i] == '[') return "unsupported dtype: structured arrays are not read";
        if (!h.string_literal(descr)) return "malformed .npy header (descr is not a string)";
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_order) return "malformed .npy header (key 'fortran_order' given twice)";
        if (h.word("True")) fortran = true;
        else if (!h.word("False")) return "malformed .npy header (fortran_order is not True or False)";
        have_order = true;
      } else if (key == "shape") {
        if (have_shape) return "malformed .npy header (key 'shape' given twice)";
        if (!h.tuple(shape)) return "malformed .npy header (shape is not a tuple of non-negative integers)";
        have_shape = true;
      } else {
        return "malformed .npy header (unexpected key '" + key + "')";
      }
      if (h.eat('}')) break;
      if (!h.eat(',')) return bad;
      if (h.eat('}')) break;
    }
  }
  h.skip_space();
  if (h.i != header.size()) return "malformed .npy header (text after the dictionary)";
  if (!have_descr || !have_order || !have_shape)
    return std::string("malformed .npy header (missing key '") +
           (!have_descr   ? "descr"
            : !have_order ? "fortran_order"
                          : "shape") +
           "')";
  if (fortran) return "fortran_order is True; only C-order arrays are read (save np.ascontiguousarray(x))";
  std::string normalized;
  int size = 0;
  if (std::string e = detail::check_descr(descr, normalized, size); !e.empty()) return e;

  // Why the division: dimensions are below 2^48 and the running count is kept at most the file
  // size, so no product can overflow; a count beyond the file size is already truncated data.
  const std::size_t data_offset = prefix + header_len;
  const std::uint64_t available = file.size() - data_offset;
  std::uint64_t count = 1;
  bool too_big = false;
  for (const std::int64_t d : shape)
    if (d == 0) count = 0;
  for (const std::int64_t d : shape) {
    if (count == 0) break;
    if (static_cast<std::uint64_t>(d) > available / count) {
      too_big = true;
      break;
    }
    count *= static_cast<std::uint64_t>(d);
  }
  const std::uint64_t need = too_big ? UINT64_MAX : count * static_cast<std::uint64_t>(size);
  if (need > available)
    return "truncated .npy data: shape " + shape_text(shape) + " of '" + descr + "' needs " +
           (too_big ? std::string("more") : std::to_string(need)) + " bytes, the file has " + std::to_string(available);
  if (need < available)
    return "malformed .npy file: " + std::to_string(available - need) + " bytes after the data of shape " + shape_text(shape);
  out.descr = normalized;
  out.shape = shape;
  out.item_size = size;
  out.data.assign(file.substr(data_offset));
  return {};
}

/// The bytes of a `.npy` file (format 1.0, C order) holding `data` (C-order, little-endian
/// elements of `descr`) with shape `shape`.
inline std::string serialize(std::string_view descr, const std::vector<std::int64_t>& shape, std::string_view data) {
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  // magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string file("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size() & 0xFFu);
  file += static_cast<char>((header.size() >> 8) & 0xFFu);
  file += header;
  file.append(data);
  return file;
}

}  // namespace t2b_npy
