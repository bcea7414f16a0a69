#include "viewer/dope_sheet.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ossa/runtime/sample_job.h"

namespace ossa::viewer {

namespace {

constexpr float kDegrees = 57.29577951308232f;
constexpr float kStill = 1e-5f;

const float* channel_of(const JointPose& pose, int channel) {
  return channel == 0 ? pose.translation : channel == 1 ? pose.rotation : pose.scale;
}

// Within what a float export's noise gives (1e-5 of the value's size, at least 1e-5): a baked channel that
// holds still shows no keys for rounding.
bool same_values(const float* a, const float* b) {
  for (int k = 0; k < 4; ++k)
    if (std::abs(a[k] - b[k]) > kStill * std::max(1.f, std::max(std::abs(a[k]), std::abs(b[k]))))
      return false;
  return true;
}

// Frame-stored clips (fixed rate, compressed): a key where a channel's value differs from the frame before.
void frame_keys(const Clip& clip, std::vector<DopeRow>& rows) {
  const int joints = clip.joint_count(), frames = clip.frame_count();
  std::vector<JointPose> previous(joints), current(joints);
  auto frame = [&](int f, std::vector<JointPose>& out) {
    if (clip.layout() == Clip::Layout::kFixedRate)
      std::copy_n(clip.frames().begin() + static_cast<std::ptrdiff_t>(f) * joints, joints, out.begin());
    else
      clip.decode_frame(f, out.data());
  };
  auto time_of = [&](int f) {
    return f == frames - 1 ? clip.duration()
                           : std::min(static_cast<float>(f) / clip.frame_rate(), clip.duration());
  };
  if (frames < 1) return;
  frame(0, previous);
  for (int f = 1; f < frames; ++f) {
    frame(f, current);
    for (int j = 0; j < joints; ++j)
      for (int c = 0; c < 3; ++c)
        if (!same_values(channel_of(previous[j], c), channel_of(current[j], c))) {
          // It moves from frame f - 1 to f: both bound the change.
          std::vector<float>& keys = rows[j].keys[c];
          if (keys.empty() || keys.back() != time_of(f - 1)) keys.push_back(time_of(f - 1));
          keys.push_back(time_of(f));
        }
    std::swap(previous, current);
  }
}

void stored_keys(const Clip& clip, std::vector<DopeRow>& rows) {
  const auto first = clip.channel_first();
  const auto times = clip.key_times();
  for (int j = 0; j < clip.joint_count(); ++j)
    for (int c = 0; c < 3; ++c) {
      const uint32_t begin = first[j * 3 + c], end = first[j * 3 + c + 1];
      if (end - begin >= 2) rows[j].keys[c].assign(times.begin() + begin, times.begin() + end);
    }
}

// Euler angles continued from `previous`: each within 180 degrees of the one before.
std::array<float, 3> unwrapped(std::array<float, 3> angles, const std::array<float, 3>& previous) {
  for (int k = 0; k < 3; ++k) angles[k] += 360.f * std::round((previous[k] - angles[k]) / 360.f);
  return angles;
}

}  // namespace

size_t DopeSheet::key_count() const {
  size_t count = 0;
  for (const DopeRow& row : rows)
    for (const auto& keys : row.keys) count += keys.size();
  return count;
}

DopeSheet make_dope_sheet(const CharacterAsset& asset, int clip_index) {
  DopeSheet sheet;
  if (clip_index < 0 || clip_index >= static_cast<int>(asset.clips.size())) return sheet;
  const Clip& clip = asset.clips[clip_index];
  const int joints = std::min(clip.joint_count(), asset.skeleton.joint_count());
  std::vector<DopeRow> joint_rows(clip.joint_count());
  if (clip.layout() == Clip::Layout::kKeyed)
    stored_keys(clip, joint_rows);
  else
    frame_keys(clip, joint_rows);
  for (int j = 0; j < joints; ++j) {
    DopeRow& row = joint_rows[j];
    if (row.keys[0].empty() && row.keys[1].empty() && row.keys[2].empty()) continue;
    row.name = asset.skeleton.name(j);
    row.joint = j;
    sheet.rows.push_back(std::move(row));
  }
  const MorphWeightTracks& weights = clip.morph_weights();
  const auto tracks = weights.tracks();
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const MorphTargets& targets = asset.meshes[m].morph_targets();
    for (int target = 0; target < targets.count(); ++target) {
      DopeRow row;
      for (size_t t = 0; t < tracks.size(); ++t) {
        const auto& track = tracks[t];
        if (track.mesh != static_cast<int>(m) || track.targets != targets.count() || track.key_count < 2)
          continue;
        const float first = weights.key_weight(static_cast<int>(t), 0, target);
        bool varies = false;
        for (uint32_t k = 1; k < track.key_count && !varies; ++k)
          varies = weights.key_weight(static_cast<int>(t), k, target) != first;
        if (!varies) continue;
        const auto times = weights.key_times().subspan(track.key_first, track.key_count);
        row.keys[0].insert(row.keys[0].end(), times.begin(), times.end());
      }
      if (row.keys[0].empty()) continue;
      std::sort(row.keys[0].begin(), row.keys[0].end());
      row.keys[0].erase(std::unique(row.keys[0].begin(), row.keys[0].end()), row.keys[0].end());
      row.name = asset.meshes[m].name() + ": " + targets.names()[target];
      row.mesh = static_cast<int>(m);
      row.target = target;
      sheet.rows.push_back(std::move(row));
    }
  }
  return sheet;
}

