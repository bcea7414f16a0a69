// JSON the CLI prints or writes is always valid: bytes of names that are not UTF-8 (a node called
// "j\xff\xfe1" in a hostile file) are replaced by U+FFFD, never an exception.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ossa::cli {

template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// Appends a member whose key is known to be new (joint and mesh names are unique) without the linear search
// of ordered_json's operator[]: objects with 60,000 joints stay linear to build.
inline void append_unique(nlohmann::ordered_json& object, std::string key, nlohmann::ordered_json value) {
  if (object.is_null()) object = nlohmann::ordered_json::object();
  auto& members = object.get_ref<nlohmann::ordered_json::object_t&>();
  using Members = std::vector<nlohmann::ordered_json::object_t::value_type>;
  static_cast<Members&>(members).emplace_back(std::move(key), std::move(value));
}

}  // namespace ossa::cli
