// COLLADA skin indices checked from the text (see collada_limits.h).
#include "collada_limits.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <system_error>
#include <unordered_map>
#include <vector>

namespace ossa::detail {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The tag that starts at text[at] (a '<'), up to and including its '>' (or the end of the text).
std::string_view tag_at(std::string_view text, size_t at) {
  const size_t end = text.find('>', at);
  return text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at + 1);
}

// The value of attribute `name` in `tag` (name="value" or name='value'), or "".
std::string_view attribute(std::string_view tag, std::string_view name) {
  for (size_t at = tag.find(name); at != std::string_view::npos; at = tag.find(name, at + 1)) {
    if (at == 0 || !is_space(tag[at - 1])) continue;
    size_t p = at + name.size();
    while (p < tag.size() && is_space(tag[p])) ++p;
    if (p >= tag.size() || tag[p] != '=') continue;
    ++p;
    while (p < tag.size() && is_space(tag[p])) ++p;
    if (p >= tag.size() || (tag[p] != '"' && tag[p] != '\'')) continue;
    const size_t close = tag.find(tag[p], p + 1);
    if (close == std::string_view::npos) return {};
    return tag.substr(p + 1, close - p - 1);
  }
  return {};
}

// What lies between the opening tag at text[at] and the next "</name" (empty for a self-closed tag).
std::string_view content(std::string_view text, size_t at, std::string_view name) {
  const std::string_view open = tag_at(text, at);
  if (open.size() >= 2 && open[open.size() - 2] == '/') return {};
  const size_t start = at + open.size();
  const size_t end = text.find(std::string("</").append(name), start);
  return text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

// Positions of each opening tag `<name` (followed by a space, '>' or '/') in text.
template <class Visit>
void for_each_tag(std::string_view text, std::string_view name, Visit visit) {
  const std::string open = std::string(1, '<').append(name);
  for (size_t at = text.find(open); at != std::string_view::npos; at = text.find(open, at + 1)) {
    const size_t after = at + open.size();
    if (after < text.size() && !is_space(text[after]) && text[after] != '>' && text[after] != '/') continue;
    if (!visit(at)) return;
  }
}

size_t count_tokens(std::string_view list) {
  size_t count = 0;
  for (size_t i = 0; i < list.size();) {
    while (i < list.size() && is_space(list[i])) ++i;
    if (i == list.size()) break;
    ++count;
    while (i < list.size() && !is_space(list[i])) ++i;
  }
  return count;
}

// The integers of a list; a token that is not one reads as the largest value (assimp reads it its own way:
// whatever it makes of it, it is refused here only where an index is checked).
std::vector<int64_t> integers(std::string_view list) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < list.size();) {
    while (i < list.size() && is_space(list[i])) ++i;
    if (i == list.size()) break;
    size_t end = i;
    while (end < list.size() && !is_space(list[end])) ++end;
    int64_t value = std::numeric_limits<int64_t>::max();
    std::from_chars(list.data() + i, list.data() + end, value);
    out.push_back(value);
    i = end;
  }
  return out;
}

// The number of values in each <source>, by id: the smaller of its array's count attribute and the values
// the array holds (assimp allocates by one and reads the other).
std::unordered_map<std::string_view, uint64_t> source_sizes(std::string_view text) {
  std::unordered_map<std::string_view, uint64_t> sizes;
  for_each_tag(text, "source", [&](size_t at) {
    const std::string_view id = attribute(tag_at(text, at), "id");
    if (id.empty()) return true;
    const std::string_view body = content(text, at, "source");
    for (std::string_view array : {"Name_array", "IDREF_array", "float_array"}) {
      const size_t found = body.find(std::string(1, '<').append(array));
      if (found == std::string_view::npos) continue;
      const std::string_view count_text = attribute(tag_at(body, found), "count");
      uint64_t declared = std::numeric_limits<uint64_t>::max();
      std::from_chars(count_text.data(), count_text.data() + count_text.size(), declared);
      sizes[id] = std::min<uint64_t>(declared, count_tokens(content(body, found, array)));
      break;
    }
    return true;
  });
  return sizes;
}

