// ossa/asset/morph.h — the morph-target (blend shape) parts of runtime assets.
//
// A mesh's targets live in SkinnedMesh (MorphTargets below, sparse: only the vertices each target moves);
// a clip's weight animation lives in Clip (MorphWeightTracks: one keyed track per animated mesh). Weights are
// kept as keys in every clip layout and sampled by linear interpolation (clamped outside the keys), as glTF
// and Blender evaluate them; a clip's fixed-rate or compressed joint data is unaffected. Compressed clips
// (ossa/offline/morph_compression.h) keep the key times and quantise the weights, per target, within a bound
// on vertex displacement. Both are empty, and
// cost nothing, for meshes and clips without morphs. MorphJob (ossa/runtime/morph_job.h) applies the weights;
// Animator samples and blends them.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ossa/asset/raw.h"
#include "ossa/core/result.h"

namespace ossa {

// A mesh's targets, flattened: target t owns entries [target_first[t], target_first[t + 1]) of `vertices`
// (ascending) and of the deltas (3 floats per entry). normal_deltas is empty when no target has normals,
// tangent_deltas when no target has tangents (deltas of the tangents' xyz; their w, the bitangent sign, is
// not morphed); a target without them in a mesh where another has them gets zeros.
class MorphTargets {
 public:
  // `vertex_count`: the mesh's; `where` starts error messages. Checks counts, ranges and finite values.
  // `mesh_has_tangents`: whether the mesh has tangents (tangent deltas are refused for one without).
  // At most this many targets per mesh, from any source (the importer and the .ossa reader alike).
  static constexpr int kMaxTargets = 1024;
  static Result<MorphTargets> build(std::span<const RawMorphTarget> raw,
                                    std::span<const float> default_weights, size_t vertex_count,
                                    bool mesh_has_tangents, const std::string& where);

  int count() const { return static_cast<int>(names_.size()); }
  bool empty() const { return names_.empty(); }
  std::span<const std::string> names() const { return names_; }
  std::span<const float> default_weights() const { return default_weights_; }
  std::span<const uint32_t> target_first() const { return target_first_; }  // count() + 1, or empty
  std::span<const uint32_t> vertices() const { return vertices_; }
  std::span<const float> position_deltas() const { return position_deltas_; }
  std::span<const float> normal_deltas() const { return normal_deltas_; }
  std::span<const float> tangent_deltas() const { return tangent_deltas_; }
  size_t memory_bytes() const;

 private:
  std::vector<std::string> names_;
  std::vector<float> default_weights_;
  std::vector<uint32_t> target_first_, vertices_;
  std::vector<float> position_deltas_, normal_deltas_, tangent_deltas_;
};

// A clip's weight keys, per animated mesh: track i has `targets` weights per key, its keys at
// key_times()[key_first + k] with weights key_weights()[weight_first + k * targets + t].
//
// Quantized (made by compress_morph_weights, ossa/offline/morph_compression.h): key_weights() is empty; each
// target of each track is a WeightChannel (channels(), track-major: the track's targets from its
// weight_first), and key k of a track stores, target after target, `bits` bits q (0-24; the weight is
// min + step * q) or the float itself (kBitsFloat). A track's keys are bit-packed one after another
// (key_bits each) from the byte packed_first of packed(), little-endian; each track starts on a byte.
class MorphWeightTracks {
 public:
  struct Track {
    int mesh = 0;               // index into CharacterAsset::meshes
    int targets = 0;            // weights per key: the mesh's target count
    uint32_t key_first = 0;     // into key_times()
    uint32_t key_count = 0;     // >= 1
    uint32_t weight_first = 0;  // into key_weights() (key k at weight_first + k * targets), or channels()
    uint32_t packed_first = 0;  // quantized: the track's first byte in packed()
    uint32_t key_bits = 0;      // quantized: bits per key (the sum of its channels' bits)
  };
  struct WeightChannel {
    float min = 0;
    float step = 0;
    uint8_t bits = 0;  // 0-24, or kBitsFloat
    uint8_t unused[3] = {0, 0, 0};
  };
  static constexpr int kMaxQuantizedBits = 24;
  static constexpr uint8_t kBitsFloat = 32;
  // The shape of a quantized track (offsets are computed from these, never taken from a file).
  struct QuantizedTrack {
    int mesh = 0;
    int targets = 0;
    uint32_t key_count = 0;
  };

  // From a clip's raw tracks (targets per key = weights / times); `where` starts error messages. Checks
  // counts, ascending finite times and finite weights. Mesh indices and target counts are checked against
  // the meshes by CharacterAsset::build (a Clip does not know them); Animator skips tracks that do not fit.
  static Result<MorphWeightTracks> build(std::span<const RawMorphTrack> raw, const std::string& where);
  // Quantized tracks from their parts (tracks' keys one after another in key_times; channels track-major;
  // `packed` exactly the bytes the tracks need). Validated like build(), plus bit rates, the packed size and
  // every decoded weight finite, so sampling never reads out of bounds.
  static Result<MorphWeightTracks> from_quantized(std::span<const QuantizedTrack> tracks,
                                                  std::vector<float> key_times,
                                                  std::vector<WeightChannel> channels,
                                                  std::vector<uint8_t> packed, const std::string& where);

  bool empty() const { return tracks_.empty(); }
  bool quantized() const { return quantized_; }
  std::span<const Track> tracks() const { return tracks_; }
  std::span<const float> key_times() const { return key_times_; }
  std::span<const float> key_weights() const { return key_weights_; }  // empty when quantized
  std::span<const WeightChannel> channels() const { return channels_; }
  std::span<const uint8_t> packed() const { return {packed_.data(), packed_size_}; }
  // Track `track`'s weight of target `target` at key `key` (either layout).
  float key_weight(int track, uint32_t key, int target) const;
  // Track `track`'s weights at `time` into out (out.size() == its targets): a binary search and a lerp.
  void sample(int track, float time, std::span<float> out) const;
  // Mesh `mesh`'s weights at `time` into out (one per target): from each track for that mesh with
  // out.size() targets; out is left as it is (e.g. the mesh's default weights) when none animates it.
  void sample_mesh(int mesh, float time, std::span<float> out) const;
  size_t memory_bytes() const;

 private:
  std::vector<Track> tracks_;
  std::vector<float> key_times_, key_weights_;
  bool quantized_ = false;
  std::vector<WeightChannel> channels_;
  std::vector<uint32_t> channel_bit_;  // quantized: each channel's first bit within its track's key
  std::vector<uint8_t> packed_;        // packed_size_ bytes and 8 of padding (64-bit reads)
  size_t packed_size_ = 0;
};

}  // namespace ossa
