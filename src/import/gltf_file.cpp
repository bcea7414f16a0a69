// A glTF file's JSON and accessors, every number checked (see gltf_file.h).
#include "gltf_file.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "ossa/asset/notifies.h"
#include "ossa/core/file_io.h"

namespace ossa::detail {
namespace gltf {

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}
// A member that is a non-negative integer, else nullopt.
std::optional<uint64_t> uint_member(const json& object, const char* key) {
  const json* v = member(object, key);
  if (!v || !v->is_number_unsigned()) return std::nullopt;
  return v->get<uint64_t>();
}
std::string string_member(const json& object, const char* key) {
  const json* v = member(object, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}
const json* element(const json& doc, const char* array, uint64_t index) {
  const json* a = member(doc, array);
  if (!a || !a->is_array() || index >= a->size()) return nullptr;
  return &(*a)[index];
}

}  // namespace gltf

using namespace gltf;
namespace fs = std::filesystem;

namespace {

constexpr uint32_t kGlbMagic = 0x46546C67, kChunkJson = 0x4E4F534A, kChunkBin = 0x004E4942;
constexpr int kMaxJsonNesting = 128;
constexpr uint64_t kMaxCount = 1ull << 28;  // accessor elements

uint32_t le32(const uint8_t* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

// `length` bytes at `offset` of `file`: "" or why not.
std::string read_range(const fs::path& file, uint64_t offset, uint64_t length, std::vector<uint8_t>& out) {
  std::error_code ec;
  const uint64_t size = fs::file_size(file, ec);
  if (ec) return "cannot read its size";
  if (offset > size || length > size - offset) return "it is shorter than its accessors say";
  std::ifstream in(file, std::ios::binary);
  if (!in) return "cannot open it";
  out.resize(length);
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(length));
  if (!in) return "cannot read it";
  return {};
}

std::string decode_base64(std::string_view text, std::vector<uint8_t>& out) {
  out.clear();
  out.reserve(text.size() / 4 * 3 + 3);
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    int v = c >= 'A' && c <= 'Z'   ? c - 'A'
            : c >= 'a' && c <= 'z' ? c - 'a' + 26
            : c >= '0' && c <= '9' ? c - '0' + 52
            : c == '+'             ? 62
            : c == '/'             ? 63
                                   : -1;
    if (c == '=') break;
    if (v < 0) return "a data URI is not base64";
    bits = (bits << 6) | static_cast<uint32_t>(v);
    if (++count == 4) {
      out.push_back(static_cast<uint8_t>(bits >> 16));
      out.push_back(static_cast<uint8_t>(bits >> 8));
      out.push_back(static_cast<uint8_t>(bits));
      bits = 0, count = 0;
    }
  }
  if (count == 2) out.push_back(static_cast<uint8_t>(bits >> 4));
  if (count == 3) {
    out.push_back(static_cast<uint8_t>(bits >> 10));
    out.push_back(static_cast<uint8_t>(bits >> 2));
  }
  return {};
}

std::string percent_decode(const std::string& uri) {
  std::string out;
  for (size_t i = 0; i < uri.size(); ++i) {
    auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
    if (uri[i] == '%' && i + 2 < uri.size() && hex(uri[i + 1]) && hex(uri[i + 2])) {
      out += static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

}  // namespace

std::string GltfFile::open(const std::string& path, std::span<const uint8_t> memory) {
  path_ = path;
  memory_ = memory;
  std::vector<uint8_t> head;
  uint64_t size = memory.size();
  if (memory.empty()) {
    std::error_code ec;
    size = fs::file_size(path_from_utf8(path), ec);
    if (ec) return "cannot read its size";
    if (auto e = read_range(path_from_utf8(path), 0, std::min<uint64_t>(size, 20), head); !e.empty())
      return e;
  } else {
    head.assign(memory.begin(), memory.begin() + std::min<size_t>(memory.size(), 20));
  }
  auto read = [&](uint64_t offset, uint64_t length, std::string& out) -> std::string {
    if (offset > size || length > size - offset) return "the file is shorter than its header says";
    if (!memory.empty()) {
      out.assign(reinterpret_cast<const char*>(memory.data() + offset), length);
      return {};
    }
    std::vector<uint8_t> bytes;
    if (auto e = read_range(path_from_utf8(path), offset, length, bytes); !e.empty()) return e;
    out.assign(bytes.begin(), bytes.end());
    return {};
  };
  if (head.size() >= 4 && le32(head.data()) == kGlbMagic) {
    glb_ = true;
    if (head.size() < 20 || le32(head.data() + 4) != 2) return "not a version 2 binary glTF";
    const uint64_t total = std::min<uint64_t>(le32(head.data() + 8), size);
    if (total < 20) return "the binary glTF header is damaged";
    const uint64_t json_length = le32(head.data() + 12);
    if (le32(head.data() + 16) != kChunkJson) return "the first chunk is not JSON";
    if (json_length > kMaxJsonBytes || json_length > total - 20) return "the JSON chunk is too long";
    if (auto e = read(20, json_length, json_text_); !e.empty()) return e;
    const uint64_t bin_header = 20 + ((json_length + 3) & ~uint64_t{3});
    if (bin_header + 8 <= total) {
      std::string chunk;
      if (auto e = read(bin_header, 8, chunk); !e.empty()) return e;
      const auto* p = reinterpret_cast<const uint8_t*>(chunk.data());
      if (le32(p + 4) == kChunkBin && le32(p) <= total - bin_header - 8) {
        has_bin_ = true;
        bin_offset_ = bin_header + 8;
        bin_length_ = le32(p);
      }
    }
    return {};
  }
  if (size > kMaxJsonBytes) return "its JSON is longer than " + std::to_string(kMaxJsonBytes >> 20) + " MB";
  return read(0, size, json_text_);
}

std::string GltfFile::parse(bool ascii_only) {
  if (ascii_only)
    for (char& c : json_text_)
      if (static_cast<unsigned char>(c) > 127) c = '?';
  if (std::string nested = json_nesting_error(json_text_, kMaxJsonNesting); !nested.empty()) return nested;
  doc_ = json::parse(json_text_, nullptr, /*allow_exceptions=*/false);
  if (doc_.is_discarded()) return "its JSON is not valid (or not UTF-8)";
  json_text_.clear();
  json_text_.shrink_to_fit();
  if (!doc_.is_object()) return "its JSON is not an object";
  return {};
}

std::string GltfFile::buffer_bytes(uint64_t buffer, uint64_t offset, uint64_t length,
                                   std::vector<uint8_t>& out) {
  const json* b = element(doc_, "buffers", buffer);
  if (!b) return "buffer " + std::to_string(buffer) + " does not exist";
  const json* uri_value = member(*b, "uri");
  auto from = [&](std::span<const uint8_t> bytes) -> std::string {
    if (offset > bytes.size() || length > bytes.size() - offset) return "an accessor reaches past its buffer";
    out.assign(bytes.begin() + static_cast<ptrdiff_t>(offset),
               bytes.begin() + static_cast<ptrdiff_t>(offset + length));
    return {};
  };
  if (!uri_value) {  // the .glb's BIN chunk
    if (!glb_ || buffer != 0 || !has_bin_) return "buffer " + std::to_string(buffer) + " has no data";
    if (offset > bin_length_ || length > bin_length_ - offset)
      return "an accessor reaches past the BIN chunk";
    if (!memory_.empty()) return from(memory_.subspan(bin_offset_, bin_length_));
    return read_range(path_from_utf8(path_), bin_offset_ + offset, length, out);
  }
  if (!uri_value->is_string()) return "buffer " + std::to_string(buffer) + " has a uri that is not a string";
  const std::string uri = uri_value->get<std::string>();
  if (uri.rfind("data:", 0) == 0) {
    auto it = data_uris_.find(buffer);
    if (it == data_uris_.end()) {
      const size_t comma = uri.find(',');
      if (comma == std::string::npos || uri.rfind(";base64", comma) == std::string::npos)
        return "buffer " + std::to_string(buffer) + " is a data URI that is not base64";
      std::vector<uint8_t> bytes;
      if (auto e = decode_base64(std::string_view(uri).substr(comma + 1), bytes); !e.empty()) return e;
      it = data_uris_.emplace(buffer, std::move(bytes)).first;
    }
    return from(it->second);
  }
  // A file beside the model: only inside the model's folder (symlinks resolved), as for textures.
  if (!memory_.empty()) return "external buffers are not resolved for files read from memory";
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::absolute(path_from_utf8(path_), ec).parent_path(), ec);
  const fs::path file = fs::weakly_canonical(folder / path_from_utf8(percent_decode(uri)), ec);
  if (ec) return "buffer '" + uri + "' cannot be resolved";
  if (!path_is_inside(file, folder)) return "buffer '" + uri + "' lies outside the model's folder";
  if (!fs::is_regular_file(file, ec)) return "buffer '" + uri + "' is not a file";
  return read_range(file, offset, length, out);
}

std::string GltfFile::read_accessor(uint64_t index, int components, bool normalized_ok,
                                    std::vector<float>& out, uint64_t& count) {
  const json* a = element(doc_, "accessors", index);
  if (!a || !a->is_object()) return "accessor " + std::to_string(index) + " does not exist";
  const std::string name = "accessor " + std::to_string(index);
  if (member(*a, "sparse")) return name + " is sparse (not supported here)";
  const auto view_index = uint_member(*a, "bufferView");
  if (!view_index) return name + " has no buffer view";
  const json* view = element(doc_, "bufferViews", *view_index);
  if (!view || !view->is_object()) return name + "'s buffer view does not exist";
  const auto n = uint_member(*a, "count");
  if (!n || *n == 0 || *n > kMaxCount) return name + " has no valid count";
  count = *n;
  const std::string type = string_member(*a, "type");
  const int type_components = type == "SCALAR" ? 1 : type == "VEC3" ? 3 : type == "VEC4" ? 4 : 0;
  if (type_components != components) return name + " is " + type + ", not the expected type";
  const auto component_type = uint_member(*a, "componentType");
  const json* normalized = member(*a, "normalized");
  const bool is_normalized = normalized && normalized->is_boolean() && normalized->get<bool>();
  uint64_t component_bytes = 0;
  if (component_type == 5126u)
    component_bytes = 4;
  else if (normalized_ok && is_normalized && (component_type == 5120u || component_type == 5121u))
    component_bytes = 1;
  else if (normalized_ok && is_normalized && (component_type == 5122u || component_type == 5123u))
    component_bytes = 2;
  else
    return name + " has a component type this channel does not allow";
  const uint64_t element_bytes = component_bytes * static_cast<uint64_t>(components);
  const uint64_t accessor_offset = uint_member(*a, "byteOffset").value_or(0);
  const uint64_t view_offset = uint_member(*view, "byteOffset").value_or(0);
  const auto view_length = uint_member(*view, "byteLength");
  const auto buffer = uint_member(*view, "buffer");
  uint64_t stride = element_bytes;
  if (member(*view, "byteStride")) {
    const auto s = uint_member(*view, "byteStride");
    if (!s || *s < element_bytes || *s > 252) return name + "'s buffer view has an invalid stride";
    stride = *s;
  }
  if (!view_length || !buffer) return name + "'s buffer view has no length or buffer";
  // All below 2^28 * 252 + 2^64 cannot overflow once each term is bounded.
  if (accessor_offset > *view_length || view_offset > (1ull << 48) || *view_length > (1ull << 48))
    return name + " lies outside its buffer view";
  const uint64_t needed = stride * (count - 1) + element_bytes;
  if (needed > *view_length - accessor_offset) return name + " reaches past its buffer view";
  if (needed > kMaxAccessorBytes) return name + " is larger than this reader takes";
  std::vector<uint8_t> bytes;
  if (auto e = buffer_bytes(*buffer, view_offset + accessor_offset, needed, bytes); !e.empty()) return e;
  out.resize(count * static_cast<uint64_t>(components));
  for (uint64_t i = 0; i < count; ++i)
    for (int c = 0; c < components; ++c) {
      const uint8_t* p = bytes.data() + i * stride + static_cast<uint64_t>(c) * component_bytes;
      float v = 0;
      switch (*component_type) {
        case 5126:
          std::memcpy(&v, p, 4);
          break;
        case 5120:
          v = std::max(static_cast<int8_t>(p[0]) / 127.f, -1.f);
          break;
        case 5121:
          v = p[0] / 255.f;
          break;
        case 5122: {
          int16_t s;
          std::memcpy(&s, p, 2);
          v = std::max(s / 32767.f, -1.f);
          break;
        }
        default: {
          uint16_t s;
          std::memcpy(&s, p, 2);
          v = s / 65535.f;
        }
      }
      out[i * components + c] = v;
    }
  return {};
}

}  // namespace ossa::detail
