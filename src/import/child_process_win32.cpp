// Windows workers for run_in_worker() (see child_process.h): the task's program, started inside a job
// object, one request after another over its standard input and output.
//
// A request: four uint64 (the task name's length, the request's, the heap budget, the longest reply), the
// name, the request. A reply: a mark byte and a uint64 length, then that many bytes for kFinishedMark; the
// worker then waits for the next request. kOutOfMemoryMark and kRetireMark end the worker, kNoTaskMark says
// the program has no task of that name. The caller reads the reply on a thread of its own, so that it can
// stop waiting at the time limit (the job is then terminated, which ends the read).
#include "child_process.h"

#include <windows.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <future>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "ossa/core/result.h"

namespace ossa::detail {
namespace {

constexpr char kFinishedMark = 'K', kOutOfMemoryMark = 'M', kRetireMark = 'R', kNoTaskMark = 'U';
constexpr DWORD kExitOutOfMemory = 86;
constexpr size_t kHeaderBytes = 1 + sizeof(uint64_t);
constexpr size_t kMaxTaskName = 256;
// The job's own memory limit stands behind the worker's count of its heap (which sees operator new only):
// this much more than the budget.
constexpr size_t kJobMemorySlack = size_t{512} << 20;

bool write_all(HANDLE pipe, const char* bytes, size_t size) {
  while (size > 0) {
    DWORD wrote = 0;
    const DWORD chunk = static_cast<DWORD>(std::min<size_t>(size, 1u << 30));
    if (!WriteFile(pipe, bytes, chunk, &wrote, nullptr) || wrote == 0) return false;
    bytes += wrote;
    size -= wrote;
  }
  return true;
}

bool read_all(HANDLE pipe, char* bytes, size_t size) {
  while (size > 0) {
    DWORD got = 0;
    const DWORD chunk = static_cast<DWORD>(std::min<size_t>(size, 1u << 30));
    if (!ReadFile(pipe, bytes, chunk, &got, nullptr) || got == 0) return false;
    bytes += got;
    size -= got;
  }
  return true;
}

std::string last_error_text(DWORD error) {
  char* text = nullptr;
  FormatMessageA(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                 nullptr, error, 0, reinterpret_cast<char*>(&text), 0, nullptr);
  std::string out = text ? text : "error " + std::to_string(error);
  LocalFree(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == '.')) out.pop_back();
  return out;
}

std::wstring widen(const std::string& utf8) {
  if (utf8.empty()) return {};
  const int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  std::wstring out(static_cast<size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), out.data(), n);
  return out;
}

std::string narrow(const std::wstring& wide) {
  if (wide.empty()) return {};
  const int n = WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), nullptr, 0,
                                    nullptr, nullptr);
  std::string out(static_cast<size_t>(n), '\0');
  WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), out.data(), n, nullptr,
                      nullptr);
  return out;
}

// The worker program: OSSA_IMPORT_WORKER for the import's, else `name` beside the calling program.
std::wstring worker_program(const WorkerTask& task) {
  if (std::strcmp(task.program, "ossa_import_worker.exe") == 0) {
    wchar_t named[MAX_PATH];
    const DWORD n = GetEnvironmentVariableW(L"OSSA_IMPORT_WORKER", named, MAX_PATH);
    if (n > 0 && n < MAX_PATH) return named;
  }
  std::wstring self(MAX_PATH, L'\0');
  for (;;) {
    const DWORD n = GetModuleFileNameW(nullptr, self.data(), static_cast<DWORD>(self.size()));
    if (n == 0) return {};
    if (n < self.size()) {
      self.resize(n);
      break;
    }
    self.resize(self.size() * 2);
  }
  const size_t slash = self.find_last_of(L"\\/");
  return (slash == std::wstring::npos ? std::wstring() : self.substr(0, slash + 1)) + widen(task.program);
}

