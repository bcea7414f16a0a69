// Clips moved onto another skeleton by joint names, with their morph weights by mesh and target names
// (ossa/offline/retarget.h): offline work, for characters that share names but not the same file.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/offline/retarget.h"

namespace ossa {

Result<Clip> retarget_clip(const Clip& clip, const Skeleton& source, const Skeleton& target,
                           std::vector<std::string>* unmatched) {
  if (clip.joint_count() != source.joint_count())
    return Result<Clip>::failure("clip '" + clip.name() + "' was not made for the source skeleton");
  std::vector<int> from(target.joint_count(), -1);
  for (int j = 0; j < target.joint_count(); ++j) from[j] = source.find_joint(target.name(j));
  if (unmatched)
    for (int j = 0; j < source.joint_count(); ++j)
      if (target.find_joint(source.name(j)) < 0) unmatched->push_back(source.name(j));
  const int tj = target.joint_count(), sj = source.joint_count();
  if (clip.layout() == Clip::Layout::kFixedRate) {
    std::vector<JointPose> frames(static_cast<size_t>(clip.frame_count()) * tj);
    for (int f = 0; f < clip.frame_count(); ++f)
      for (int j = 0; j < tj; ++j)
        frames[static_cast<size_t>(f) * tj + j] =
            from[j] >= 0 ? clip.frames()[static_cast<size_t>(f) * sj + from[j]] : target.rest_pose()[j];
    return Clip::from_frames(clip.name(), clip.duration(), clip.frame_rate(), tj, std::move(frames));
  }
  if (clip.layout() == Clip::Layout::kKeyed) {
    std::vector<uint32_t> first;
    std::vector<float> times, values;
    for (int j = 0; j < tj; ++j)
      for (int channel = 0; channel < 3; ++channel) {
        first.push_back(static_cast<uint32_t>(times.size()));
        if (from[j] >= 0) {
          const int c = from[j] * 3 + channel;
          for (uint32_t k = clip.channel_first()[c]; k < clip.channel_first()[c + 1]; ++k) {
            times.push_back(clip.key_times()[k]);
            values.insert(values.end(), clip.key_values().begin() + 4 * k,
                          clip.key_values().begin() + 4 * k + 4);
          }
        } else {
          const JointPose& rest = target.rest_pose()[j];
          const float* v = channel == 0 ? rest.translation : channel == 1 ? rest.rotation : rest.scale;
          times.push_back(0);
          values.insert(values.end(), v, v + 4);
        }
      }
    first.push_back(static_cast<uint32_t>(times.size()));
    return Clip::from_keys(clip.name(), clip.duration(), tj, std::move(first), std::move(times),
                           std::move(values));
  }
  return Result<Clip>::failure("clip '" + clip.name() +
                               "': quantized clips are retargeted before compression");
}

namespace {

// Which source weight each morph target of one target mesh takes: (track, target) or none.
struct MorphSource {
  int track = -1, target = -1;
};

// Target mesh `mesh`'s sources in `weights` (a clip of `source`); by name, the same-named source mesh first.
std::vector<MorphSource> morph_sources(const MorphWeightTracks& weights, const CharacterAsset& source,
                                       const SkinnedMesh& mesh) {
  const auto names = mesh.morph_targets().names();
  std::vector<MorphSource> from(names.size());
  const auto tracks = weights.tracks();
  for (size_t t = 0; t < names.size(); ++t)
    for (int pass = 0; pass < 2 && from[t].track < 0; ++pass)
      for (size_t i = 0; i < tracks.size() && from[t].track < 0; ++i) {
        if (tracks[i].mesh >= static_cast<int>(source.meshes.size())) continue;
        const SkinnedMesh& from_mesh = source.meshes[static_cast<size_t>(tracks[i].mesh)];
        const auto from_names = from_mesh.morph_targets().names();
        if (tracks[i].targets != static_cast<int>(from_names.size())) continue;  // the Animator skips it too
        if (pass == 0 && from_mesh.name() != mesh.name()) continue;
        const auto hit = std::find(from_names.begin(), from_names.end(), names[t]);
        if (hit != from_names.end())
          from[t] = {static_cast<int>(i), static_cast<int>(hit - from_names.begin())};
      }
  return from;
}

// One raw track for a target mesh from its sources: the contributing tracks' keys merged by time, a time
// repeated as often as any track repeats it (a step), each track giving its own key there or its lerp.
RawMorphTrack merge_morph_keys(const MorphWeightTracks& weights, std::span<const MorphSource> from,
                               std::span<const float> defaults, int mesh) {
  std::vector<int> used;
  for (const MorphSource& f : from)
    if (f.track >= 0 && std::find(used.begin(), used.end(), f.track) == used.end()) used.push_back(f.track);
  const auto tracks = weights.tracks();
  const auto times = weights.key_times();
  auto keys_of = [&](int track) {
    const auto& t = tracks[static_cast<size_t>(track)];
    return times.subspan(t.key_first, t.key_count);
  };
  std::vector<float> merged;
  for (int track : used) {
    std::vector<float> out;
    std::merge(merged.begin(), merged.end(), keys_of(track).begin(), keys_of(track).end(),
               std::back_inserter(out));
    merged = std::move(out);
  }
  RawMorphTrack raw;
  raw.mesh = mesh;
  std::vector<float> sampled;
  for (size_t k = 0; k < merged.size();) {
    const float time = merged[k];
    int repeats = 0;  // the most keys any contributing track has at `time`
    for (int track : used) {
      const auto keys = keys_of(track);
      repeats = std::max(repeats, static_cast<int>(std::upper_bound(keys.begin(), keys.end(), time) -
                                                   std::lower_bound(keys.begin(), keys.end(), time)));
    }
    for (int o = 0; o < repeats; ++o) {
      raw.times.push_back(time);
      for (size_t t = 0; t < from.size(); ++t) {
        if (from[t].track < 0) {
          raw.weights.push_back(defaults[t]);
          continue;
        }
        const auto keys = keys_of(from[t].track);
        const auto first = std::lower_bound(keys.begin(), keys.end(), time);
        const int at = static_cast<int>(std::upper_bound(keys.begin(), keys.end(), time) - first);
        if (at > 0) {
          const auto key = static_cast<uint32_t>(first - keys.begin() + std::min(o, at - 1));
          raw.weights.push_back(weights.key_weight(from[t].track, key, from[t].target));
        } else {
          sampled.resize(static_cast<size_t>(tracks[static_cast<size_t>(from[t].track)].targets));
          weights.sample(from[t].track, time, sampled);
          raw.weights.push_back(sampled[static_cast<size_t>(from[t].target)]);
        }
      }
    }
    while (k < merged.size() && merged[k] == time) ++k;
  }
  return raw;
}

}  // namespace

Result<Clip> retarget_clip(const Clip& clip, const CharacterAsset& source, const CharacterAsset& target,
                           std::vector<std::string>* unmatched) {
  auto joints = retarget_clip(clip, source.skeleton, target.skeleton, unmatched);
  if (!joints || clip.morph_weights().empty()) return joints;
  auto weights = retarget_morph_weights(clip, source, target, unmatched);
  if (!weights) return Result<Clip>::failure(weights.error());
  return Clip::with_morph_weights(std::move(joints).value(), std::move(weights).value());
}

Result<MorphWeightTracks> retarget_morph_weights(const Clip& clip, const CharacterAsset& source,
                                                 const CharacterAsset& target,
                                                 std::vector<std::string>* unmatched) {
  const MorphWeightTracks& weights = clip.morph_weights();
  if (weights.empty()) return MorphWeightTracks{};
  std::vector<RawMorphTrack> raw;
  std::vector<std::vector<bool>> taken(weights.tracks().size());
  for (size_t i = 0; i < taken.size(); ++i)
    taken[i].assign(static_cast<size_t>(weights.tracks()[i].targets), false);
  for (size_t m = 0; m < target.meshes.size(); ++m) {
    const SkinnedMesh& mesh = target.meshes[m];
    const std::vector<MorphSource> from = morph_sources(weights, source, mesh);
    if (std::none_of(from.begin(), from.end(), [](const MorphSource& f) { return f.track >= 0; })) continue;
    for (const MorphSource& f : from)
      if (f.track >= 0) taken[static_cast<size_t>(f.track)][static_cast<size_t>(f.target)] = true;
    raw.push_back(
        merge_morph_keys(weights, from, mesh.morph_targets().default_weights(), static_cast<int>(m)));
  }
  if (unmatched)
    for (size_t i = 0; i < taken.size(); ++i) {
      const int mesh = weights.tracks()[i].mesh;
      if (mesh >= static_cast<int>(source.meshes.size())) continue;
      const SkinnedMesh& from_mesh = source.meshes[static_cast<size_t>(mesh)];
      const auto names = from_mesh.morph_targets().names();
      for (size_t t = 0; t < taken[i].size() && t < names.size(); ++t)
        if (!taken[i][t]) unmatched->push_back(from_mesh.name() + "/" + names[t]);
    }
  return MorphWeightTracks::build(raw, "clip '" + clip.name() + "'");
}

}  // namespace ossa
