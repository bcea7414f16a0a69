// Test helper: writes small glTF 2.0 files from code (buffers embedded as base64 data URIs), so import
// tests can state exactly what a file holds and what must come out.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ossa::test {

class GltfBuilder {
 public:
  GltfBuilder();
  nlohmann::json& doc() { return doc_; }
  // Accessors over new buffer views; `type` is "SCALAR", "VEC2", "VEC3" or "VEC4".
  int add_floats(const std::vector<float>& values, const char* type, bool with_min_max = false);
  int add_u16(const std::vector<uint16_t>& values, const char* type);
  int add_node(nlohmann::json node);  // returns the node index
  // The buffer is embedded as a data URI, or written to `external_buffer` (a file name) beside `path`.
  void write(const std::string& path, const std::string& external_buffer = "") const;
  // Binary glTF: the JSON chunk, then the buffer as the BIN chunk (buffer 0 without a uri).
  void write_glb(const std::string& path) const;

 private:
  int add_view(const void* data, size_t bytes);
  nlohmann::json doc_;
  std::vector<uint8_t> buffer_;
};

// A unique temporary directory for one test (removed by the caller when it wants).
std::string temp_dir(const std::string& name);

}  // namespace ossa::test