struct Worker {
  HANDLE process = nullptr, job = nullptr;
  HANDLE to_worker = nullptr, from_worker = nullptr;  // this end of its standard input and output
  DWORD pid = 0;
  std::wstring program;
  std::string task;
};

void close_worker(Worker& w, bool kill) {
  if (kill && w.job) TerminateJobObject(w.job, 1);
  for (HANDLE* h : {&w.to_worker, &w.from_worker, &w.process, &w.job})
    if (*h) CloseHandle(*h), *h = nullptr;
}

std::mutex pool_mutex;
std::vector<Worker> idle;
constexpr size_t kMaxIdleWorkers = 8;
thread_local int last_pid = -1;

// Starts `program` suspended, puts it in a job that ends it with this process (and without an error dialog
// when it crashes) and limits its memory, then lets it run. Its standard input and output are two pipes.
Result<Worker> start_worker(const std::wstring& program, size_t memory_bytes) {
  using R = Result<Worker>;
  if (GetFileAttributesW(program.c_str()) == INVALID_FILE_ATTRIBUTES)
    return R::failure("no worker program at " + narrow(program) +
                      " (ship ossa_import_worker.exe beside the program, or name it in OSSA_IMPORT_WORKER)");
  Worker w;
  w.program = program;
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  HANDLE child_in = nullptr, child_out = nullptr;
  // Only the worker's ends are inheritable, and only while it is created: a worker started meanwhile by
  // another thread must not hold them (this worker's end of file would go unseen).
  static std::mutex start_mutex;
  std::lock_guard lock(start_mutex);
  if (!CreatePipe(&child_in, &w.to_worker, &inherit, 0))
    return R::failure("cannot make a pipe: " + last_error_text(GetLastError()));
  if (!CreatePipe(&w.from_worker, &child_out, &inherit, 0)) {
    const DWORD error = GetLastError();
    CloseHandle(child_in), CloseHandle(w.to_worker);
    return R::failure("cannot make a pipe: " + last_error_text(error));
  }
  SetHandleInformation(w.to_worker, HANDLE_FLAG_INHERIT, 0);
  SetHandleInformation(w.from_worker, HANDLE_FLAG_INHERIT, 0);
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = child_in;
  startup.hStdOutput = child_out;
  startup.hStdError = GetStdHandle(STD_ERROR_HANDLE);
  PROCESS_INFORMATION info{};
  std::wstring command = L"\"" + program + L"\" --serve";
  const BOOL started = CreateProcessW(program.c_str(), command.data(), nullptr, nullptr, TRUE,
                                      CREATE_SUSPENDED | CREATE_NO_WINDOW, nullptr, nullptr, &startup, &info);
  const DWORD error = GetLastError();
  CloseHandle(child_in);
  CloseHandle(child_out);
  if (!started) {
    close_worker(w, false);
    return R::failure("cannot start the worker program: " + last_error_text(error));
  }
  w.process = info.hProcess;
  w.pid = info.dwProcessId;
  w.job = CreateJobObjectW(nullptr, nullptr);
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  limits.BasicLimitInformation.LimitFlags =
      JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
  if (memory_bytes > 0) {
    limits.BasicLimitInformation.LimitFlags |= JOB_OBJECT_LIMIT_PROCESS_MEMORY;
    limits.ProcessMemoryLimit = memory_bytes + kJobMemorySlack;
  }
  if (!w.job || !SetInformationJobObject(w.job, JobObjectExtendedLimitInformation, &limits, sizeof limits) ||
      !AssignProcessToJobObject(w.job, w.process)) {
    const DWORD job_error = GetLastError();
    TerminateProcess(w.process, 1);
    CloseHandle(info.hThread);
    close_worker(w, false);
    return R::failure("cannot put the worker in a job object: " + last_error_text(job_error));
  }
  ResumeThread(info.hThread);
  CloseHandle(info.hThread);
  return w;
}

