// HLSL compiled in a child process (shader_compiler.h).
#include "shader_compiler.h"

#include <windows.h>

#include "ossa/core/file_io.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ossa::detail {
namespace {
namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fresh, empty folder under the user's temporary folder; removed by the caller.
Result<fs::path> make_work_folder() {
  static std::atomic<unsigned> counter{0};
  std::error_code ec;
  const fs::path base = fs::temp_directory_path(ec);
  if (ec)
    return Result<fs::path>::failure("no temporary folder for the shader compiler (" + ec.message() + ")");
  for (int attempt = 0; attempt < 100; ++attempt) {
    const fs::path folder = base / ("ossa-hlsl-" + std::to_string(GetCurrentProcessId()) + "-" +
                                    std::to_string(counter++) + "-" + std::to_string(GetTickCount64()));
    if (fs::create_directory(folder, ec)) return folder;
  }
  return Result<fs::path>::failure("cannot make a folder for the shader compiler under " + base.string());
}

// Runs `program folder`, waits, returns its exit status (or a message when it cannot start).
Result<DWORD> run_child(const std::string& program, const fs::path& folder) {
  std::wstring command = L"\"" + fs::path(program).wstring() + L"\" \"" + folder.wstring() + L"\"";
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION process{};
  if (!CreateProcessW(nullptr, command.data(), nullptr, nullptr, FALSE, CREATE_NO_WINDOW, nullptr, nullptr,
                      &startup, &process))
    return Result<DWORD>::failure(
        "cannot start the shader compiler " + program + " (Windows error " + std::to_string(GetLastError()) +
        "): it is built beside ossa.exe as ossa_hlslc.exe; "
        "$OSSA_HLSL_COMPILER or D3D11DeviceOptions::shader_compiler name another place");
  WaitForSingleObject(process.hProcess, INFINITE);
  DWORD status = 1;
  GetExitCodeProcess(process.hProcess, &status);
  CloseHandle(process.hThread);
  CloseHandle(process.hProcess);
  return status;
}

// The compiler's messages in the log, without the progress lines.
std::string messages(const std::string& log) {
  std::stringstream lines(log);
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("compiling ", 0) == 0 || line == "done" || line == "done with errors" || line.empty())
      continue;
    out += (out.empty() ? "" : "; ") + line;  // one line: a Result's message escapes line breaks
  }
  return out;
}
}  // namespace

Result<std::vector<std::vector<uint8_t>>> compile_hlsl(const std::string& compiler,
                                                       std::span<const HlslJob> jobs) {
  using R = Result<std::vector<std::vector<uint8_t>>>;
  auto folder = make_work_folder();
  if (!folder) return R::failure(folder.error());
  struct Cleanup {
    fs::path folder;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(folder, ignored);
    }
  } cleanup{*folder};
  {
    std::ofstream list(*folder / "jobs.txt", std::ios::binary);
    for (size_t i = 0; i < jobs.size(); ++i) {
      const std::string source_file = "source" + std::to_string(i) + ".hlsl";
      std::ofstream(*folder / source_file, std::ios::binary) << jobs[i].source->text;
      list << source_file << '\t' << jobs[i].source->path << '\t' << jobs[i].entry << '\t' << jobs[i].target
           << '\t' << "output" << i << ".dxbc\n";
    }
    if (!list) return R::failure("cannot write the shader compiler's jobs in " + folder->string());
  }
  auto status = run_child(compiler, *folder);
  if (!status) return R::failure(status.error());
  const std::string log = read_text(*folder / "log.txt");
  const size_t last = log.rfind("compiling ");
  const bool finished = log.find("\ndone") != std::string::npos || log.rfind("done", 0) == 0;
  if (!finished) {
    // The child ended in the middle of a compile: the compiler crashed (Wine 8's aborts on some inputs).
    std::string what = last == std::string::npos
                           ? std::string("before its first shader")
                           : "on " + log.substr(last + 10, log.find('\n', last) - last - 10);
    if (!what.empty() && what.back() == '\r') what.pop_back();
    return R::failure("the HLSL compiler crashed (exit status " + std::to_string(*status) + ") " + what +
                      (messages(log).empty() ? "" : ": " + messages(log)));
  }
  if (*status != 0) return R::failure("HLSL compile failed: " + messages(log));
  std::vector<std::vector<uint8_t>> blobs(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const std::string bytes = read_text(*folder / ("output" + std::to_string(i) + ".dxbc"));
    if (bytes.empty())
      return R::failure(std::string("the HLSL compiler wrote no bytecode for ") + jobs[i].source->path + " " +
                        jobs[i].entry);
    blobs[i].assign(bytes.begin(), bytes.end());
  }
  return blobs;
}

std::string run_time_shader_compiler() {
  if (const char* env = std::getenv("OSSA_HLSL_COMPILER"); env && *env) return env;
  const fs::path folder = running_program_folder();
  if (folder.empty()) return "ossa_hlslc.exe";
  return utf8_from_path(folder / "ossa_hlslc.exe");
}

}  // namespace ossa::detail
