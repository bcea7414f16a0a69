// glTF STEP and CUBICSPLINE samplers as linear keys (see gltf_interpolation.h).
#include "gltf_interpolation.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "ossa/asset/notifies.h"
#include "ossa/core/file_io.h"

namespace ossa::detail {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr uint32_t kGlbMagic = 0x46546C67, kChunkJson = 0x4E4F534A, kChunkBin = 0x004E4942;
constexpr int kMaxJsonNesting = 128;
constexpr uint64_t kMaxCount = 1ull << 28;  // accessor elements

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

// The file's JSON and where its buffers' bytes are; reads accessors with every number checked.
class GltfFile {
 public:
  // "" or why the file cannot be read (then nothing is converted).
  std::string open(const std::string& path, std::span<const uint8_t> memory);
  bool mentions_step_or_cubic() const {
    return json_text_.find("\"STEP\"") != std::string::npos ||
           json_text_.find("\"CUBICSPLINE\"") != std::string::npos;
  }
  std::string parse();
  const json& doc() const { return doc_; }
  // Accessor `index` as floats: `components` per element (normalised integers allowed when `normalized_ok`).
  std::string read_accessor(uint64_t index, int components, bool normalized_ok, std::vector<float>& out,
                            uint64_t& count);
  std::optional<uint64_t> accessor_count(uint64_t index) const {
    const json* a = element(doc_, "accessors", index);
    return a ? uint_member(*a, "count") : std::nullopt;
  }

 private:
  std::string buffer_bytes(uint64_t buffer, uint64_t offset, uint64_t length, std::vector<uint8_t>& out);

  std::string path_;
  std::span<const uint8_t> memory_;
  std::string json_text_;
  json doc_;
  bool glb_ = false;
  uint64_t bin_offset_ = 0, bin_length_ = 0;  // the .glb's BIN chunk, when it has one
  bool has_bin_ = false;
  std::map<uint64_t, std::vector<uint8_t>> data_uris_;  // decoded, by buffer index
};

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
    if (json_length > GltfInterpolation::kMaxJsonBytes || json_length > total - 20)
      return "the JSON chunk is too long";
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
  if (size > GltfInterpolation::kMaxJsonBytes)
    return "its JSON is longer than " + std::to_string(GltfInterpolation::kMaxJsonBytes >> 20) + " MB";
  return read(0, size, json_text_);
}

std::string GltfFile::parse() {
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
  if (needed > GltfInterpolation::kMaxAccessorBytes) return name + " is larger than this reader takes";
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

const char* path_name(GltfPath path) {
  switch (path) {
    case GltfPath::kTranslation:
      return "translation";
    case GltfPath::kRotation:
      return "rotation";
    case GltfPath::kScale:
      return "scale";
    default:
      return "weights";
  }
}

// The cubic Hermite spline of one key interval in the interval's parameter s: c0 + c1 s + c2 s^2 + c3 s^3.
struct Cubic {
  double c0, c1, c2, c3;
  Cubic(double v0, double m0, double v1, double m1)  // m: tangents already scaled by the interval
      : c0(v0), c1(m0), c2(-3 * v0 - 2 * m0 + 3 * v1 - m1), c3(2 * v0 + m0 - 2 * v1 + m1) {}
  double at(double s) const { return ((c3 * s + c2) * s + c1) * s + c0; }
  double max_second_derivative() const { return std::max(std::fabs(2 * c2), std::fabs(2 * c2 + 6 * c3)); }
};

}  // namespace

void GltfInterpolation::step_to_linear(std::vector<float>& times, std::vector<float>& values, int width) {
  constexpr float kDown = -std::numeric_limits<float>::infinity();
  auto value = [&](size_t k) {
    return std::span<const float>(values).subspan(k * static_cast<size_t>(width), static_cast<size_t>(width));
  };
  std::vector<float> t, v;
  t.reserve(times.size() * 2 + 1);
  v.reserve(values.size() * 2 + static_cast<size_t>(width));
  auto add = [&](float time, std::span<const float> key) {
    t.push_back(time);
    v.insert(v.end(), key.begin(), key.end());
  };
  for (size_t k = 0; k < times.size(); ++k) {
    if (k == 0) {
      add(times[0], value(0));
      continue;
    }
    // Key k's value starts kStepLeadUlps floats before t_k (never at or before t_k-1), the previous value
    // holding until the float below that.
    float start = times[k];
    for (int i = 0; i < kStepLeadUlps && std::nextafter(start, kDown) > times[k - 1]; ++i)
      start = std::nextafter(start, kDown);
    if (const float hold = std::nextafter(start, kDown); hold > times[k - 1]) add(hold, value(k - 1));
    add(start, value(k));
    if (k + 1 == times.size() && start < times[k]) add(times[k], value(k));  // the channel ends where it did
  }
  times.swap(t);
  values.swap(v);
}

