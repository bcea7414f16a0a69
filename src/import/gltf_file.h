// Internal: a glTF file's JSON and accessors, read with every number checked, for what Ossa reads from a
// glTF itself because assimp 5.2.5 drops it (gltf_interpolation.h: sampler interpolation;
// gltf_morph_tangents.h: morph targets' TANGENT deltas).
//
// The file is untrusted: the JSON is at most kMaxJsonBytes and nested at most 128 deep, every index, count,
// offset and stride is checked against what it indexes before a byte is read, an accessor is at most
// kMaxAccessorBytes; buffers come from the .glb's BIN chunk, a base64 data URI, or a file inside the model's
// folder.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ossa::detail {
namespace gltf {
using json = nlohmann::json;
// A member of a JSON object, or null.
const json* member(const json& object, const char* key);
// A member that is a non-negative integer, else nullopt.
std::optional<uint64_t> uint_member(const json& object, const char* key);
// A member that is a string, else "".
std::string string_member(const json& object, const char* key);
// Element `index` of the top-level array `array` of `doc`, or null.
const json* element(const json& doc, const char* array, uint64_t index);
}  // namespace gltf

// The file's JSON and where its buffers' bytes are; reads accessors with every number checked.
class GltfFile {
 public:
  static constexpr size_t kMaxJsonBytes = 256u << 20;
  static constexpr size_t kMaxAccessorBytes = 256u << 20;

  // "" or why the file cannot be read (then nothing is converted).
  std::string open(const std::string& path, std::span<const uint8_t> memory);
  // Whether the JSON text holds `text` (before parse(): a cheap test for what the caller looks for).
  bool mentions(std::string_view text) const { return json_text_.find(text) != std::string::npos; }
  // `ascii_only`: every byte over 127 read as '?' first (JSON has them only inside strings, so the structure
  // and the numbers stay; for a file with strings that are not UTF-8, which nlohmann-json refuses and assimp
  // takes).
  std::string parse(bool ascii_only = false);
  const gltf::json& doc() const { return doc_; }
  // Accessor `index` as floats: `components` per element (normalised integers allowed when `normalized_ok`).
  std::string read_accessor(uint64_t index, int components, bool normalized_ok, std::vector<float>& out,
                            uint64_t& count);
  std::optional<uint64_t> accessor_count(uint64_t index) const {
    const gltf::json* a = gltf::element(doc_, "accessors", index);
    return a ? gltf::uint_member(*a, "count") : std::nullopt;
  }

 private:
  std::string buffer_bytes(uint64_t buffer, uint64_t offset, uint64_t length, std::vector<uint8_t>& out);

  std::string path_;
  std::span<const uint8_t> memory_;
  std::string json_text_;
  gltf::json doc_;
  bool glb_ = false;
  uint64_t bin_offset_ = 0, bin_length_ = 0;  // the .glb's BIN chunk, when it has one
  bool has_bin_ = false;
  std::map<uint64_t, std::vector<uint8_t>> data_uris_;  // decoded, by buffer index
};

}  // namespace ossa::detail