// An idle worker for `task` that is still running, or a new one.
Result<Worker> take_worker(const WorkerTask& task, const std::wstring& program, size_t memory_bytes) {
  std::unique_lock lock(pool_mutex);
  for (auto it = idle.rbegin(); it != idle.rend();) {
    if (it->program != program || it->task != task.name) {
      ++it;
      continue;
    }
    Worker w = *it;
    idle.erase(std::next(it).base());
    if (WaitForSingleObject(w.process, 0) == WAIT_TIMEOUT) return w;
    close_worker(w, true);
    it = idle.rbegin();
  }
  lock.unlock();
  auto w = start_worker(program, memory_bytes);
  if (w) w->task = task.name;
  return w;
}

void return_worker(Worker w) {
  std::lock_guard lock(pool_mutex);
  if (idle.size() < kMaxIdleWorkers)
    idle.push_back(std::move(w));
  else
    close_worker(w, false);  // it reads the end of its input and exits
}

struct Reply {
  char mark = 0;
  bool complete = false;
  std::string message;
};

// The reply as it comes: the header, then the message, which grows (doubling) only as bytes arrive.
Reply read_reply(HANDLE pipe, size_t max_bytes) {
  Reply reply;
  char header[kHeaderBytes];
  if (!read_all(pipe, header, sizeof header)) return reply;
  reply.mark = header[0];
  uint64_t announced = 0;
  std::memcpy(&announced, header + 1, sizeof announced);
  if (reply.mark != kFinishedMark) {
    reply.complete = true;
    return reply;
  }
  if (announced > max_bytes) return reply;
  size_t got = 0;
  while (got < announced) {
    reply.message.resize(std::min<uint64_t>(announced, std::max<size_t>(2 * got, size_t{1} << 20)));
    if (!read_all(pipe, reply.message.data() + got, reply.message.size() - got)) {
      reply.message.clear();
      return reply;
    }
    got = reply.message.size();
  }
  reply.complete = true;
  return reply;
}

std::string exit_description(DWORD code) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%08lX", static_cast<unsigned long>(code));
  switch (code) {
    case 0xC0000005:
      return std::string("exception ") + hex + " (access violation)";
    case 0xC00000FD:
      return std::string("exception ") + hex + " (stack overflow)";
    case 0xC0000017:
    case 0xC000012D:
      return std::string("exception ") + hex + " (out of memory)";
    case 0xC0000409:
      return std::string("exception ") + hex + " (stack buffer overrun or fast fail)";
    default:
      return code >= 0xC0000000 ? std::string("exception ") + hex : "exit status " + std::to_string(code);
  }
}

}  // namespace

ChildOutcome run_in_worker(const WorkerTask& task, std::string_view request, const ChildLimits& limits) {
  using Kind = ChildOutcome::Kind;
  const auto start = std::chrono::steady_clock::now();
  const std::wstring program = worker_program(task);
  const size_t name_length = std::strlen(task.name);
  if (program.empty() || name_length == 0 || name_length > kMaxTaskName)
    return {Kind::kUnavailable, "no worker program for this task"};
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto taken = take_worker(task, program, limits.memory_bytes);
    if (!taken) return {Kind::kUnavailable, taken.error()};
    Worker w = std::move(*taken);
    const uint64_t header[4] = {name_length, request.size(), limits.memory_bytes, limits.max_message_bytes};
    if (!write_all(w.to_worker, reinterpret_cast<const char*>(header), sizeof header) ||
        !write_all(w.to_worker, task.name, name_length) ||
        !write_all(w.to_worker, request.data(), request.size())) {
      close_worker(w, true);
      if (attempt == 0) continue;
      return {Kind::kCrashed, "the worker process took no request"};
    }
    auto pending = std::async(std::launch::async, read_reply, w.from_worker, limits.max_message_bytes);
    bool timed_out = false;
    if (limits.seconds > 0) {
      const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                        std::chrono::duration<double>(limits.seconds));
      if (pending.wait_until(deadline) != std::future_status::ready) {
        timed_out = true;
        TerminateJobObject(w.job, 1);  // ends the read
      }
    }
    Reply reply = pending.get();
    if (!timed_out && reply.complete && reply.mark == kFinishedMark) {
      last_pid = static_cast<int>(w.pid);
      return_worker(std::move(w));
      return {Kind::kFinished, std::move(reply.message)};
    }
    if (!timed_out && reply.complete && reply.mark == kRetireMark) {  // it holds more than this budget
      close_worker(w, true);
      continue;
    }
    if (!timed_out && reply.complete && reply.mark == kNoTaskMark) {
      close_worker(w, true);
      return {Kind::kUnavailable, "the worker program has no task '" + std::string(task.name) + "'"};
    }
    DWORD code = 0;
    if (!timed_out && WaitForSingleObject(w.process, 10000) == WAIT_OBJECT_0)
      GetExitCodeProcess(w.process, &code);
    close_worker(w, true);
    if (timed_out) return {Kind::kTimedOut, {}};
    if (reply.mark == kOutOfMemoryMark || code == kExitOutOfMemory) return {Kind::kOutOfMemory, {}};
    if (code != 0) return {Kind::kCrashed, exit_description(code)};
    return {Kind::kCrashed, "an incomplete or oversized reply"};
  }
  return {Kind::kCrashed, "no worker process could serve the request"};
}

