// Building motion-matching databases (ossa/offline/motion_database.h): offline work, in ossa::offline.
#include "ossa/offline/motion_database.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/sample_job.h"

namespace ossa {
namespace {

using DB = MotionDatabase;

Vec3 rotate_yaw(float yaw, Vec3 v) {  // as RootDelta composes: about +Y, right-handed
  const float c = std::cos(yaw), s = std::sin(yaw);
  return {c * v.x + s * v.z, v.y, -s * v.x + c * v.z};
}

std::string lower_without_namespace(const std::string& name) {
  std::string s = name.substr(name.find_last_of(':') == std::string::npos ? 0 : name.find_last_of(':') + 1);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// +1 for a left mark, -1 for a right one, 0 for neither ("left", "_l", ".l", " l", "l_" and the right ones).
int side(const std::string& s) {
  auto marked = [&](char c, const char* word) {
    return s.find(word) != std::string::npos || s.starts_with(std::string(1, c) + "_") ||
           (s.size() >= 2 && s[s.size() - 1] == c &&
            std::string("_. ").find(s[s.size() - 2]) != std::string::npos);
  };
  if (marked('l', "left")) return 1;
  if (marked('r', "right")) return -1;
  return 0;
}

int find_named(const Skeleton& skeleton, const std::string& name) {
  for (int j = 0; j < skeleton.joint_count(); ++j)
    if (skeleton.name(j) == name) return j;
  return -1;
}

}  // namespace

MotionJoints find_motion_joints(const Skeleton& skeleton, const MotionDatabaseConfig& config) {
  MotionJoints out;
  for (int j = 0; j < skeleton.joint_count(); ++j) {
    const std::string s = lower_without_namespace(skeleton.name(j));
    if (s.find("foot") != std::string::npos && s.find("end") == std::string::npos) {
      if (side(s) > 0 && out.left_foot < 0) out.left_foot = j;
      if (side(s) < 0 && out.right_foot < 0) out.right_foot = j;
    }
    if ((s == "hips" || s == "pelvis") && out.hips < 0) out.hips = j;
  }
  if (!config.left_foot.empty()) out.left_foot = find_named(skeleton, config.left_foot);
  if (!config.right_foot.empty()) out.right_foot = find_named(skeleton, config.right_foot);
  if (!config.hips.empty()) out.hips = find_named(skeleton, config.hips);
  return out;
}

Result<MotionDatabase> build_motion_database(const CharacterAsset& character,
                                             std::span<const MotionSource> sources,
                                             std::span<const MotionTagRange> tags,
                                             const MotionDatabaseConfig& config) {
  using R = Result<MotionDatabase>;
  const Skeleton& skeleton = character.skeleton;
  const MotionJoints joints = find_motion_joints(skeleton, config);
  for (const std::string* named : {&config.left_foot, &config.right_foot, &config.hips})
    if (!named->empty() && find_named(skeleton, *named) < 0)
      return R::failure("motion database: the skeleton has no joint named '" + *named + "'");
  if (joints.left_foot < 0 || joints.right_foot < 0 || joints.hips < 0)
    return R::failure("motion database: no " +
                      std::string(joints.left_foot < 0    ? "left foot"
                                  : joints.right_foot < 0 ? "right foot"
                                                          : "hips") +
                      " joint found (name it in the config)");
  auto grandparent = [&](int j) {
    const int p = skeleton.parents()[j];
    return p >= 0 ? skeleton.parents()[p] : -1;
  };
  const int thigh_l = grandparent(joints.left_foot), thigh_r = grandparent(joints.right_foot);
  if (thigh_l < 0 || thigh_r < 0 || thigh_l == thigh_r)
    return R::failure("motion database: the feet's grandparents (the thighs, for the facing) are missing");
  if (!(config.frame_rate > 0) || config.frame_rate > 1000)
    return R::failure("motion database: frame rate out of range");
  if (sources.empty()) return R::failure("motion database: no clips");

  DB db;
  db.frame_rate = config.frame_rate;
  db.left_foot = joints.left_foot, db.right_foot = joints.right_foot, db.hips = joints.hips;
  for (const MotionTagRange& t : tags) {
    if (t.name == "mm_exclude" ||
        std::find(db.tag_names.begin(), db.tag_names.end(), t.name) != db.tag_names.end())
      continue;
    if (db.tag_names.size() == static_cast<size_t>(DB::kMaxTags))
      return R::failure("motion database: over 31 tag names");
    db.tag_names.push_back(t.name);
  }
  const int horizon = db.trajectory_frames[2];
  std::vector<float> raw;  // kFeatures per frame
  std::vector<JointPose> locals(skeleton.joint_count());
  std::vector<Mat4> model(skeleton.joint_count());
  SamplingCache cache;
  for (const MotionSource& source : sources) {
    if (source.clip < 0 || source.clip >= static_cast<int>(character.clips.size()))
      return R::failure("motion database: clip " + std::to_string(source.clip) +
                        " is not a clip of the character");
    const Clip& clip = character.clips[source.clip];
    const float start = std::clamp(source.start, 0.f, clip.duration());
    const float end = source.end < 0 ? clip.duration() : std::clamp(source.end, start, clip.duration());
    // The last frame may fall a rounding short of the clip's end: counted all the same.
    const int count =
        static_cast<int>(std::floor(static_cast<double>(end - start) * db.frame_rate + 1e-3)) + 1;
    if (count < 2) return R::failure("motion database: '" + clip.name() + "' is under two frames long here");
    // Sampled positions of the joints the features follow.
    std::vector<Vec3> left(count), right(count), hips(count), root(count), facing(count);
    auto position = [&](int j) { return transform_point(model[j], {0, 0, 0}); };
    for (int k = 0; k < count; ++k) {
      const float time = start + static_cast<float>(k) / db.frame_rate;
      if (!SampleJob{.clip = &clip, .time = time, .cache = &cache, .output = locals}.run() ||
          !LocalToModelJob{.skeleton = &skeleton, .input = locals, .output = model}.run())
        return R::failure("motion database: '" + clip.name() + "' does not fit the skeleton");
      left[k] = position(joints.left_foot), right[k] = position(joints.right_foot),
      hips[k] = position(joints.hips);
      root[k] = {hips[k].x, 0, hips[k].z};
      const Vec3 across = position(thigh_r) - position(thigh_l);
      facing[k] = normalize(cross({0, 1, 0}, {across.x, 0, across.z}));
    }
    // The root, smoothed: a Gaussian over the frames, renormalised where it meets the clip's ends.
    const float sigma = config.root_smoothing * db.frame_rate;
    if (sigma > 0.5f) {
      const int half = static_cast<int>(std::ceil(3 * sigma));
      std::vector<Vec3> smooth_root(count), smooth_facing(count);
      for (int k = 0; k < count; ++k) {
        Vec3 p{}, d{};
        float sum = 0;
        for (int i = std::max(0, k - half); i <= std::min(count - 1, k + half); ++i) {
          const float w = std::exp(-0.5f * (i - k) * (i - k) / (sigma * sigma));
          p = p + root[i] * w, d = d + facing[i] * w, sum += w;
        }
        smooth_root[k] = p * (1 / sum);
        smooth_facing[k] = normalize(d);
      }
      root.swap(smooth_root), facing.swap(smooth_facing);
    }
    std::vector<float> yaw(count);
    for (int k = 0; k < count; ++k) {
      yaw[k] = std::atan2(facing[k].x, facing[k].z);
      if (k > 0) {  // unwrapped, as RootMotionTrack keeps it
        while (yaw[k] - yaw[k - 1] > 3.14159265f) yaw[k] -= 6.2831853f;
        while (yaw[k] - yaw[k - 1] < -3.14159265f) yaw[k] += 6.2831853f;
      }
    }
    float lowest[2] = {left[0].y, right[0].y};
    for (int k = 0; k < count; ++k)
      lowest[0] = std::min(lowest[0], left[k].y), lowest[1] = std::min(lowest[1], right[k].y);
    DB::Range range{source.clip, db.frame_count(), count, start};
    db.ranges.push_back(range);
    for (int k = 0; k < count; ++k) {
      const int a = std::max(k - 1, 0), b = std::min(k + 1, count - 1);
      const float inv = db.frame_rate / static_cast<float>(b - a);
      auto local_point = [&](Vec3 p) { return rotate_yaw(-yaw[k], p - root[k]); };
      auto local_vector = [&](Vec3 v) { return rotate_yaw(-yaw[k], v); };
      const Vec3 values[5] = {
          local_point(left[k]), local_point(right[k]), local_vector((left[b] - left[a]) * inv),
          local_vector((right[b] - right[a]) * inv), local_vector((hips[b] - hips[a]) * inv)};
      for (const Vec3& v : values) raw.insert(raw.end(), {v.x, v.y, v.z});
      for (int t : db.trajectory_frames) {
        const Vec3 p = local_point(root[std::min(k + t, count - 1)]);
        raw.insert(raw.end(), {p.x, p.z});
      }
      for (int t : db.trajectory_frames) {
        const Vec3 d = local_vector(facing[std::min(k + t, count - 1)]);
        raw.insert(raw.end(), {d.x, d.z});
      }
      uint32_t bits = k + horizon >= count ? DB::kExcludedTag : 0;
      const float time = start + static_cast<float>(k) / db.frame_rate;
      for (const MotionTagRange& t : tags) {
        if (t.clip != source.clip || time < t.start || time > t.end) continue;
        if (t.name == "mm_exclude") {
          bits |= DB::kExcludedTag;
        } else {
          bits |= 1u << (std::find(db.tag_names.begin(), db.tag_names.end(), t.name) - db.tag_names.begin());
        }
      }
      db.tags.push_back(bits);
      db.roots.push_back({root[k].x, root[k].z, yaw[k]});
      uint8_t planted = 0;
      for (int side = 0; side < 2; ++side) {
        const std::vector<Vec3>& foot = side == 0 ? left : right;
        const Vec3 v = (foot[b] - foot[a]) * inv;
        if (foot[k].y <= lowest[side] + config.contact_height && std::hypot(v.x, v.z) < config.contact_speed)
          planted |= static_cast<uint8_t>(1 << side);
      }
      db.contacts.push_back(planted);
    }
  }

  // Normalisation per group: the per-dim mean, and the group's standard deviation averaged over its dims.
  const int frames = db.frame_count();
  db.offset.assign(DB::kFeatures, 0);
  db.scale.assign(DB::kFeatures, 1);
  for (int g = 0; g < DB::kGroupCount; ++g) {
    double spread = 0;
    for (int d = DB::kGroupFirst[g]; d < DB::kGroupFirst[g + 1]; ++d) {
      double sum = 0, sum2 = 0;
      for (int f = 0; f < frames; ++f) sum += raw[static_cast<size_t>(f) * DB::kFeatures + d];
      const double mean = sum / frames;
      for (int f = 0; f < frames; ++f) {
        const double x = raw[static_cast<size_t>(f) * DB::kFeatures + d] - mean;
        sum2 += x * x;
      }
      db.offset[d] = static_cast<float>(mean);
      spread += std::sqrt(sum2 / frames);
    }
    spread /= DB::kGroupFirst[g + 1] - DB::kGroupFirst[g];
    const float scale = static_cast<float>(config.weights[g] / (spread > 1e-8 ? spread : 1.0));
    for (int d = DB::kGroupFirst[g]; d < DB::kGroupFirst[g + 1]; ++d) db.scale[d] = scale;
  }
  db.features.assign(static_cast<size_t>(frames) * DB::kStride, 0);
  for (int f = 0; f < frames; ++f)
    db.normalize(&raw[static_cast<size_t>(f) * DB::kFeatures],
                 &db.features[static_cast<size_t>(f) * DB::kStride]);
  if (std::string problem = db.check(); !problem.empty()) return R::failure("motion database: " + problem);
  return db;
}

}  // namespace ossa
