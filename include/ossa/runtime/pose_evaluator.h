// ossa/runtime/pose_evaluator.h — a character's pose and skinned vertices at any time of any clip, for tools.
//
// What `ossa eval` and the Python module's evaluation run: sample a clip (SampleJob), local-to-model, then
// per mesh its morph weights (the clip's, else the mesh's defaults), MorphJob, PaletteJob and SkinningJob,
// the numbers a game's Animator gives for that clip alone. A game plays clips through an Animator; this is
// for evaluating clips at arbitrary times, in any order, one evaluator per thread. Usage: construct one on a
// CharacterAsset, call evaluate(clip, time) (clip -1 for the rest pose), read model() for the joints in model
// space, and skin(m, out) for mesh m's vertices in that pose.
#pragma once

#include <span>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/core/math.h"

namespace ossa {

class PoseEvaluator {
 public:
  // `asset` must outlive the evaluator.
  explicit PoseEvaluator(const CharacterAsset& asset);

  // The pose of clip `clip` (an index into asset.clips) at `time` seconds (clamped to the clip), or with
  // `clip` = -1 the skeleton's rest pose with every mesh at its default morph weights. False, and nothing
  // changes, for another index or a time that is not finite.
  bool evaluate(int clip, float time);
  // The pose the meshes were bound in: model() = the inverse binds inverted; locals() keep the last pose.
  void bind_pose();

  std::span<const JointPose> locals() const { return locals_; }  // after evaluate()
  std::span<const Mat4> model() const { return model_; }         // per joint, model space
  // Mesh `mesh`'s vertex positions (3 floats each) morphed by the evaluated clip's weights and skinned by
  // model(). False when `mesh` is not an index into asset.meshes or `out` does not hold 3 floats a vertex.
  bool skin(int mesh, std::span<float> out);

 private:
  const CharacterAsset* asset_;
  SamplingCache cache_;
  int clip_ = -1;
  float time_ = 0;
  std::vector<JointPose> locals_;
  std::vector<Mat4> model_;
  std::vector<float> weights_, morphed_;
  std::vector<Mat4> palette_;
};

}  // namespace ossa
