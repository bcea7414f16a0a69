// JSON the CLI prints or writes is always valid: bytes of names that are not UTF-8 (a node called
// "j\xff\xfe1" in a hostile file) are replaced by U+FFFD, never an exception.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ossa::cli {

template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace ossa::cli
