#include "ossa/core/printable.h"

#include <cstdint>
#include <cstdio>

namespace ossa {
namespace {

// The length of the UTF-8 sequence starting at text[i] (2-4), or 0 when it is not one: overlong forms,
// surrogates and code points past U+10FFFF are not UTF-8.
size_t utf8_length(std::string_view text, size_t i, uint32_t& code_point) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
  if (length == 0 || lead > 0xf4 || i + length > text.size()) return 0;
  code_point = lead & (0x7f >> length);
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i + k) & 0x3f);
  }
  static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code_point < kSmallest[length] || code_point > 0x10ffff ||
      (code_point >= 0xd800 && code_point <= 0xdfff))
    return 0;
  return length;
}

bool is_control(uint32_t c) {
  return (c >= 0x80 && c <= 0x9f) || c == 0x61c || c == 0x200e || c == 0x200f ||
         (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

}  // namespace

size_t next_character(std::string_view text, size_t i, bool& shown) {
  const unsigned char u = static_cast<unsigned char>(text[i]);
  if (u < 0x80) {
    shown = u >= 0x20 && u < 0x7f;
    return 1;
  }
  uint32_t code_point = 0;
  const size_t length = utf8_length(text, i, code_point);
  shown = length > 0 && !is_control(code_point);
  return length > 0 ? length : 1;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char escape[12];
  for (size_t i = 0; i < text.size();) {
    bool shown = false;
    const size_t length = next_character(text, i, shown);
    if (shown) {
      out.append(text.substr(i, length));
    } else if (length > 1) {  // a UTF-8 control character
      uint32_t code_point = 0;
      utf8_length(text, i, code_point);
      std::snprintf(escape, sizeof escape, "\\u%04X", static_cast<unsigned>(code_point));
      out += escape;
    } else {
      std::snprintf(escape, sizeof escape, "\\x%02X", static_cast<unsigned char>(text[i]));
      out += escape;
    }
    i += length;
  }
  return out;
}

}  // namespace ossa
