#include "text_output.h"

#include <cstdarg>
#include <cstdio>
#include <string>

#include "ossa/core/printable.h"

namespace ossa::cli {
namespace {
int print_to(std::FILE* stream, const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  const int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (length < 0) return length;
  std::string text(static_cast<size_t>(length) + 1, '\0');
  std::vsnprintf(text.data(), text.size(), format, args);
  text.pop_back();
  std::string shown;
  shown.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    bool printable = false;
    const size_t length = next_character(text, i, printable);
    const char c = text[i];
    if (printable || c == '\n' || c == '\t' || c == '\r')  // the CLI's own layout
      shown.append(text, i, length);
    else
      shown += '?';
    i += length;
  }
  std::fwrite(shown.data(), 1, shown.size(), stream);
  return length;
}
}  // namespace

int print(const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = print_to(stdout, format, args);
  va_end(args);
  return n;
}

int print_error(const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = print_to(stderr, format, args);
  va_end(args);
  return n;
}

}  // namespace ossa::cli
