#include "gltf_builder.h"

#include <unistd.h>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace ossa::test {
namespace {
std::string base64(const std::vector<uint8_t>& data) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    uint32_t v = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += table[(v >> s) & 63];
  }
  if (i + 1 == data.size()) {
    uint32_t v = data[i] << 16;
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == data.size()) {
    uint32_t v = (data[i] << 16) | (data[i + 1] << 8);
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += table[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

int components(const char* type) {
  std::string t = type;
  return t == "SCALAR" ? 1 : t == "VEC2" ? 2 : t == "VEC3" ? 3 : t == "VEC4" ? 4 : t == "MAT4" ? 16 : 0;
}
}  // namespace

GltfBuilder::GltfBuilder() {
  doc_ = {{"asset", {{"version", "2.0"}, {"generator", "ossa tests"}}},
          {"scene", 0},
          {"scenes", {{{"nodes", nlohmann::json::array()}}}},
          {"nodes", nlohmann::json::array()},
          {"accessors", nlohmann::json::array()},
          {"bufferViews", nlohmann::json::array()}};
}

int GltfBuilder::add_view(const void* data, size_t bytes) {
  while (buffer_.size() % 4) buffer_.push_back(0);
  size_t offset = buffer_.size();
  const auto* p = static_cast<const uint8_t*>(data);
  buffer_.insert(buffer_.end(), p, p + bytes);
  doc_["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", offset}, {"byteLength", bytes}});
  return static_cast<int>(doc_["bufferViews"].size() - 1);
}

int GltfBuilder::add_floats(const std::vector<float>& values, const char* type, bool with_min_max) {
  int view = add_view(values.data(), values.size() * sizeof(float));
  int n = components(type);
  nlohmann::json acc = {
      {"bufferView", view}, {"componentType", 5126}, {"count", values.size() / n}, {"type", type}};
  if (with_min_max) {
    std::vector<float> lo(n, 1e30f), hi(n, -1e30f);
    for (size_t i = 0; i < values.size(); ++i) {
      lo[i % n] = std::min(lo[i % n], values[i]);
      hi[i % n] = std::max(hi[i % n], values[i]);
    }
    acc["min"] = lo;
    acc["max"] = hi;
  }
  doc_["accessors"].push_back(acc);
  return static_cast<int>(doc_["accessors"].size() - 1);
}

int GltfBuilder::add_u16(const std::vector<uint16_t>& values, const char* type) {
  int view = add_view(values.data(), values.size() * sizeof(uint16_t));
  doc_["accessors"].push_back({{"bufferView", view},
                               {"componentType", 5123},
                               {"count", values.size() / components(type)},
                               {"type", type}});
  return static_cast<int>(doc_["accessors"].size() - 1);
}

int GltfBuilder::add_node(nlohmann::json node) {
  doc_["nodes"].push_back(std::move(node));
  return static_cast<int>(doc_["nodes"].size() - 1);
}

void GltfBuilder::write(const std::string& path, const std::string& external_buffer) const {
  nlohmann::json doc = doc_;
  std::string uri = "data:application/octet-stream;base64," + base64(buffer_);
  if (!external_buffer.empty()) {
    uri = external_buffer;
    namespace fs = std::filesystem;
    std::ofstream((fs::path(path).parent_path() / external_buffer).string(), std::ios::binary)
        .write(reinterpret_cast<const char*>(buffer_.data()), static_cast<std::streamsize>(buffer_.size()));
  }
  doc["buffers"] = {{{"byteLength", buffer_.size()}, {"uri", uri}}};
  std::ofstream(path) << doc.dump(1);
}

void GltfBuilder::write_glb(const std::string& path) const {
  nlohmann::json doc = doc_;
  doc["buffers"] = {{{"byteLength", buffer_.size()}}};
  std::string json = doc.dump();
  while (json.size() % 4) json += ' ';
  std::vector<uint8_t> bin = buffer_;
  while (bin.size() % 4) bin.push_back(0);
  std::vector<uint8_t> out;
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  u32(0x46546C67);  // "glTF"
  u32(2);
  u32(static_cast<uint32_t>(12 + 8 + json.size() + 8 + bin.size()));
  u32(static_cast<uint32_t>(json.size()));
  u32(0x4E4F534A);  // "JSON"
  out.insert(out.end(), json.begin(), json.end());
  u32(static_cast<uint32_t>(bin.size()));
  u32(0x004E4942);  // "BIN"
  out.insert(out.end(), bin.begin(), bin.end());
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));
}

std::string temp_dir(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ossa-test-" + name + "-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir.string();
}

}  // namespace ossa::test
