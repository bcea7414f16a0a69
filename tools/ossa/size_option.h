// Parses a WIDTHxHEIGHT option (`render --size`, `view --size`, the Direct3D 11 demo's --size): two decimal
// numbers of at most 5 digits separated by one 'x', nothing before or after, each side within [lo, hi].
// sscanf("%dx%d") is not enough: it wraps 4294967936 to 640, stops at 4294967297 as 1 and accepts
// "640x480junk".
#pragma once

#include <string_view>

namespace ossa::cli {

struct SizeOption {
  int width = 0, height = 0;
};

// True and the size when `text` is WIDTHxHEIGHT within [lo, hi] on both sides; false otherwise.
inline bool parse_size_option(std::string_view text, int lo, int hi, SizeOption& out) {
  auto number = [](std::string_view digits, int& value) {
    if (digits.empty() || digits.size() > 5) return false;  // 5 digits: no overflow, and over any limit here
    value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
    }
    return true;
  };
  const size_t x = text.find('x');
  if (x == std::string_view::npos) return false;
  SizeOption size;
  if (!number(text.substr(0, x), size.width) || !number(text.substr(x + 1), size.height)) return false;
  if (size.width < lo || size.width > hi || size.height < lo || size.height > hi) return false;
  out = size;
  return true;
}

}  // namespace ossa::cli
