// Text checks the viewer's plain classes share.
#pragma once

#include <string>
#include <string_view>

namespace ossa::viewer {

// Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF): what JSON and the sidecar
// can hold, and what scripts must be.
bool is_utf8(std::string_view text);

// An error as the window shows it: a plain headline, then the library's or the importer's own words as
// details. "cannot open F:\nF: cannot import: <assimp's text>" reads "cannot open F: it is damaged, cut
// short, or a kind of file the importer cannot read" with "assimp: <its text>" below; nlohmann's
// "[json.exception...]" tags are dropped. Other messages are the headline as they are.
struct ShownError {
  std::string headline, details;
};
ShownError explain_error(const std::string& message);

// The code points of well-formed UTF-8 (is_utf8); a malformed byte becomes U+FFFD.
std::u32string utf8_code_points(std::string_view text);

}  // namespace ossa::viewer
