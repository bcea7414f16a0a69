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
  std::string shown;
  shown.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char u = static_cast<unsigned char>(text[i]);
    const unsigned char next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    const unsigned char third = i + 2 < text.size() ? static_cast<unsigned char>(text[i + 2]) : 0;
    if ((u < 0x20 && u != '\n' && u != '\t' && u != '\r') || u == 0x7f) {
      shown += '?';
    } else if (u == 0xc2 && next >= 0x80 && next <= 0x9f) {  // C1 controls (U+0080-009F), such as CSI
      shown += '?', i += 1;
    } else if (u == 0xd8 && next == 0x9c) {  // U+061C, the Arabic letter mark
      shown += '?', i += 1;
    } else if (u == 0xe2 &&
               ((next == 0x80 && ((third >= 0x8e && third <= 0x8f) || (third >= 0xaa && third <= 0xae))) ||
                (next == 0x81 && third >= 0xa6 && third <= 0xa9))) {
      // Bidirectional controls (U+200E/F, U+202A-202E, U+2066-2069): a name could reorder the rest of the
      // line.
      shown += '?', i += 2;
    } else {
      shown += static_cast<char>(u);
    }
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
