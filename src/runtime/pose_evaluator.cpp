// PoseEvaluator: the runtime jobs in the order a frame runs them, at times a tool picks.
#include "ossa/runtime/pose_evaluator.h"

#include <cmath>

#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/morph_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/skinning_job.h"

namespace ossa {

PoseEvaluator::PoseEvaluator(const CharacterAsset& asset)
    : asset_(&asset),
      locals_(asset.skeleton.rest_pose().begin(), asset.skeleton.rest_pose().end()),
      model_(asset.skeleton.joint_count()) {
  LocalToModelJob{&asset.skeleton, locals_, model_}.run();
}

bool PoseEvaluator::evaluate(int clip, float time) {
  if (clip < -1 || clip >= static_cast<int>(asset_->clips.size()) || !std::isfinite(time)) return false;
  if (clip < 0) {
    locals_.assign(asset_->skeleton.rest_pose().begin(), asset_->skeleton.rest_pose().end());
  } else if (!SampleJob{&asset_->clips[clip], time, &cache_, locals_}.run()) {
    return false;
  }
  clip_ = clip, time_ = time;
  return LocalToModelJob{&asset_->skeleton, locals_, model_}.run();
}

void PoseEvaluator::bind_pose() {
  const std::span<const Mat4> inverse_binds = asset_->skeleton.inverse_binds();
  for (size_t j = 0; j < model_.size(); ++j) model_[j] = inverse(inverse_binds[j]);
}

bool PoseEvaluator::skin(int mesh, std::span<float> out) {
  if (mesh < 0 || mesh >= static_cast<int>(asset_->meshes.size())) return false;
  const SkinnedMesh& m = asset_->meshes[mesh];
  if (out.size() != m.positions().size()) return false;
  // The mesh's weights: its defaults, then the clip's track for it (as the Animator samples them).
  const MorphTargets& targets = m.morph_targets();
  weights_.assign(targets.default_weights().begin(), targets.default_weights().end());
  if (clip_ >= 0) asset_->clips[clip_].morph_weights().sample_mesh(mesh, time_, weights_);
  morphed_.assign(m.positions().begin(), m.positions().end());
  MorphJob morph = MorphJob::for_mesh(m, weights_);
  morph.out_positions = morphed_;
  morph.run();
  palette_.resize(m.inverse_binds().size());
  if (!PaletteJob{model_, m.inverse_binds(), m.joint_remap(), palette_, {}}.run()) return false;
  SkinningJob job = SkinningJob::for_mesh(m, palette_);
  job.in_positions = morphed_;
  job.out_positions = out;
  return job.run();
}

}  // namespace ossa