void GltfInterpolation::load(const std::string& path, std::span<const uint8_t> memory,
                             std::vector<std::string>& warnings) {
  channels_.clear();
  GltfFile file;
  const std::string intro =
      "glTF sampler interpolation not read (STEP and CUBICSPLINE channels stay linear): ";
  if (auto e = file.open(path, memory); !e.empty()) return warnings.push_back(intro + e);
  if (!file.mentions_step_or_cubic()) return;
  if (auto e = file.parse(); !e.empty()) return warnings.push_back(intro + e);
  const json& doc = file.doc();
  const json* animations = member(doc, "animations");
  if (!animations || !animations->is_array()) return;
  const json* nodes = member(doc, "nodes");
  const uint64_t node_count = nodes && nodes->is_array() ? nodes->size() : 0;
  size_t budget = kMaxResampledFloats;
  for (unsigned a = 0; a < animations->size(); ++a) {
    const json& anim = (*animations)[a];
    const json* samplers = member(anim, "samplers");
    const json* channels = member(anim, "channels");
    if (!samplers || !samplers->is_array() || !channels || !channels->is_array()) continue;
    const std::string anim_name = string_member(anim, "name");
    // The channels assimp keeps (GatherSamplers): a valid sampler with input and output, no more input than
    // output keys; a later channel for the same node and path replaces an earlier one.
    std::map<std::pair<uint64_t, GltfPath>, uint64_t> chosen;
    for (const json& ch : *channels) {
      const auto sampler = uint_member(ch, "sampler");
      const json* target = member(ch, "target");
      if (!sampler || *sampler >= samplers->size() || !target) continue;
      const auto node = uint_member(*target, "node");
      const std::string p = string_member(*target, "path");
      if (!node || *node >= node_count) continue;
      GltfPath path;
      if (p == "translation")
        path = GltfPath::kTranslation;
      else if (p == "rotation")
        path = GltfPath::kRotation;
      else if (p == "scale")
        path = GltfPath::kScale;
      else if (p == "weights")
        path = GltfPath::kWeights;
      else
        continue;
      const json& s = (*samplers)[*sampler];
      const auto input = uint_member(s, "input"), output = uint_member(s, "output");
      if (!input || !output) continue;
      const auto in_count = file.accessor_count(*input), out_count = file.accessor_count(*output);
      if (!in_count || !out_count || *in_count > *out_count) continue;
      chosen[{*node, path}] = *sampler;
    }
    // assimp names a channel by its node's name ("nodes[i]" when it has none): two animated nodes of one
    // name cannot be told apart.
    auto node_name = [&](uint64_t node) {
      std::string name = string_member((*nodes)[node], "name");
      return name.empty() ? "nodes[" + std::to_string(node) + "]" : name;
    };
    std::map<std::string, std::set<uint64_t>> nodes_named;
    for (const auto& [key, sampler] : chosen) nodes_named[node_name(key.first)].insert(key.first);
    for (const auto& [key, sampler] : chosen) {
      const json& s = (*samplers)[sampler];
      const std::string interpolation = string_member(s, "interpolation");
      if (interpolation != "STEP" && interpolation != "CUBICSPLINE") continue;
      const auto [node, path] = key;
      const std::string name = node_name(node);
      const std::string where = "glTF animation " + std::to_string(a) +
                                (anim_name.empty() ? "" : " '" + anim_name + "'") + ", node '" + name + "' " +
                                path_name(path) + " (" + interpolation + ")";
      if (nodes_named[name].size() > 1) {
        warnings.push_back(where + ": another animated node has the same name; interpolated linearly");
        continue;
      }
      Channel c;
      c.cubic = interpolation == "CUBICSPLINE";
      std::vector<float> times, values;
      uint64_t key_count = 0, value_count = 0;
      std::string e = file.read_accessor(*uint_member(s, "input"), 1, false, times, key_count);
      const int components = path == GltfPath::kRotation ? 4 : path == GltfPath::kWeights ? 1 : 3;
      if (e.empty())
        e = file.read_accessor(*uint_member(s, "output"), components,
                               path == GltfPath::kRotation || path == GltfPath::kWeights, values,
                               value_count);
      const uint64_t per_key = key_count * (c.cubic ? 3 : 1);
      if (e.empty() && (value_count % per_key != 0 || (path != GltfPath::kWeights && value_count != per_key)))
        e = "its output holds " + std::to_string(value_count) + " values for " + std::to_string(key_count) +
            " keys";
      if (e.empty())
        for (size_t k = 0; k < times.size(); ++k)
          if (!std::isfinite(times[k]) || (k > 0 && !(times[k] > times[k - 1])))
            e = "its key times do not ascend";
      if (!e.empty()) {
        warnings.push_back(where + ": " + e + "; interpolated linearly");
        continue;
      }
      c.width = static_cast<int>(components * (value_count / per_key));
      const size_t width = static_cast<size_t>(c.width);
      for (size_t i = 0; i < values.size() && c.error.empty(); ++i)
        if (!std::isfinite(values[i])) {
          const size_t k = i / (width * (c.cubic ? 3 : 1));
          const char* part = !c.cubic               ? "key"
                             : (i / width) % 3 == 0 ? "in-tangent of key"
                             : (i / width) % 3 == 1 ? "key"
                                                    : "out-tangent of key";
          c.error = std::string(path_name(path)) + " " + part + " " + std::to_string(k) + " is not finite";
        }
      if (!c.error.empty()) {
        channels_[{a, name, path}] = std::move(c);
        continue;
      }
      if (!c.cubic) {
        step_to_linear(times, values, c.width);
        c.times = std::move(times);
        c.values = std::move(values);
        channels_[{a, name, path}] = std::move(c);
        continue;
      }
      // CUBICSPLINE: key k holds in-tangents a_k, values v_k, out-tangents b_k, `width` floats each.
      auto at = [&](size_t k, int part, size_t i) {
        return static_cast<double>(values[(k * 3 + part) * width + i]);
      };
      const size_t intervals = times.size() - 1;
      std::vector<int> steps(intervals, 1);
      std::vector<double> worst(intervals, 0);
      double total_steps = 0;
      for (size_t k = 0; k < intervals; ++k) {
        const double td = static_cast<double>(times[k + 1]) - times[k];
        for (size_t i = 0; i < width; ++i)
          worst[k] =
              std::max(worst[k], Cubic(at(k, 1, i), td * at(k, 2, i), at(k + 1, 1, i), td * at(k + 1, 0, i))
                                     .max_second_derivative());
        const double n = std::ceil(std::sqrt(worst[k] / (8 * kCubicTolerance)));
        steps[k] = static_cast<int>(std::clamp(n, 1.0, static_cast<double>(kMaxStepsPerInterval)));
        total_steps += steps[k];
      }
      // The file's budget: scale every interval down alike when the channel would exceed what is left.
      const double floats_per_key = static_cast<double>(width) + 1;
      if ((total_steps + 1) * floats_per_key > static_cast<double>(budget)) {
        const double scale = std::max(0.0, static_cast<double>(budget) / floats_per_key - 1 - intervals) /
                             std::max(1.0, total_steps);
        for (int& n : steps) n = std::max(1, static_cast<int>(n * std::min(1.0, scale)));
      }
      double bound = 0;
      for (size_t k = 0; k < intervals; ++k) bound = std::max(bound, worst[k] / (8.0 * steps[k] * steps[k]));
      if (bound > kCubicTolerance)
        warnings.push_back(where + ": resampled within " + std::to_string(bound) +
                           " of the spline (more samples than the import allows would be needed for " +
                           std::to_string(kCubicTolerance) + ")");
      for (size_t k = 0; k < intervals; ++k) {
        const double td = static_cast<double>(times[k + 1]) - times[k];
        for (int j = 0; j < steps[k]; ++j) {
          const float t = static_cast<float>(times[k] + td * j / steps[k]);
          if (!c.times.empty() && !(t > c.times.back())) continue;
          const double s = (static_cast<double>(t) - times[k]) / td;  // at the stored time exactly
          c.times.push_back(t);
          for (size_t i = 0; i < width; ++i)
            c.values.push_back(static_cast<float>(
                Cubic(at(k, 1, i), td * at(k, 2, i), at(k + 1, 1, i), td * at(k + 1, 0, i)).at(s)));
        }
      }
      if (c.times.empty() || times.back() > c.times.back()) {
        c.times.push_back(times.back());
        for (size_t i = 0; i < width; ++i) c.values.push_back(static_cast<float>(at(times.size() - 1, 1, i)));
      }
      for (float v : c.values)
        if (!std::isfinite(v)) c.error = std::string(path_name(path)) + ": the spline leaves the float range";
      if (path == GltfPath::kRotation)
        for (size_t k = 0; k < c.times.size() && c.error.empty(); ++k) {
          float* q = &c.values[k * 4];
          const double n = std::sqrt(double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] +
                                     double(q[3]) * q[3]);
          if (!(n > 1e-6)) {
            c.error = "rotation: the spline passes through a zero quaternion at " +
                      std::to_string(c.times[k]) + " s";
            break;
          }
          for (int i = 0; i < 4; ++i) q[i] = static_cast<float>(q[i] / n);
        }
      budget -= std::min(budget, c.values.size() + c.times.size());
      channels_[{a, name, path}] = std::move(c);
    }
  }
}

