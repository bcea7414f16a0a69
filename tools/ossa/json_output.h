// JSON the CLI prints or writes is always valid: bytes of names that are not UTF-8 (a node called
// "j\xff\xfe1" in a hostile file) are replaced by U+FFFD, never an exception.
#pragma once

#include <cmath>
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

// The place ("/samples/2/meshes/Body/17/1") of the first number in `j` that is not finite, or "" when all
// are. JSON has no NaN or infinity (nlohmann prints them as null): an output that holds one is refused with
// an error naming this place, never printed. Numbers within value_ranges.h can still overflow through a long
// chain of scaled joints.
template <class Json>
std::string first_non_finite(const Json& j, const std::string& where = "") {
  if (j.is_number_float())
    return std::isfinite(j.template get<double>()) ? "" : (where.empty() ? "/" : where);
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      if (std::string found = first_non_finite(j[i], where + "/" + std::to_string(i)); !found.empty())
        return found;
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items())
      if (std::string found = first_non_finite(value, where + "/" + key); !found.empty()) return found;
  }
  return "";
}

}  // namespace ossa::cli
