#include "viewer/text.h"

#include <array>
#include <cstdint>

namespace ossa::viewer {

namespace {

// Decodes the code point at text[i]; advances i past it. False (i unchanged) when it is malformed.
bool decode(std::string_view text, size_t& i, uint32_t& code) {
  const auto c = static_cast<unsigned char>(text[i]);
  int extra = 0;
  if (c < 0x80) {
    code = c, ++i;
    return true;
  } else if ((c & 0xE0) == 0xC0) {
    extra = 1, code = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    extra = 2, code = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    extra = 3, code = c & 0x07;
  } else {
    return false;
  }
  if (i + extra >= text.size()) return false;  // truncated
  for (int k = 1; k <= extra; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xC0) != 0x80) return false;
    code = code << 6 | (next & 0x3F);
  }
  static constexpr std::array<uint32_t, 4> kSmallest = {0, 0x80, 0x800, 0x10000};
  if (code < kSmallest[extra] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
  i += extra + 1;
  return true;
}

}  // namespace

bool is_utf8(std::string_view text) {
  uint32_t code = 0;
  for (size_t i = 0; i < text.size();)
    if (!decode(text, i, code)) return false;
  return true;
}

ShownError explain_error(const std::string& message) {
  ShownError shown;
  std::string text = message;
  // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." -> "line 1, column 2: ..."
  for (size_t tag; (tag = text.find("[json.exception.")) != std::string::npos;) {
    const size_t close = text.find("] ", tag);
    if (close == std::string::npos) break;
    text.erase(tag, close + 2 - tag);
    if (text.compare(tag, 15, "parse error at ") == 0) text.erase(tag, 15);
  }
  const std::string import_marker = ": cannot import: ";
  const size_t import = text.find(import_marker);
  if (import == std::string::npos) {
    shown.headline = text;
    return shown;
  }
  const size_t line_end = text.find('\n');
  std::string first = line_end != std::string::npos && line_end < import ? text.substr(0, line_end) : "";
  while (!first.empty() && (first.back() == ':' || first.back() == ' ')) first.pop_back();
  shown.headline = (first.empty() ? text.substr(0, import) : first) +
                   ": it is damaged, cut short, or a kind of file the importer cannot read";
  shown.details = "assimp: " + text.substr(import + import_marker.size());
  return shown;
}

std::u32string utf8_code_points(std::string_view text) {
  std::u32string points;
  uint32_t code = 0;
  for (size_t i = 0; i < text.size();) {
    if (decode(text, i, code)) {
      points += static_cast<char32_t>(code);
    } else {
      points += U'\uFFFD';
      ++i;
    }
  }
  return points;
}

}  // namespace ossa::viewer
