// ossa_vs_ozz — Ossa against ozz-animation 0.16 in one process, on the same skeleton and the same frames.
//
// For each clip of each file: the character update (sample, local-to-model, skinning palette = model x
// inverse bind) of 16 characters at random phases played forward at 60 Hz, 64 frames per round, the two
// libraries' rounds interleaved (Ossa, ozz, Ossa, ...), median of 31 rounds; RUNS such runs give a range.
//   * fixed rate: Ossa's fixed-rate clip against ozz built from the same frames (a key per frame, no
//   optimizer:
//     ozz's AnimationBuilder still stores translations and scales as half floats, rotations in 3x16 bits);
//   * compressed: Ossa's compress_clip at its default bound (0.1 mm on virtual vertices 3 cm from each joint)
//     against ozz's AnimationOptimizer set to the same figures (tolerance 0.1 mm at 3 cm; ozz measures its
//     own way, along the hierarchy).
// Both sides run at the SIMD level this program is compiled for: SSE2 by default, AVX2+FMA when built with
// -mavx2 -mfma (ozz picks its math from the compiler's flags; Ossa's kernels are chosen with set_simd_level).
// As a check that both play the same motion, the largest distance between the two libraries' joint positions
// (model units) over one round is printed with each clip.
//
//   ossa_vs_ozz [--runs N] FILE...      (build and run: bench/vs-ozz.sh)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/import/import.h"
#include "ossa/import/imported_scene.h"
#include "ossa/offline/compression.h"
#include "ossa/runtime/crowd.h"
#include "ossa/runtime/simd.h"
#include "ozz/animation/offline/animation_builder.h"
#include "ozz/animation/offline/animation_optimizer.h"
#include "ozz/animation/offline/raw_animation.h"
#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"
#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"

