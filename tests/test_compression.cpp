// Clip compression's bound in model units, whatever the rig's scales: the synthetic character under a root
// scaled by 0.01 (centimetre data, Mixamo's usual export), 1 and 100, with the same motion in model space.
// The check is brute force, independent of the compressor's own error measure: points around each joint in
// model space, carried through the reference evaluator's matrices of the uncompressed and the decoded clip.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ossa/asset/compression.h"
#include "ossa/reference/reference_eval.h"
#include "synthetic_character.h"

namespace ossa {
namespace {

// The synthetic scene with its joints under a new root scaled by `root_scale`, their translations divided by
// it: in model space the same motion; in the joints' own units centimetres (0.01) or hectometres (100).
test::SyntheticScene under_scaled_root(float root_scale) {
  test::SyntheticScene scene = test::synthetic_scene(33, 7);
  scene.meshes.clear();
  RawJoint root;
  root.name = "scaled_root";
  root.rest.scale = {root_scale, root_scale, root_scale};
  for (RawJoint& j : scene.skeleton.joints) {
    j.parent += 1;  // -1 (the old root) becomes 0, the new root
    j.rest.translation = j.rest.translation * (1 / root_scale);
    j.inverse_bind = j.inverse_bind * scale_matrix({1 / root_scale, 1 / root_scale, 1 / root_scale});
  }
  scene.skeleton.joints.insert(scene.skeleton.joints.begin(), root);
  for (RawClip& clip : scene.clips)
    for (RawTrack& track : clip.tracks) {
      track.joint += 1;
      for (Vec3& t : track.translations) t = t * (1 / root_scale);
    }
  return scene;
}

std::vector<Mat4> model_matrices(const RawSkeleton& skeleton, const JointPose* pose) {
  std::vector<Transform> local(skeleton.joints.size());
  for (size_t j = 0; j < local.size(); ++j) local[j] = to_transform(pose[j]);
  return reference::local_to_model(skeleton, local);
}

struct ScaledRigResult {
  size_t compressed_bytes = 0;
  float worst = 0;  // brute-force displacement, metres
};

ScaledRigResult compress_and_measure(float root_scale, const CompressionSettings& settings) {
  const test::SyntheticScene scene = under_scaled_root(root_scale);
  auto asset = CharacterAsset::build(scene.skeleton, scene.clips, {}, "scaled rig");
  EXPECT_TRUE(asset) << asset.error();
  ScaledRigResult result;
  if (!asset) return result;
  // Offsets from a joint, in model space: the six virtual vertices at the shell and points on the sphere of
  // radius shell / sqrt(3), which the compressor's guarantee covers.
  std::vector<Vec3> offsets;
  const float r = settings.shell_distance;
  for (int axis = 0; axis < 3; ++axis)
    for (float sign : {-1.f, 1.f}) {
      Vec3 v{0, 0, 0};
      (axis == 0 ? v.x : axis == 1 ? v.y : v.z) = sign * r;
      offsets.push_back(v);
    }
  std::mt19937 rng(3);
  std::normal_distribution<float> n;
  for (int i = 0; i < 24; ++i)
    offsets.push_back(normalize(Vec3{n(rng), n(rng), n(rng)}) * (r / std::sqrt(3.f)));

  const int joints = asset->skeleton.joint_count();
  std::vector<JointPose> decoded(joints);
  for (const Clip& clip : asset->clips) {
    CompressionStats stats;
    auto compressed = compress_clip(clip, asset->skeleton, settings, &stats);
    EXPECT_TRUE(compressed) << compressed.error();
    if (!compressed) continue;
    result.compressed_bytes += stats.compressed_bytes;
    for (int f = 0; f < clip.frame_count(); ++f) {
      const auto reference =
          model_matrices(scene.skeleton, clip.frames().data() + static_cast<size_t>(f) * joints);
      compressed->decode_frame(f, decoded.data());
      const auto lossy = model_matrices(scene.skeleton, decoded.data());
      for (int j = 0; j < joints; ++j) {
        Mat4 to_joint;
        if (!invert(reference[j], to_joint)) continue;
        for (Vec3 offset : offsets) {
          const Vec3 p = reference[j].translation() + offset;
          const float moved = length(transform_point(lossy[j], transform_point(to_joint, p)) - p);
          result.worst = std::max(result.worst, moved);
        }
      }
    }
  }
  return result;
}

// Under a 0.01 root the "3 cm" shell once was 0.3 mm in the model (and 3 m under a 100x root): the bound and
// the shell are metres in model space now, and the compressed size does not depend on the rig's units.
TEST(Compression, BoundHoldsInModelUnitsUnderScaledRoots) {
  const CompressionSettings settings;  // 0.01 cm at 3 cm
  const ScaledRigResult metres = compress_and_measure(1.f, settings);
  for (float root_scale : {0.01f, 1.f, 100.f}) {
    const ScaledRigResult scaled = root_scale == 1.f ? metres : compress_and_measure(root_scale, settings);
    // Float rounding of the matrices (coordinates of about 1 m) stays under 1e-6 m.
    EXPECT_LE(scaled.worst, settings.tolerance + 1e-6f) << "root scale " << root_scale;
    EXPECT_GT(scaled.worst, 0.1f * settings.tolerance) << "root scale " << root_scale << ": lossless?";
    EXPECT_NEAR(static_cast<double>(scaled.compressed_bytes), static_cast<double>(metres.compressed_bytes),
                0.03 * static_cast<double>(metres.compressed_bytes))
        << "root scale " << root_scale;
  }
}

}  // namespace
}  // namespace ossa
