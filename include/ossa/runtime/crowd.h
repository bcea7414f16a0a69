// ossa/runtime/crowd.h — many characters updated per frame, spread over a thread pool or the game's own job
// system (any ossa::Executor, see ossa/runtime/executor.h).
//
// A CharacterInstance holds one character's own state and buffers (time, sampling cache, local poses, model
// matrices, skinning palette); the Skeleton and Clips are shared, read-only, by all of them, so threads never
// contend. update_character() is one frame of one character: advance time (looping), SampleJob,
// LocalToModelJob, PaletteJob (skeleton palette: palette[j] = model[j] * inverse_bind[j]). update_crowd()
// writes each character from exactly one task, so the results are bit-identical whatever the executor or
// thread count.
//
// snippet: examples/building_blocks.cpp thread_pool
//   ossa::ThreadPool pool;  // one thread per core, the calling thread included
//   std::vector<ossa::CharacterInstance> crowd(64);
//   for (size_t i = 0; i < crowd.size(); ++i)
//     crowd[i].init(skeleton, &asset.clips[i % asset.clips.size()], 0.1f * i);
//   pool.parallel_for(static_cast<int>(crowd.size()), [&](int begin, int end) {
//     for (int i = begin; i < end; ++i) ossa::update_character(skeleton, crowd[i], 1 / 60.f);
//   });                                                   // returns when every index ran once
//   ossa::update_crowd(pool, skeleton, crowd, 1 / 60.f);  // the same loop, done for you
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
  std::vector<Mat4> skeleton_palette;
};

bool update_character(const Skeleton& skeleton, CharacterInstance& character, float dt);
// Runs update_character for every character on `executor` (an ossa::ThreadPool, or your job system).
void update_crowd(Executor& executor, const Skeleton& skeleton, std::span<CharacterInstance> characters,
                  float dt);

}  // namespace ossa