std::array<float, 3> euler_xyz_degrees(const float q[4]) {
  const float x = q[0], y = q[1], z = q[2], w = q[3];
  const float r00 = 1 - 2 * (y * y + z * z), r10 = 2 * (x * y + z * w), r20 = 2 * (x * z - y * w);
  const float r21 = 2 * (y * z + x * w), r22 = 1 - 2 * (x * x + y * y);
  const float r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - x * w);
  const float sy = std::clamp(-r20, -1.f, 1.f);
  if (std::abs(sy) > 0.9999999f) {  // gimbal lock: X and Z turn about the same axis; X takes it all
    return {std::atan2(-r12, r11) * kDegrees, std::asin(sy) * kDegrees, 0.f};
  }
  return {std::atan2(r21, r22) * kDegrees, std::asin(sy) * kDegrees, std::atan2(r10, r00) * kDegrees};
}

std::vector<CurveSample> channel_curve(const CharacterAsset& asset, int clip_index, ChannelKind kind,
                                       int joint, int mesh, int target, int samples) {
  std::vector<CurveSample> curve;
  if (clip_index < 0 || clip_index >= static_cast<int>(asset.clips.size()) || samples < 2) return curve;
  const Clip& clip = asset.clips[clip_index];
  const bool morph = kind == ChannelKind::kMorphWeight;
  if (morph ? mesh < 0 || mesh >= static_cast<int>(asset.meshes.size()) || target < 0 ||
                  target >= asset.meshes[mesh].morph_targets().count()
            : joint < 0 || joint >= clip.joint_count())
    return curve;
  // The times: evenly spaced, and the row's keys.
  std::vector<float> times;
  for (int i = 0; i < samples; ++i)
    times.push_back(clip.duration() * static_cast<float>(i) / static_cast<float>(samples - 1));
  const DopeSheet sheet = make_dope_sheet(asset, clip_index);
  for (const DopeRow& row : sheet.rows)
    if (morph ? row.mesh == mesh && row.target == target : row.joint == joint) {
      const auto& keys = row.keys[morph ? 0 : static_cast<int>(kind)];
      times.insert(times.end(), keys.begin(), keys.end());
    }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());

  std::vector<JointPose> pose(clip.joint_count());
  std::vector<float> weights;
  SamplingCache cache;
  std::array<float, 3> previous{};
  for (float t : times) {
    CurveSample s;
    s.time = t;
    if (morph) {
      const MorphTargets& targets = asset.meshes[mesh].morph_targets();
      weights.assign(targets.default_weights().begin(), targets.default_weights().end());
      clip.morph_weights().sample_mesh(mesh, t, weights);
      s.value[0] = weights[target];
    } else {
      if (!SampleJob{.clip = &clip, .time = t, .cache = &cache, .output = pose}.run()) return {};
      const float* v = channel_of(pose[joint], static_cast<int>(kind));
      std::copy_n(v, 4, s.value.begin());
      if (kind == ChannelKind::kRotation) {
        s.euler_degrees = euler_xyz_degrees(v);
        if (!curve.empty()) s.euler_degrees = unwrapped(s.euler_degrees, previous);
        previous = s.euler_degrees;
      }
    }
    curve.push_back(s);
  }
  return curve;
}

}  // namespace ossa::viewer
