#include "ossa/core/file_io.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
// windows.h first: the headers below need its types.
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <share.h>
#include <sys/stat.h>
#elif defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace ossa {

namespace fs = std::filesystem;

fs::path path_from_utf8(const std::string& utf8) {
#ifdef _WIN32
  try {
    return fs::path(std::u8string(utf8.begin(), utf8.end()));
  } catch (const std::exception&) {  // not UTF-8: libstdc++ cannot convert it to UTF-16
    return fs::path();
  }
#else
  return fs::path(utf8);
#endif
}

bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  std::error_code ec;
  const fs::path pa = fs::absolute(path_from_utf8(a), ec).lexically_normal();
  const fs::path pb = fs::absolute(path_from_utf8(b), ec).lexically_normal();
  std::error_code same_ec;
  return pa == pb || fs::equivalent(pa, pb, same_ec);
}

bool path_is_inside(const fs::path& path, const fs::path& folder) {
  auto p = path.begin(), f = folder.begin();
  for (; f != folder.end() && !f->empty(); ++f, ++p)
    if (p == path.end() || *p != *f) return false;
  return true;
}

fs::path running_program_folder() {
#ifdef _WIN32
  wchar_t path[32768];
  const DWORD n = GetModuleFileNameW(nullptr, path, static_cast<DWORD>(std::size(path)));
  if (n == 0 || n >= std::size(path)) return {};
  return fs::path(std::wstring(path, n)).parent_path();
#else
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);  // Linux
  return ec ? fs::path() : self.parent_path();
#endif
}

std::string utf8_from_path(const fs::path& path) {
#ifdef _WIN32
  try {
    const std::u8string text = path.u8string();
    return std::string(text.begin(), text.end());
  } catch (const std::exception&) {  // unpaired UTF-16 surrogates
    return path.string();
  }
#else
  return path.string();
#endif
}

namespace {

long process_id() {
#ifdef _WIN32
  return static_cast<long>(_getpid());
#elif defined(__unix__) || defined(__APPLE__)
  return static_cast<long>(getpid());
#else
  return 0;
#endif
}

// A new file opened for writing; fails (errno set) if anything already exists at `path`, so an existing file
// or link is never truncated or written through.
std::FILE* create_new_file(const fs::path& path) {
#ifdef _WIN32
  // msvcrt, MinGW's C runtime, does not honour fopen's "x" (under Wine it opens and truncates an existing
  // file): _O_EXCL is the exclusive create, and the wide name reaches any Unicode path.
  int fd = -1;
  if (_wsopen_s(&fd, path.c_str(), _O_CREAT | _O_EXCL | _O_WRONLY | _O_BINARY, _SH_DENYRW,
                _S_IREAD | _S_IWRITE) != 0)
    return nullptr;
  std::FILE* f = _fdopen(fd, "wb");
  if (!f) {
    const int error = errno;
    _close(fd);
    errno = error;
  }
  return f;
#else
  return std::fopen(path.c_str(), "wbx");  // "x": never opens an existing file
#endif
}

// Flushes the file's data to the disk (not only to the OS), so the rename never publishes a file whose
// contents a power cut could still lose.
bool sync_to_disk(std::FILE* f) {
#ifdef _WIN32
  return _commit(_fileno(f)) == 0;  // FlushFileBuffers
#elif defined(__unix__) || defined(__APPLE__)
  return fsync(fileno(f)) == 0;
#else
  (void)f;
  return true;
#endif
}

}  // namespace

Result<bool> write_file_atomically(const std::string& path, std::span<const uint8_t> bytes) {
  auto fail = [&](const std::string& what) { return Result<bool>::failure(path + ": " + what); };
  std::error_code ec;
  if (path.empty()) return Result<bool>::failure("an output path is empty");
  const fs::path target = path_from_utf8(path);
  if (target.empty()) return fail("is not a valid UTF-8 path");
  if (fs::is_directory(target, ec)) return fail("is a folder");
  static std::atomic<unsigned> counter{0};
  const fs::path temp =
      path_from_utf8(path + ".tmp-" + std::to_string(process_id()) + "-" + std::to_string(counter++));
  std::FILE* f = create_new_file(temp);
  if (!f) return fail(std::string("cannot create (") + std::strerror(errno) + ")");
  bool ok = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = std::fflush(f) == 0 && ok;
  ok = sync_to_disk(f) && ok;
  const int write_errno = errno;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    fs::remove(temp, ec);
    return fail(std::string("write failed (") + std::strerror(write_errno) + "); nothing was written");
  }
  // Replaces an existing file, on Windows too (MinGW's libstdc++ renames with MoveFileExW, replacing;
  // test_file_io).
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    return fail("cannot replace (" + ec.message() + "); nothing was written");
  }
  return true;
}

}  // namespace ossa
