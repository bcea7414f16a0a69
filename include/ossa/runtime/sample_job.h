// ossa/runtime/sample_job.h — clip + time -> local JointPose of every joint. First stage of a frame.
//
//   ossa::SampleJob job{&clip, time, &cache, locals};   // locals: span of clip.joint_count() poses
//   if (!job.run()) { /* validate() failed: nothing written */ }
// `time` is seconds from the clip start, clamped to [0, duration] (for a ratio r use r * clip.duration()).
// Fixed-rate clips need no cache. Keyed clips use `cache` (one per character and clip) so that forward
// playback only steps ahead (seeks and reverse play search from the cached position); quantized clips keep
// their two decoded frames in it. No allocation, no exceptions; the cache is sized by SamplingCache::reset()
// (called by run() only when the clip changed, which allocates once).
#pragma once

#include <span>

#include "ossa/asset/clip.h"

namespace ossa {

struct SampleJob {
  const Clip* clip = nullptr;
  float time = 0;
  SamplingCache* cache = nullptr;  // required for keyed and quantized clips
  std::span<JointPose> output;

  bool validate() const;
  bool run() const;
};

}  // namespace ossa
