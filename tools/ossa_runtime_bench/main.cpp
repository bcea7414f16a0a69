// ossa_runtime_bench — `ossa bench`'s character update where only ossa::runtime is built (no assimp, no
// CLI11): the aarch64 cross build, run under qemu-aarch64. Measures one character's update (sample +
// local-to-model + palette) stage by stage at the scalar level and at every SIMD level this machine runs,
// and names the kernels each row ran. With --count-updates it runs exactly that many updates and exits, for
// instruction counting under qemu (scripts/aarch64-insn-count.sh).
//
//   ossa_runtime_bench [FILE.ossa] [--clip INDEX] [--json]
//   ossa_runtime_bench [FILE.ossa] [--clip INDEX] --count-updates N --simd scalar|best
//
// Without FILE: the 33-joint synthetic character of the tests (tests/synthetic_character.h), fixed-rate
// clips.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/runtime/crowd.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/simd.h"
#include "ossa/serialize/load.h"
#include "synthetic_character.h"

namespace {
using namespace ossa;
using Clock = std::chrono::steady_clock;
volatile float g_sink;  // keeps results observable

constexpr int kCharacters = 16;  // as `ossa bench`: 16 characters, 64 frames at 60 Hz, random phases
constexpr int kFrames = 64;

std::vector<CharacterInstance> make_characters(const CharacterAsset& asset, const Clip& clip) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> phase(0, clip.duration());
  std::vector<CharacterInstance> characters(kCharacters);
  for (auto& c : characters) c.init(asset.skeleton, &clip, phase(rng));
  return characters;
}

template <class Body>
double median_ns(int rounds, int ops, Body&& body) {
  std::vector<double> samples;
  body();
  for (int r = 0; r < rounds; ++r) {
    const auto start = Clock::now();
    body();
    samples.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() / ops);
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

struct Stages {
  double update = 0, sample = 0, model = 0, palette = 0;
};

Stages measure(const CharacterAsset& asset, const Clip& clip, int rounds) {
  auto characters = make_characters(asset, clip);
  const float dt = 1.f / 60;
  const int ops = kFrames * kCharacters;
  Stages s;
  s.update = median_ns(rounds, ops, [&] {
    for (int f = 0; f < kFrames; ++f)
      for (auto& c : characters) update_character(asset.skeleton, c, dt);
    g_sink = characters[0].skeleton_palette[0].m[12];
  });
  FlushDenormalsScope flush;  // as update_character
  s.sample = median_ns(rounds, ops, [&] {
    for (int f = 0; f < kFrames; ++f)
      for (auto& c : characters) {
        c.time = std::fmod(c.time + dt, clip.duration() > 0 ? clip.duration() : 1.f);
        SampleJob{&clip, c.time, &c.cache, c.locals}.run();
      }
    g_sink = characters[0].locals[0].rotation[0];
  });
  s.model = median_ns(rounds, ops, [&] {
    for (int f = 0; f < kFrames; ++f)
      for (auto& c : characters) LocalToModelJob{&asset.skeleton, c.locals, c.model}.run();
    g_sink = characters[0].model[0].m[12];
  });
  s.palette = median_ns(rounds, ops, [&] {
    for (int f = 0; f < kFrames; ++f)
      for (auto& c : characters)
        PaletteJob{c.model, asset.skeleton.inverse_binds(), {}, c.skeleton_palette, {}}.run();
    g_sink = characters[0].skeleton_palette[0].m[12];
  });
  return s;
}

int usage() {
  std::fprintf(stderr,
               "usage: ossa_runtime_bench [FILE.ossa] [--clip INDEX] [--json]\n"
               "       ossa_runtime_bench [FILE.ossa] [--clip INDEX] --count-updates N --simd scalar|best\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string file, simd = "best";
  int clip_index = 0, count_updates = -1;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--json") {
      json = true;
    } else if (a == "--clip" && has_value) {
      clip_index = std::atoi(argv[++i]);
    } else if (a == "--count-updates" && has_value) {
      count_updates = std::atoi(argv[++i]);
    } else if (a == "--simd" && has_value) {
      simd = argv[++i];
    } else if (!a.empty() && a[0] != '-' && file.empty()) {
      file = a;
    } else {
      return usage();
    }
  }
  if (simd != "scalar" && simd != "best") return usage();

  CharacterAsset asset;
  std::string source = file;
  if (file.empty()) {
    asset = test::synthetic_character(33, 1);
    source = "synthetic character (33 joints)";
  } else {
    auto loaded = load_ossa_character(file);
    if (!loaded) return std::fprintf(stderr, "ossa_runtime_bench: %s\n", loaded.error().c_str()), 1;
    asset = loaded->asset;
  }
  if (clip_index < 0 || clip_index >= static_cast<int>(asset.clips.size()))
    return std::fprintf(stderr, "ossa_runtime_bench: %s has no clip %d\n", source.c_str(), clip_index), 1;
  const Clip& clip = asset.clips[clip_index];
  const int joints = asset.skeleton.joint_count();

  if (count_updates >= 0) {  // exactly count_updates x 16 character updates, nothing else after start-up
    set_simd_level(simd == "scalar" ? SimdLevel::kScalar : best_simd_level());
    auto characters = make_characters(asset, clip);
    for (int f = 0; f < count_updates; ++f)
      for (auto& c : characters) update_character(asset.skeleton, c, 1.f / 60);
    std::printf("%s: %d joints, %d x %d updates, kernels %s\n", source.c_str(), joints, count_updates,
                kCharacters, to_string(simd_level()));
    return 0;
  }

  std::vector<SimdLevel> levels = {SimdLevel::kScalar};
  for (SimdLevel level : {SimdLevel::kSse2, SimdLevel::kAvx2, SimdLevel::kNeon}) {
    set_simd_level(level);
    if (simd_level() == level) levels.push_back(level);
  }
  std::vector<Stages> results;
  for (SimdLevel level : levels) {
    set_simd_level(level);
    results.push_back(measure(asset, clip, 15));
  }
  set_simd_level(best_simd_level());
  if (json) {
    std::printf("{\"model\":\"%s\",\"clip\":\"%s\",\"joints\":%d,\"best\":\"%s\",\"levels\":{",
                source.c_str(), clip.name().c_str(), joints, to_string(best_simd_level()));
    for (size_t i = 0; i < levels.size(); ++i)
      std::printf("%s\"%s\":{\"update_ns\":%.1f,\"sample_ns\":%.1f,\"model_ns\":%.1f,\"palette_ns\":%.1f}",
                  i ? "," : "", to_string(levels[i]), results[i].update, results[i].sample, results[i].model,
                  results[i].palette);
    std::printf("}}\n");
    return 0;
  }
  std::printf("%s, clip '%s': %d joints; kernels chosen at start-up: %s\n", source.c_str(),
              clip.name().c_str(), joints, to_string(best_simd_level()));
  std::printf("  %-9s %12s %12s %12s %12s %10s\n", "kernels", "update ns", "sample ns", "model ns",
              "palette ns", "vs scalar");
  for (size_t i = 0; i < levels.size(); ++i)
    std::printf("  %-9s %12.1f %12.1f %12.1f %12.1f %9.2fx\n", to_string(levels[i]), results[i].update,
                results[i].sample, results[i].model, results[i].palette,
                results[0].update / results[i].update);
  return 0;
}
