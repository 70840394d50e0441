// SPDX-License-Identifier: Apache-2.0
/// @file tools/file_io.hpp
/// Whole-file reads and writes for the command-line tools.
#pragma once

#include <cerrno>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
inline bool read_file(const std::string& path, std::string& out, std::size_t limit = std::numeric_limits<std::size_t>::max()) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  const bool ok = read_all(f, out, limit);
  const int why = errno;  // fclose may overwrite it
  std::fclose(f);
  errno = why;
  return ok;
}

/// A regular file mapped read-only: the input is read once, by the kernel, straight into the
/// pages the parser reads (no copy into a heap buffer of the file's size). `release()` hands the
/// pages back once parsing is done; the view stays valid, and reading it again (a diagnostic's
/// source line) faults the bytes back in from the page cache.
class mapped_file {
 public:
  mapped_file() = default;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file() {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  /// Maps `path` when it is a non-empty regular file of at most `limit` bytes; false otherwise
  /// (a pipe, an empty or a too large file: the caller reads it with `read_file` instead).
  bool map(const std::string& path, std::size_t limit) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    void* p = MAP_FAILED;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && static_cast<std::size_t>(st.st_size) <= limit)
      p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) return false;
    data_ = p;
    size_ = static_cast<std::size_t>(st.st_size);
    ::madvise(data_, size_, MADV_SEQUENTIAL);
    return true;
  }
  [[nodiscard]] std::string_view view() const { return {static_cast<const char*>(data_), data_ == nullptr ? 0 : size_}; }
  void release() {
    if (data_ != nullptr) ::madvise(data_, size_, MADV_DONTNEED);
  }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Writes `bytes` to the file at `path` (stdout for `-`); false unless every byte reached it.
inline bool write_file(const std::string& path, std::string_view bytes) {
  std::FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return (f == stdout ? std::fflush(f) : std::fclose(f)) == 0 && ok;
}

}  // namespace t2b_tools
