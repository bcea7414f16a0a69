// ossa/runtime/local_to_model_job.h — local JointPoses -> model-space matrices, parents first.
//
// model[j] = model[parent(j)] * (T * R * S)(local[j]); roots use `root` (identity when null) as their parent.
// With `from` >= 0 only the sub-tree rooted at joint `from` is updated (its parent's model matrix must
// already be in `output`); the rest of `output` is left as it is. No allocation, no exceptions.
#pragma once

#include <span>

#include "ossa/asset/skeleton.h"

namespace ossa {

struct LocalToModelJob {
  const Skeleton* skeleton = nullptr;
  std::span<const JointPose> input;  // skeleton->joint_count() poses
  std::span<Mat4> output;            // skeleton->joint_count() matrices
  const Mat4* root = nullptr;
  int from = -1;

  bool validate() const;
  bool run() const;
};

}  // namespace ossa
