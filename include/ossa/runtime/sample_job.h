// ossa/runtime/sample_job.h — clip + time -> local JointPose of every joint. First stage of a frame.
//
// snippet: examples/building_blocks.cpp sample_job
//   if (!ossa::SampleJob{.clip = &asset.clips[0], .time = 0.5f, .cache = &cache, .output = locals}.run())
//     return std::fprintf(stderr, "sampling refused its input: nothing written\n"), 1;
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

// Two fixed-rate clips sampled and crossfaded in one pass, what a crossfade needs every frame: output =
// clip_a at time_a blended with clip_b at time_b, `weight` being clip_b's share. Each clip's rotation is
// slerped between its frames (unit length within 1.3e-7, so not normalised again), then the two are nlerped:
// what two SampleJobs and a BlendJob give, in one pass.
struct CrossfadeSampleJob {
  const Clip* clip_a = nullptr;
  float time_a = 0;
  const Clip* clip_b = nullptr;
  float time_b = 0;
  float weight = 0;
  std::span<JointPose> output;

  bool validate() const;  // both clips fixed-rate, same joint count, finite times and weight
  bool run() const;
};

}  // namespace ossa
