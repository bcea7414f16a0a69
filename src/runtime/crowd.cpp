#include "ossa/runtime/crowd.h"

#include <cmath>

#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/simd.h"

namespace ossa {

void CharacterInstance::init(const Skeleton& skeleton, const Clip* c, float t) {
  clip = c;
  time = t;
  locals.assign(skeleton.joint_count(), JointPose{});
  model.assign(skeleton.joint_count(), Mat4{});
  skeleton_palette.assign(skeleton.joint_count(), Mat4{});
  cache.reset(c);
}

bool update_character(const Skeleton& skeleton, CharacterInstance& c, float dt) {
  if (!c.clip) return false;
  FlushDenormalsScope flush;
  const float duration = c.clip->duration();
  c.time += dt * c.speed;
  if (duration > 0 && (c.time > duration || c.time < 0)) c.time -= std::floor(c.time / duration) * duration;
  return SampleJob{c.clip, c.time, &c.cache, c.locals}.run() &&
         LocalToModelJob{&skeleton, c.locals, c.model}.run() &&
         PaletteJob{c.model, skeleton.inverse_binds(), {}, c.skeleton_palette, {}}.run();
}

void update_crowd(Executor& executor, const Skeleton& skeleton, std::span<CharacterInstance> characters,
                  float dt) {
  executor.parallel_for(static_cast<int>(characters.size()), [&](int begin, int end) {
    for (int i = begin; i < end; ++i) update_character(skeleton, characters[i], dt);
  });
}

}  // namespace ossa