int last_worker_pid() {
  return last_pid;
}

int serve_worker_requests(std::span<const WorkerTask> tasks, size_t (*limit_heap)(size_t budget_bytes)) {
  // A crash ends the process at once with its exception code as the exit status: no dialog, no debugger
  // (Wine would start winedbg).
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
  SetUnhandledExceptionFilter([](EXCEPTION_POINTERS* e) -> LONG {
    TerminateProcess(GetCurrentProcess(), e->ExceptionRecord->ExceptionCode);
    return EXCEPTION_EXECUTE_HANDLER;
  });
  const HANDLE in = GetStdHandle(STD_INPUT_HANDLE), out = GetStdHandle(STD_OUTPUT_HANDLE);
  const size_t base = limit_heap(0);  // what the program holds before any request
  auto send_mark = [&](char mark) {
    char reply[kHeaderBytes] = {mark};
    return write_all(out, reply, sizeof reply);
  };
  for (;;) {
    uint64_t header[4];
    if (!read_all(in, reinterpret_cast<char*>(header), sizeof header)) return 0;  // the caller is done
    if (header[0] == 0 || header[0] > kMaxTaskName) return 2;
    std::string name(header[0], '\0'), request;
    try {
      request.resize(header[1]);
    } catch (const std::bad_alloc&) {
      send_mark(kOutOfMemoryMark);
      return static_cast<int>(kExitOutOfMemory);
    }
    if (!read_all(in, name.data(), name.size()) || !read_all(in, request.data(), request.size())) return 0;
    const auto task =
        std::find_if(tasks.begin(), tasks.end(), [&](const WorkerTask& t) { return name == t.name; });
    if (task == tasks.end()) return send_mark(kNoTaskMark) ? 0 : 2;
    // The budget counts from what the program held when it started, as a forked worker's does on POSIX.
    if (header[2] > 0 && limit_heap(0) > base + header[2] + request.size())
      return send_mark(kRetireMark) ? 0 : 2;
    limit_heap(header[2] > 0 ? base + header[2] + request.size() : 0);
    std::string message;
    try {
      message = task->run(request);
    } catch (const std::bad_alloc&) {
      send_mark(kOutOfMemoryMark);
      return static_cast<int>(kExitOutOfMemory);
    } catch (...) {
      return 1;  // the task is expected to turn its own exceptions into messages
    }
    limit_heap(0);
    const uint64_t size = std::min<uint64_t>(message.size(), header[3]);
    char reply[kHeaderBytes] = {kFinishedMark};
    std::memcpy(reply + 1, &size, sizeof size);
    if (!write_all(out, reply, sizeof reply) || !write_all(out, message.data(), size)) return 0;
  }
}

}  // namespace ossa::detail
