// Joint keys reduced within an error bound on virtual vertices (see gltf_key_reduction.h).
#include "gltf_key_reduction.h"

#include <algorithm>
#include <cmath>

namespace ossa::detail {
namespace {

constexpr size_t kLongestRun = 512;  // keys one kept pair may span (bounds the search to linear time)

int components_of(int kind) {
  return kind == 1 ? 4 : 3;
}

Quat quat_at(const std::vector<float>& values, size_t key) {
  return {values[key * 4], values[key * 4 + 1], values[key * 4 + 2], values[key * 4 + 3]};
}

// Key a and key c interpolated at key k's time, against key k: the distance (translation), the largest
// component (scale) or the angle (rotation).
float interpolation_error(const JointChannel& ch, size_t a, size_t c, size_t k) {
  const float u = (ch.times[k] - ch.times[a]) / (ch.times[c] - ch.times[a]);
  if (ch.kind == 1) {
    const Quat q = normalize(slerp(quat_at(ch.values, a), quat_at(ch.values, c), u));
    const Quat want = normalize(quat_at(ch.values, k));
    // The angle of conjugate(want) * q, from its vector part (acos of a float dot cannot see under 3e-4 rad).
    const double w =
        double(want.w) * q.w + double(want.x) * q.x + double(want.y) * q.y + double(want.z) * q.z;
    const double x =
        double(want.w) * q.x - double(want.x) * q.w - double(want.y) * q.z + double(want.z) * q.y;
    const double y =
        double(want.w) * q.y + double(want.x) * q.z - double(want.y) * q.w - double(want.z) * q.x;
    const double z =
        double(want.w) * q.z - double(want.x) * q.y + double(want.y) * q.x - double(want.z) * q.w;
    return static_cast<float>(2 * std::atan2(std::sqrt(x * x + y * y + z * z), std::fabs(w)));
  }
  float worst = 0, squared = 0;
  for (int i = 0; i < 3; ++i) {
    const float v = ch.values[a * 3 + i] + (ch.values[c * 3 + i] - ch.values[a * 3 + i]) * u;
    const float d = std::fabs(v - ch.values[k * 3 + i]);
    worst = std::max(worst, d), squared += d * d;
  }
  return ch.kind == 0 ? std::sqrt(squared) : worst;
}

JointChannel reduce_channel(const JointChannel& ch, float bound) {
  const size_t n = ch.times.size(), width = components_of(ch.kind);
  if (n <= 2 || bound <= 0 || ch.step) return ch;
  std::vector<size_t> kept = {0};
  for (size_t a = 0; a + 1 < n;) {
    size_t c = a + 1;
    auto fits = [&](size_t end) {
      for (size_t k = a + 1; k < end; ++k)
        if (!(interpolation_error(ch, a, end, k) <= bound)) return false;
      return true;
    };
    while (c + 1 < n && c + 1 - a <= kLongestRun && fits(c + 1)) ++c;
    kept.push_back(c);
    a = c;
  }
  JointChannel out{ch.joint, ch.kind, {}, {}, false};
  for (size_t k : kept) {
    out.times.push_back(ch.times[k]);
    out.values.insert(out.values.end(), ch.values.begin() + k * width, ch.values.begin() + (k + 1) * width);
  }
  return out;
}

// The channel's value at `time`, clamped to its keys (slerp along the shortest arc for rotations).
void sample(const JointChannel& ch, float time, float* out) {
  const size_t n = ch.times.size(), width = components_of(ch.kind);
  const size_t c = std::upper_bound(ch.times.begin(), ch.times.end(), time) - ch.times.begin();
  if (c == 0 || c == n) {
    std::copy_n(ch.values.begin() + (c == 0 ? 0 : n - 1) * width, width, out);
    return;
  }
  const size_t a = c - 1;
  if (ch.step) {
    std::copy_n(ch.values.begin() + a * width, width, out);
    return;
  }
  const float u = (time - ch.times[a]) / (ch.times[c] - ch.times[a]);
  if (ch.kind == 1) {
    const Quat q = slerp(quat_at(ch.values, a), quat_at(ch.values, c), u);
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
    return;
  }
  for (size_t i = 0; i < width; ++i)
    out[i] = ch.values[a * 3 + i] + (ch.values[c * 3 + i] - ch.values[a * 3 + i]) * u;
}

void model_matrices(const std::vector<JointChannel>& channels, const Skeleton& skeleton, float time,
                    std::vector<Mat4>& model) {
  std::vector<JointPose> pose(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
  for (const JointChannel& ch : channels) {
    JointPose& p = pose[ch.joint];
    sample(ch, time, ch.kind == 0 ? p.translation : ch.kind == 1 ? p.rotation : p.scale);
  }
  model.resize(pose.size());
  for (size_t j = 0; j < pose.size(); ++j) {
    const JointPose& p = pose[j];
    const Mat4 local = Transform{
        {p.translation[0], p.translation[1], p.translation[2]},
        {p.rotation[0], p.rotation[1], p.rotation[2], p.rotation[3]},
        {p.scale[0], p.scale[1],
         p.scale[2]}}.to_matrix();
    const int parent = skeleton.parents()[j];
    model[j] = parent >= 0 ? model[parent] * local : local;
  }
}

// The largest distance between the virtual vertices of the two poses.
double virtual_vertex_error(const std::vector<Mat4>& a, const std::vector<Mat4>& b, float shell) {
  double worst = 0;
  for (size_t j = 0; j < a.size(); ++j) {
    double origin[3], axis[3][3];
    for (int r = 0; r < 3; ++r) {
      origin[r] = double(a[j].at(r, 3)) - b[j].at(r, 3);
      for (int c = 0; c < 3; ++c) axis[c][r] = (double(a[j].at(r, c)) - b[j].at(r, c)) * shell;
    }
    for (int c = 0; c < 3; ++c)
      for (double sign : {-1.0, 1.0}) {
        const double x = origin[0] + sign * axis[c][0], y = origin[1] + sign * axis[c][1],
                     z = origin[2] + sign * axis[c][2];
        worst = std::max(worst, std::sqrt(x * x + y * y + z * z));
      }
  }
  return worst;
}

}  // namespace

KeyReduction reduce_keys(const std::vector<JointChannel>& channels, const Skeleton& skeleton, float tolerance,
                         float shell, bool short_rotations) {
  const int joints = skeleton.joint_count();
  // Each joint's reach: the farthest virtual vertex of its sub-tree, at rest.
  std::vector<Mat4> rest;
  model_matrices({}, skeleton, 0, rest);
  std::vector<float> reach(joints, shell);
  for (int j = 0; j < joints; ++j)
    for (int d = j; d < skeleton.subtree_end(j); ++d)
      reach[j] = std::max(reach[j], length(rest[d].translation() - rest[j].translation()) + shell);

  // Every key time of the clip and the times half-way between them.
  std::vector<float> times;
  for (const JointChannel& ch : channels) times.insert(times.end(), ch.times.begin(), ch.times.end());
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  for (size_t i = 1, n = times.size(); i < n; ++i) times.push_back(0.5f * (times[i - 1] + times[i]));

  auto measure = [&](const std::vector<JointChannel>& reduced) {
    std::vector<Mat4> a, b;
    double worst = 0;
    for (float t : times) {
      model_matrices(channels, skeleton, t, a);
      model_matrices(reduced, skeleton, t, b);
      worst = std::max(worst, virtual_vertex_error(a, b, shell));
    }
    return worst;
  };
  // Rotations as 16-bit only when their rounding alone takes at most half the bound (on long chains it can
  // take it all: 3e-5 rad at the hips is 0.03 mm at the hand).
  KeyReduction out;
  if (short_rotations) {
    out.channels = channels;
    for (JointChannel& ch : out.channels)
      if (ch.kind == 1)
        for (float& v : ch.values) v = std::round(std::clamp(v, -1.0f, 1.0f) * 32767) / 32767;
    out.short_rotations = measure(out.channels) <= 0.5 * tolerance;
  }
  for (int halving = 0; halving <= 12; ++halving) {
    const float share = halving < 12 ? std::ldexp(tolerance, -halving) : 0.0f;  // 0: every key
    out.channels.clear();
    for (const JointChannel& ch : channels) {
      const float bound = ch.kind == 0 ? share : share / reach[ch.joint];
      out.channels.push_back(reduce_channel(ch, bound));
      if (ch.kind == 1 && out.short_rotations)
        for (float& v : out.channels.back().values)
          v = std::round(std::clamp(v, -1.0f, 1.0f) * 32767) / 32767;
    }
    out.worst_error = measure(out.channels);
    if (out.worst_error <= tolerance) return out;
  }
  out.channels = channels;  // every key, float rotations: the full keys themselves
  out.short_rotations = false;
  out.worst_error = 0;
  return out;
}

}  // namespace ossa::detail
