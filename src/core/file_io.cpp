#include "ossa/core/file_io.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#define OSSA_HAVE_FSYNC 1
#endif

namespace ossa {

Result<bool> write_file_atomically(const std::string& path, std::span<const uint8_t> bytes) {
  namespace fs = std::filesystem;
  auto fail = [&](const std::string& what) { return Result<bool>::failure(path + ": " + what); };
  std::error_code ec;
  if (path.empty()) return Result<bool>::failure("an output path is empty");
  if (fs::is_directory(path, ec)) return fail("is a folder");
  static std::atomic<unsigned> counter{0};
#ifdef OSSA_HAVE_FSYNC
  const long pid = static_cast<long>(getpid());
#else
  const long pid = 0;
#endif
  const std::string temp = path + ".tmp-" + std::to_string(pid) + "-" + std::to_string(counter++);
  std::FILE* f = std::fopen(temp.c_str(), "wbx");  // "x": never opens an existing file
  if (!f) return fail(std::string("cannot create (") + std::strerror(errno) + ")");
  bool ok = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = std::fflush(f) == 0 && ok;
#ifdef OSSA_HAVE_FSYNC
  ok = fsync(fileno(f)) == 0 && ok;
#endif
  const int write_errno = errno;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    fs::remove(temp, ec);
    return fail(std::string("write failed (") + std::strerror(write_errno) + "); nothing was written");
  }
  fs::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    return fail("cannot replace (" + ec.message() + "); nothing was written");
  }
  return true;
}

}  // namespace ossa
