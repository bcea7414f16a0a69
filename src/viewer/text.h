// Text checks the viewer's plain classes share.
#pragma once

#include <string>
#include <string_view>

namespace ossa::viewer {

// Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF): what JSON and the sidecar
// can hold, and what scripts must be.
bool is_utf8(std::string_view text);

// The code points of well-formed UTF-8 (is_utf8); a malformed byte becomes U+FFFD.
std::u32string utf8_code_points(std::string_view text);

}  // namespace ossa::viewer
