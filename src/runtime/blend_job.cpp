#include "ossa/runtime/blend_job.h"

#include <algorithm>
#include <cmath>

#include "kernels/kernels.h"

namespace ossa {
namespace {
bool layer_ok(const BlendLayer& l, size_t n) {
  return l.pose.size() >= n && (l.joint_weights.empty() || l.joint_weights.size() >= n) &&
         std::isfinite(l.weight);
}
float weight_at(const BlendLayer& l, size_t j) {
  return l.joint_weights.empty() ? l.weight : l.weight * l.joint_weights[j];
}
}  // namespace

bool BlendJob::validate() const {
  const size_t n = rest_pose.size();
  if (n == 0 || output.size() < n) return false;
  for (const BlendLayer& l : layers)
    if (!layer_ok(l, n)) return false;
  for (const BlendLayer& l : additive_layers)
    if (!layer_ok(l, n)) return false;
  return true;
}

bool BlendJob::run() const {
  if (!validate()) return false;
  const size_t n = rest_pose.size();
  // Common cases on the SIMD kernels: one full-weight layer (a copy) and a two-clip crossfade.
  if (additive_layers.empty() && !layers.empty() && layers.size() <= 2) {
    bool unmasked = true;
    for (const BlendLayer& l : layers) unmasked = unmasked && l.joint_weights.empty();
    const float w0 = layers[0].weight, w1 = layers.size() == 2 ? layers[1].weight : 0.f;
    if (unmasked && w0 >= 0 && w1 >= 0 && w0 + w1 >= 1) {
      if (w1 == 0) {
        std::copy(layers[0].pose.begin(), layers[0].pose.begin() + n, output.begin());
      } else {
        detail::active_kernels().blend_poses(layers[0].pose.data(), layers[1].pose.data(), w1 / (w0 + w1),
                                             static_cast<int>(n), output.data());
      }
      return true;
    }
  }
  for (size_t j = 0; j < n; ++j) {
    float t[3] = {0, 0, 0}, s[3] = {0, 0, 0}, r[4] = {0, 0, 0, 0}, total = 0;
    const float* reference = nullptr;  // hemisphere of the first contributing rotation
    auto add = [&](const JointPose& p, float w) {
      const float* q = p.rotation;
      if (!reference) reference = q;
      float d = q[0] * reference[0] + q[1] * reference[1] + q[2] * reference[2] + q[3] * reference[3];
      float wr = d < 0 ? -w : w;
      for (int i = 0; i < 3; ++i) t[i] += w * p.translation[i], s[i] += w * p.scale[i];
      for (int i = 0; i < 4; ++i) r[i] += wr * q[i];
      total += w;
    };
    for (const BlendLayer& l : layers) {
      float w = weight_at(l, j);
      if (w > 0) add(l.pose[j], w);
    }
    if (total < 1) add(rest_pose[j], 1 - total);
    JointPose out;
    const float inv = 1 / total;
    for (int i = 0; i < 3; ++i) out.translation[i] = t[i] * inv, out.scale[i] = s[i] * inv;
    float len = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int i = 0; i < 4; ++i) out.rotation[i] = len > 0 ? r[i] / len : (i == 3 ? 1.f : 0.f);
    for (const BlendLayer& l : additive_layers) {
      float w = weight_at(l, j);
      if (w <= 0) continue;
      const JointPose& a = l.pose[j];
      for (int i = 0; i < 3; ++i) {
        out.translation[i] += w * a.translation[i];
        out.scale[i] *= 1 + w * (a.scale[i] - 1);
      }
      Quat delta = nlerp(Quat{}, {a.rotation[0], a.rotation[1], a.rotation[2], a.rotation[3]}, w);
      Quat q = normalize(Quat{out.rotation[0], out.rotation[1], out.rotation[2], out.rotation[3]} * delta);
      out.rotation[0] = q.x, out.rotation[1] = q.y, out.rotation[2] = q.z, out.rotation[3] = q.w;
    }
    output[j] = out;
  }
  return true;
}

}  // namespace ossa