// Every array's size, by id (as source_sizes), and whether each <accessor> stays inside the array it reads:
// assimp allocates an array by its count attribute and reads an accessor's count x stride values from it
// (a positions array declared 4 long, read as 10 points, read past its end).
std::string check_accessors(std::string_view text) {
  std::unordered_map<std::string_view, uint64_t> arrays;
  for (std::string_view array : {"float_array", "Name_array", "IDREF_array", "int_array", "bool_array"})
    for_each_tag(text, array, [&](size_t at) {
      const std::string_view tag = tag_at(text, at);
      const std::string_view id = attribute(tag, "id"), count_text = attribute(tag, "count");
      if (id.empty()) return true;
      uint64_t declared = std::numeric_limits<uint64_t>::max();
      std::from_chars(count_text.data(), count_text.data() + count_text.size(), declared);
      arrays[id] = std::min<uint64_t>(declared, count_tokens(content(text, at, array)));
      return true;
    });
  std::string why;
  for_each_tag(text, "accessor", [&](size_t at) {
    const std::string_view tag = tag_at(text, at);
    std::string_view source = attribute(tag, "source");
    if (!source.empty() && source[0] == '#') source.remove_prefix(1);
    auto it = arrays.find(source);
    if (it == arrays.end()) return true;  // another kind of source: assimp's own checks
    auto number = [&](const char* name, uint64_t fallback) {
      const std::string_view value = attribute(tag, name);
      uint64_t n = fallback;
      if (!value.empty() && std::from_chars(value.data(), value.data() + value.size(), n).ec != std::errc())
        n = std::numeric_limits<uint32_t>::max();
      return std::min<uint64_t>(n, std::numeric_limits<uint32_t>::max());
    };
    const uint64_t count = number("count", 0), stride = number("stride", 1), offset = number("offset", 0);
    uint64_t params = 0;
    for_each_tag(content(text, at, "accessor"), "param", [&](size_t) { return ++params, true; });
    if (count > 0 && offset + (count - 1) * stride + std::max<uint64_t>(params, 1) > it->second) {
      why = "accessor of '" + std::string(source) + "' reads " + std::to_string(count) + " x " +
            std::to_string(stride) + " values from an array of " + std::to_string(it->second);
      return false;
    }
    return true;
  });
  return why;
}

// The source an <input> names ("#id"), or "".
std::string_view input_source(std::string_view input_tag) {
  const std::string_view source = attribute(input_tag, "source");
  return !source.empty() && source[0] == '#' ? source.substr(1) : source;
}

}  // namespace

std::string check_collada_skins(std::string_view text) {
  if (std::string why = check_accessors(text); !why.empty()) return why;
  if (text.find("<skin") == std::string_view::npos) return {};
  const auto sizes = source_sizes(text);
  auto size_of = [&](std::string_view id) -> uint64_t {
    auto it = sizes.find(id);
    return it == sizes.end() ? 0 : it->second;
  };
  std::string why;
  int skin_number = 0;
  for_each_tag(text, "skin", [&](size_t at) {
    const std::string_view skin = content(text, at, "skin");
    const std::string where = "skin " + std::to_string(skin_number++);
    // The joints: the smallest of the names <joints> and <vertex_weights> point at, and the inverse binds.
    uint64_t joints = std::numeric_limits<uint64_t>::max();
    const size_t joints_at = skin.find("<joints");
    if (joints_at != std::string_view::npos) {
      const std::string_view block = content(skin, joints_at, "joints");
      for_each_tag(block, "input", [&](size_t i) {
        const std::string_view input = tag_at(block, i);
        const std::string_view semantic = attribute(input, "semantic");
        if (semantic == "JOINT") joints = std::min(joints, size_of(input_source(input)));
        if (semantic == "INV_BIND_MATRIX") joints = std::min(joints, size_of(input_source(input)) / 16);
        return true;
      });
    }
    const size_t weights_at = skin.find("<vertex_weights");
    if (weights_at == std::string_view::npos) return true;
    const std::string_view weights = content(skin, weights_at, "vertex_weights");
    uint64_t stride = 0, joint_offset = std::numeric_limits<uint64_t>::max();
    for_each_tag(weights, "input", [&](size_t i) {
      const std::string_view input = tag_at(weights, i);
      const std::string_view offset_text = attribute(input, "offset");
      uint64_t offset = 0;
      std::from_chars(offset_text.data(), offset_text.data() + offset_text.size(), offset);
      offset = std::min<uint64_t>(offset, 1u << 20);
      stride = std::max(stride, offset + 1);
      if (attribute(input, "semantic") == "JOINT") {
        joint_offset = offset;
        joints = std::min(joints, size_of(input_source(input)));
      }
      return true;
    });
    if (joint_offset == std::numeric_limits<uint64_t>::max()) return true;
    const size_t vcount_at = weights.find("<vcount"), v_at = weights.find("<v>");
    if (vcount_at == std::string_view::npos || v_at == std::string_view::npos) return true;
    const std::vector<int64_t> v = integers(content(weights, v_at, "v"));
    uint64_t pairs = 0;  // each count at most v's length: the sum cannot wrap
    for (int64_t n : integers(content(weights, vcount_at, "vcount")))
      pairs += std::min<uint64_t>(n > 0 ? static_cast<uint64_t>(n) : 0, v.size() + 1);
    if (pairs > v.size() / stride) {
      why = where + ": <vcount> gives " + std::to_string(pairs) + " influences, <v> holds " +
            std::to_string(v.size() / stride);
      return false;
    }
    for (uint64_t p = 0; p < pairs; ++p) {
      const int64_t joint = v[p * stride + joint_offset];
      if (joint < -1 || (joint >= 0 && static_cast<uint64_t>(joint) >= joints)) {
        why = where + ": influence " + std::to_string(p) + " names joint " + std::to_string(joint) +
              ", but the skin has " +
              std::to_string(joints == std::numeric_limits<uint64_t>::max() ? 0 : joints) +
              " joints (with their inverse bind matrices)";
        return false;
      }
    }
    return true;
  });
  return why;
}

}  // namespace ossa::detail
