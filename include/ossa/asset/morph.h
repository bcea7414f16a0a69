// ossa/asset/morph.h — the morph-target (blend shape) parts of runtime assets.
//
// A mesh's targets live in SkinnedMesh (MorphTargets below, sparse: only the vertices each target moves);
// a clip's weight animation lives in Clip (MorphWeightTracks: one keyed track per animated mesh). Weights are
// kept as keys in every clip layout and sampled by linear interpolation (clamped outside the keys), as glTF
// and Blender evaluate them; a clip's fixed-rate or compressed joint data is unaffected. Both are empty, and
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
// (ascending) and of the deltas (3 floats per entry). normal_deltas is empty when no target has normals.
class MorphTargets {
 public:
  // `vertex_count`: the mesh's; `where` starts error messages. Checks counts, ranges and finite values.
  static Result<MorphTargets> build(std::span<const RawMorphTarget> raw,
                                    std::span<const float> default_weights, size_t vertex_count,
                                    const std::string& where);

  int count() const { return static_cast<int>(names_.size()); }
  bool empty() const { return names_.empty(); }
  std::span<const std::string> names() const { return names_; }
  std::span<const float> default_weights() const { return default_weights_; }
  std::span<const uint32_t> target_first() const { return target_first_; }  // count() + 1, or empty
  std::span<const uint32_t> vertices() const { return vertices_; }
  std::span<const float> position_deltas() const { return position_deltas_; }
  std::span<const float> normal_deltas() const { return normal_deltas_; }
  size_t memory_bytes() const;

 private:
  std::vector<std::string> names_;
  std::vector<float> default_weights_;
  std::vector<uint32_t> target_first_, vertices_;
  std::vector<float> position_deltas_, normal_deltas_;
};

// A clip's weight keys, per animated mesh: track i has `targets` weights per key, its keys at
// key_times()[key_first + k] with weights key_weights()[weight_first + k * targets + t].
class MorphWeightTracks {
 public:
  struct Track {
    int mesh = 0;               // index into CharacterAsset::meshes
    int targets = 0;            // weights per key: the mesh's target count
    uint32_t key_first = 0;     // into key_times()
    uint32_t key_count = 0;     // >= 1
    uint32_t weight_first = 0;  // into key_weights(): key k of the track at weight_first + k * targets
  };

  // From a clip's raw tracks (targets per key = weights / times); `where` starts error messages. Checks
  // counts, ascending finite times and finite weights. Mesh indices and target counts are checked against
  // the meshes by CharacterAsset::build (a Clip does not know them); Animator skips tracks that do not fit.
  static Result<MorphWeightTracks> build(std::span<const RawMorphTrack> raw, const std::string& where);

  bool empty() const { return tracks_.empty(); }
  std::span<const Track> tracks() const { return tracks_; }
  std::span<const float> key_times() const { return key_times_; }
  std::span<const float> key_weights() const { return key_weights_; }
  // Track `track`'s weights at `time` into out (out.size() == its targets): a binary search and a lerp.
  void sample(int track, float time, std::span<float> out) const;
  size_t memory_bytes() const;

 private:
  std::vector<Track> tracks_;
  std::vector<float> key_times_, key_weights_;
};

}  // namespace ossa
