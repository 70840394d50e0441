// SPDX-License-Identifier: Apache-2.0
/// @file tools/file_io.hpp
/// Whole-file reads and writes for the command-line tools.
#pragma once

#include <cerrno>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

namespace t2b_tools {

/// Appends what `in` holds to `out`, stopping once more than `limit` bytes were read (so a
/// caller can tell "too large" without holding a file of any size); false on a read error.
inline bool read_all(std::FILE* in, std::string& out, std::size_t limit = std::numeric_limits<std::size_t>::max()) {
  char buf[1 << 16];
  std::size_t n = 0;
  const std::size_t start = out.size();
  while (out.size() - start <= limit && (n = std::fread(buf, 1, sizeof buf, in)) > 0) out.append(buf, n);
  return std::ferror(in) == 0;
}

/// Appends the file at `path` to `out` (see `read_all` for `limit`); false when it cannot be read,
/// with `errno` saying why (the caller prints `std::strerror(errno)`).
inline bool read_file(const std::string& path, std::string& out,
                      std::size_t limit = std::numeric_limits<std::size_t>::max()) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  const bool ok = read_all(f, out, limit);
  const int why = errno;  // fclose may overwrite it
  std::fclose(f);
  errno = why;
  return ok;
}

/// Writes `bytes` to the file at `path` (stdout for `-`); false unless every byte reached it.
inline bool write_file(const std::string& path, std::string_view bytes) {
  std::FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return (f == stdout ? std::fflush(f) : std::fclose(f)) == 0 && ok;
}

}  // namespace t2b_tools
