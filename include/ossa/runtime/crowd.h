// ossa/runtime/crowd.h — many characters updated per frame, spread over a thread pool or the game's own job
// system (any ossa::Executor, see ossa/runtime/executor.h).
//
// A CharacterInstance holds one character's own state and buffers (time, sampling cache, local poses, model
// matrices, skinning palette); the Skeleton and Clips are shared, read-only, by all of them, so threads never
// contend. update_character() is one frame of one character: advance time (looping), SampleJob,
// LocalToModelJob, PaletteJob (skeleton palette: palette[j] = model[j] * inverse_bind[j]). update_crowd()
// writes each character from exactly one task, so the results are bit-identical whatever the executor or
// thread count.
#pragma once

#include <span>
#include <vector>

#include "ossa/asset/clip.h"
#include "ossa/runtime/executor.h"
#include "ossa/runtime/thread_pool.h"

namespace ossa {

struct CharacterInstance {
  void init(const Skeleton& skeleton, const Clip* clip, float time = 0);  // sizes the buffers (allocates)

  const Clip* clip = nullptr;
  float time = 0;   // seconds into the clip
  float speed = 1;  // playback rate; negative plays backwards
  SamplingCache cache;
  std::vector<JointPose> locals;
  std::vector<Mat4> model;
  // One matrix per skeleton joint (model[j] * skeleton inverse_bind[j]): not what a mesh indexes. To skin
  // mesh m, build its own palette from `model` with PaletteJob{model, mesh.inverse_binds(),
  // mesh.joint_remap(), ...} (SkinningJob::validate() refuses a palette of the wrong length).
  std::vector<Mat4> palette;
};

bool update_character(const Skeleton& skeleton, CharacterInstance& character, float dt);
// Runs update_character for every character on `executor` (an ossa::ThreadPool, or your job system).
void update_crowd(Executor& executor, const Skeleton& skeleton, std::span<CharacterInstance> characters,
                  float dt);

}  // namespace ossa