namespace {
using Clock = std::chrono::steady_clock;
namespace oo = ozz::animation::offline;
namespace om = ozz::math;
volatile float g_sink;

constexpr int kCharacters = 16, kFrames = 64, kRounds = 31;
constexpr float kDt = 1.f / 60;

// ozz orders joints depth-first; each ozz joint is named after its Ossa index, which maps one to the other.
struct OzzRig {
  ozz::unique_ptr<ozz::animation::Skeleton> skeleton;
  std::vector<int> ossa_joint;             // per ozz joint
  std::vector<om::Float4x4> inverse_bind;  // per ozz joint
};

OzzRig make_ozz_rig(const ossa::Skeleton& skeleton) {
  const int n = skeleton.joint_count();
  std::vector<std::vector<int>> children(n);
  std::vector<int> roots;
  for (int j = 0; j < n; ++j)
    (skeleton.parents()[j] < 0 ? roots : children[skeleton.parents()[j]]).push_back(j);
  auto make = [&](auto&& self, int j) -> oo::RawSkeleton::Joint {
    oo::RawSkeleton::Joint joint;
    joint.name = std::to_string(j);
    const ossa::JointPose& p = skeleton.rest_pose()[j];
    joint.transform.translation = om::Float3(p.translation[0], p.translation[1], p.translation[2]);
    joint.transform.rotation = om::Quaternion(p.rotation[0], p.rotation[1], p.rotation[2], p.rotation[3]);
    joint.transform.scale = om::Float3(p.scale[0], p.scale[1], p.scale[2]);
    for (int c : children[j]) joint.children.push_back(self(self, c));
    return joint;
  };
  oo::RawSkeleton raw;
  for (int r : roots) raw.roots.push_back(make(make, r));
  OzzRig rig;
  rig.skeleton = oo::SkeletonBuilder()(raw);
  if (!rig.skeleton) return rig;
  for (const char* name : rig.skeleton->joint_names()) {
    const int j = std::atoi(name);
    rig.ossa_joint.push_back(j);
    const ossa::Mat4& m = skeleton.inverse_binds()[j];
    om::Float4x4 f;
    for (int c = 0; c < 4; ++c) f.cols[c] = om::simd_float4::LoadPtrU(m.m + 4 * c);
    rig.inverse_bind.push_back(f);
  }
  return rig;
}

// A key per frame of the fixed-rate clip, at the frame's time (the last frame at the clip's end).
oo::RawAnimation make_raw_animation(const ossa::Clip& clip, const OzzRig& rig) {
  oo::RawAnimation raw;
  raw.duration = clip.duration();
  raw.tracks.resize(rig.ossa_joint.size());
  const int joints = clip.joint_count(), frames = clip.frame_count();
  for (size_t t = 0; t < rig.ossa_joint.size(); ++t) {
    auto& track = raw.tracks[t];
    const int j = rig.ossa_joint[t];
    for (int f = 0; f < frames; ++f) {
      const float time = f == frames - 1 ? clip.duration() : std::min(f / clip.frame_rate(), clip.duration());
      if (!track.translations.empty() && time <= track.translations.back().time) continue;
      const ossa::JointPose& p = clip.frames()[static_cast<size_t>(f) * joints + j];
      track.translations.push_back({time, om::Float3(p.translation[0], p.translation[1], p.translation[2])});
      track.rotations.push_back(
          {time, om::Quaternion(p.rotation[0], p.rotation[1], p.rotation[2], p.rotation[3])});
      track.scales.push_back({time, om::Float3(p.scale[0], p.scale[1], p.scale[2])});
    }
  }
  return raw;
}

struct OzzCharacter {
  float time = 0;
  ozz::animation::SamplingJob::Context context;
  std::vector<om::SoaTransform> locals;
  std::vector<om::Float4x4> model, palette;
};

// Ossa's update_character, step for step: advance and wrap the time, sample, local-to-model, palette.
void update_ozz(const OzzRig& rig, const ozz::animation::Animation& animation, OzzCharacter& c) {
  const float duration = animation.duration();
  c.time += kDt;
  if (c.time > duration || c.time < 0) c.time -= std::floor(c.time / duration) * duration;
  ozz::animation::SamplingJob sampling;
  sampling.animation = &animation;
  sampling.context = &c.context;
  sampling.ratio = c.time / duration;
  sampling.output = ozz::make_span(c.locals);
  ozz::animation::LocalToModelJob to_model;
  to_model.skeleton = rig.skeleton.get();
  to_model.input = ozz::make_span(c.locals);
  to_model.output = ozz::make_span(c.model);
  if (!sampling.Run() || !to_model.Run()) std::abort();
  for (size_t j = 0; j < c.model.size(); ++j) c.palette[j] = c.model[j] * rig.inverse_bind[j];
}

struct Pair {
  double ossa_ns, ozz_ns;
  float max_position_difference;
};

// One run: both crowds made with the same phases, rounds interleaved, medians per character update.
Pair measure(const ossa::Skeleton& skeleton, const ossa::Clip& clip, const OzzRig& rig,
             const ozz::animation::Animation& animation, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> phase(0, clip.duration());
  std::vector<ossa::CharacterInstance> ossa_crowd(kCharacters);
  std::vector<OzzCharacter> ozz_crowd(kCharacters);
  const int joints = rig.skeleton->num_joints();
  for (int i = 0; i < kCharacters; ++i) {
    const float t = phase(rng);
    ossa_crowd[i].init(skeleton, &clip, t);
    ozz_crowd[i].time = t;
    ozz_crowd[i].context.Resize(joints);
    ozz_crowd[i].locals.resize(rig.skeleton->num_soa_joints());
    ozz_crowd[i].model.resize(joints);
    ozz_crowd[i].palette.resize(joints);
  }
  auto ossa_round = [&] {
    for (int f = 0; f < kFrames; ++f)
      for (auto& c : ossa_crowd) ossa::update_character(skeleton, c, kDt);
    g_sink = ossa_crowd[0].skeleton_palette[0].m[12];
  };
  auto ozz_round = [&] {
    for (int f = 0; f < kFrames; ++f)
      for (auto& c : ozz_crowd) update_ozz(rig, animation, c);
    g_sink = om::GetX(ozz_crowd[0].palette[0].cols[3]);
  };
  // The check: both crowds advanced frame by frame, joint positions compared.
  float worst = 0;
  for (int f = 0; f < kFrames; ++f) {
    for (int i = 0; i < kCharacters; ++i) {
      ossa::update_character(skeleton, ossa_crowd[i], kDt);
      update_ozz(rig, animation, ozz_crowd[i]);
      for (int j = 0; j < joints; ++j) {
        const float* a = ossa_crowd[i].model[rig.ossa_joint[j]].m + 12;
        float b[4];
        om::StorePtrU(ozz_crowd[i].model[j].cols[3], b);
        worst = std::max(worst, std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
      }
    }
  }
  std::vector<double> a, b;
  for (int r = 0; r < kRounds; ++r) {
    const auto t0 = Clock::now();
    ossa_round();
    const auto t1 = Clock::now();
    ozz_round();
    const auto t2 = Clock::now();
    a.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / (kFrames * kCharacters));
    b.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / (kFrames * kCharacters));
  }
  std::nth_element(a.begin(), a.begin() + kRounds / 2, a.end());
  std::nth_element(b.begin(), b.begin() + kRounds / 2, b.end());
  return {a[kRounds / 2], b[kRounds / 2], worst};
}

// A name as a markdown table cell ('|' escaped: FBX clip names are "Armature|Walk").
std::string markdown_cell(const std::string& text) {
  std::string cell;
  for (char c : text) cell += c == '|' ? std::string("\\|") : std::string(1, c);
  return cell;
}

