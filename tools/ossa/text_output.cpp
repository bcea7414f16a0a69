#include "text_output.h"

#include <cstdarg>
#include <cstdio>
#include <string>

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
  for (char& c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t' && c != '\r') || u == 0x7f) c = '?';
  }
  std::fwrite(text.data(), 1, text.size(), stream);
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