const GltfInterpolation::Channel* GltfInterpolation::find(unsigned animation, const std::string& node_name,
                                                          GltfPath path) const {
  auto it = channels_.find({animation, node_name, path});
  return it == channels_.end() ? nullptr : &it->second;
}

std::string GltfInterpolation::convert_track(unsigned animation, const std::string& node_name,
                                             const SpaceMapper& mapper, RawTrack& track,
                                             RawClip& clip) const {
  if (channels_.empty()) return {};
  for (GltfPath path : {GltfPath::kTranslation, GltfPath::kRotation, GltfPath::kScale}) {
    const Channel* c = find(animation, node_name, path);
    if (!c) continue;
    if (!c->error.empty()) return c->error;
    const size_t n = c->times.size();
    if (path == GltfPath::kRotation) {
      track.rotation_times = c->times;
      track.rotations.resize(n);
      for (size_t k = 0; k < n; ++k) {
        const float* q = &c->values[k * 4];
        track.rotations[k] = normalize(mapper.rotation(normalize(Quat{q[0], q[1], q[2], q[3]})));
      }
    } else {
      auto& times = path == GltfPath::kTranslation ? track.translation_times : track.scale_times;
      auto& values = path == GltfPath::kTranslation ? track.translations : track.scales;
      times = c->times;
      values.resize(n);
      for (size_t k = 0; k < n; ++k) {
        const Vec3 v{c->values[k * 3], c->values[k * 3 + 1], c->values[k * 3 + 2]};
        values[k] = path == GltfPath::kTranslation ? mapper.translation(v) : mapper.scale(v);
      }
    }
    ++(c->cubic ? clip.converted_cubic_channels : clip.converted_step_channels);
  }
  return {};
}

bool GltfInterpolation::convert_weights(unsigned animation, const std::string& node_name, size_t targets,
                                        RawMorphTrack& track, RawClip& clip, std::string& error) const {
  const Channel* c = find(animation, node_name, GltfPath::kWeights);
  if (!c) return false;
  if (!c->error.empty()) {
    error = c->error;
    return false;
  }
  if (static_cast<size_t>(c->width) != targets) {
    error = "weights: " + std::to_string(c->width) + " per key for a mesh with " + std::to_string(targets) +
            " morph targets";
    return false;
  }
  track.times = c->times;
  track.weights = c->values;
  ++(c->cubic ? clip.converted_cubic_channels : clip.converted_step_channels);
  return true;
}

}  // namespace ossa::detail