struct Range {
  std::vector<double> v;
  double median() {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
  double lo() { return *std::min_element(v.begin(), v.end()); }
  double hi() { return *std::max_element(v.begin(), v.end()); }
};

std::string range_text(Range& r, const char* format) {
  char text[128];
  char lo[32], hi[32], mid[32];
  std::snprintf(lo, sizeof lo, format, r.lo());
  std::snprintf(hi, sizeof hi, format, r.hi());
  std::snprintf(mid, sizeof mid, format, r.median());
  std::snprintf(text, sizeof text, "%s (%s-%s)", mid, lo, hi);
  return text;
}
}  // namespace

int main(int argc, char** argv) {
  int runs = 3;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else
      files.push_back(argv[i]);
  }
  if (files.empty()) return std::fprintf(stderr, "usage: ossa_vs_ozz [--runs N] FILE...\n"), 2;
#ifdef __AVX2__
  ossa::set_simd_level(ossa::SimdLevel::kAvx2);
#else
  ossa::set_simd_level(ossa::SimdLevel::kSse2);
#endif
  std::printf("SIMD: Ossa %s, ozz %s; %d characters, %d frames per round, median of %d rounds, %d runs\n\n",
              ossa::to_string(ossa::simd_level()),
#ifdef __AVX2__
              "AVX2+FMA (-mavx2 -mfma)",
#else
              "SSE2",
#endif
              kCharacters, kFrames, kRounds, runs);
  std::printf(
      "| file | clip | joints | fps | Ossa fixed ns | ozz ns | ozz / Ossa | Ossa compressed ns | ozz "
      "optimized ns "
      "| ozz / Ossa | Ossa compressed / fixed | bytes Ossa / ozz (compressed) | joint position gap |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  int failures = 0;
  for (const std::string& path : files) {
    auto scene = ossa::import_file(path);
    auto asset = scene ? ossa::CharacterAsset::build(*scene)
                       : ossa::Result<ossa::CharacterAsset>::failure(scene.error());
    if (!asset) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), asset.error().c_str());
      ++failures;
      continue;
    }
    const ossa::Skeleton& skeleton = asset->skeleton;
    OzzRig rig = make_ozz_rig(skeleton);
    if (!rig.skeleton) {
      std::fprintf(stderr, "%s: ozz's SkeletonBuilder refused the skeleton\n", path.c_str());
      ++failures;
      continue;
    }
    const std::string file = path.substr(path.find_last_of('/') + 1);
    for (const ossa::Clip& clip : asset->clips) {
      ossa::CompressionStats stats;
      auto compressed = ossa::compress_clip(clip, skeleton, {}, &stats);
      const oo::RawAnimation raw = make_raw_animation(clip, rig);
      oo::RawAnimation optimized_raw;
      oo::AnimationOptimizer optimizer;
      optimizer.setting = oo::AnimationOptimizer::Setting(1e-4f, 0.03f);
      auto animation = oo::AnimationBuilder()(raw);
      const bool optimized = optimizer(raw, *rig.skeleton, &optimized_raw);
      auto optimized_animation = optimized ? oo::AnimationBuilder()(optimized_raw) : nullptr;
      if (!compressed || !animation || !optimized_animation) {
        std::fprintf(stderr, "%s %s: %s\n", file.c_str(), clip.name().c_str(),
                     !compressed ? compressed.error().c_str() : "ozz refused the animation");
        ++failures;
        continue;
      }
      Range fixed_ossa, fixed_ozz, fixed_ratio, packed_ossa, packed_ozz, packed_ratio, packed_cost;
      float gap = 0;
      for (int run = 0; run < runs; ++run) {
        const Pair f = measure(skeleton, clip, rig, *animation, 1 + run);
        const Pair c = measure(skeleton, *compressed, rig, *optimized_animation, 1 + run);
        fixed_ossa.v.push_back(f.ossa_ns), fixed_ozz.v.push_back(f.ozz_ns);
        fixed_ratio.v.push_back(f.ozz_ns / f.ossa_ns);
        packed_ossa.v.push_back(c.ossa_ns), packed_ozz.v.push_back(c.ozz_ns);
        packed_ratio.v.push_back(c.ozz_ns / c.ossa_ns);
        packed_cost.v.push_back(c.ossa_ns / f.ossa_ns);
        gap = std::max({gap, f.max_position_difference, c.max_position_difference});
      }
      std::printf("| %s | %s | %d | %g | %s | %s | **%s** | %s | %s | **%s** | %s | %zu / %zu | %.2g |\n",
                  file.c_str(), markdown_cell(clip.name()).c_str(), skeleton.joint_count(), clip.frame_rate(),
                  range_text(fixed_ossa, "%.0f").c_str(), range_text(fixed_ozz, "%.0f").c_str(),
                  range_text(fixed_ratio, "%.2f").c_str(), range_text(packed_ossa, "%.0f").c_str(),
                  range_text(packed_ozz, "%.0f").c_str(), range_text(packed_ratio, "%.2f").c_str(),
                  range_text(packed_cost, "%.2f").c_str(), stats.compressed_bytes,
                  optimized_animation->size(), gap);
      std::fflush(stdout);
    }
  }
  return failures ? 1 : 0;
}
