// ossa_hardware_bound: the fixed-rate update (sample + local-to-model + palette) against this machine's
// throughput for the operations it is made of, with SSE2 and with AVX2.
//
//   ossa_hardware_bound [MODEL...]      (default: the bundled sample and assets/bench/ossa_humanoid70.glb)
//
// The update's operations per joint are counted from the kernels (src/runtime/kernels/kernels_simd.inl; the
// counts below say where each comes from). The machine's throughput for each kind of operation is measured by
// microbenchmarks on L1-resident data with independent chains (peaks.inl): multiplies (FMAs with AVX2), adds,
// both mixed in the update's proportion, 16-byte loads, broadcasts, stores, loads and stores mixed in the
// update's proportion, and shuffles. The bound is the busiest resource: max(FP operations x ns per FP
// operation in the mix, memory operations x ns per memory operation in the mix, shuffles x ns per shuffle),
// i.e. the time per joint if nothing but throughput limited it. The update is measured as BM_Update does: 16
// characters at random phases, updated in turn, best of 9 runs. Prints a Markdown table.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/import/import.h"
#include "ossa/runtime/crowd.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/simd.h"
#include "peaks.h"

namespace ossa::build {
const char* sample_dir();  // assets/sample of the source tree (generated: ossa_generated_paths)
}  // namespace ossa::build

namespace {
using Clock = std::chrono::steady_clock;

// Vector instructions and memory operations per joint of the fixed-rate update: 4 floats or 16 bytes each,
// except the `wide_*` share of them, which are 256-bit (8 floats, 32 bytes; this machine issues them at the
// 128-bit rate, so the bound counts instructions alike).
struct Mix {
  double fma = 0, mul = 0, add = 0, shuffle = 0;
  double load = 0, broadcast = 0, store = 0;  // 16-byte loads, 4-byte broadcast loads, 16-byte stores
  double wide_flops = 0, wide_bytes = 0;      // what the 256-bit instructions do beyond 4 floats, 16 bytes
};

enum Stage { kSample, kLocalToModel, kPalette, kStages };
const char* const kStageNames[kStages] = {"sample", "local-to-model", "palette"};

// `parent_reloads`: the share of joints whose parent is not the joint before it (their parent's columns are
// loaded from memory; otherwise they stay in registers).
Mix stage_mix(Stage stage, double parent_reloads, bool fma) {
  Mix m;
  if (stage == kSample) {
    // SampleJob, fixed rate = interpolate_frames of two frames: per joint 6 loads (translation, rotation,
    // scale of each frame), 2 sub + 2 madd (lerps), 2 shuffles (its two slerp weights' lane), 1 mul + 1 madd
    // (the weighted rotations), 3 stores; per 4 joints 1 load (the frames' cosines), 4 logic/min/sub (|d| -
    // 1), 1 compare, 6 madd (the two weight polynomials), 2 logic (the short arc's sign), scale_to_unit (3
    // mul + 2 madd + 2 add), 2 mul.
    m.load += 6 + 0.25, m.shuffle += 2, m.store += 3;
    m.add += 2 + 0.25 * (4 + 1 + 2 + 2), m.fma += 2 + 1 + 0.25 * (6 + 2), m.mul += 1 + 0.25 * (3 + 2);
  } else if (stage == kLocalToModel) {
    // LocalToModelJob: per 4 joints rotation_scale4: 8 loads, 2 transposes (16 shuffles), 3 add (x2 y2 z2),
    // 9 + 9 mul, 12 add/sub; per joint multiply_local: 9 shuffles (its lane of the 9 entries), 3 broadcasts
    // (translation), 4 mul, 8 madd, 1 add, 4 stores, and the parent's 4 columns loaded when it is not the
    // previous joint.
    m.load += 2 + 4 * parent_reloads, m.shuffle += 4 + 9, m.add += 3.75 + 1, m.mul += 4.5 + 4, m.fma += 8;
    m.broadcast += 3, m.store += 4;
  } else if (fma) {
    // PaletteJob, AVX2: column pairs in 256-bit registers: per joint 3 128-bit broadcast loads (model columns
    // 0-2) and 1 load (column 3), 2 256-bit loads (inverse bind), 6 in-lane shuffles and 1 insert, 2 mul + 4
    // madd + 1 add (256-bit), 2 256-bit stores.
    m.load += 6, m.shuffle += 7, m.mul += 2, m.fma += 4, m.add += 1, m.store += 2;
    m.wide_flops += 4 * (2 * 4 + 2 + 1), m.wide_bytes += 16 * 4;
  } else {
    // PaletteJob, SSE2: per joint 4 loads (model columns), 4 loads (inverse-bind columns), 12 shuffles (their
    // lanes), 4 mul, 8 madd, 1 add, 4 stores.
    m.load += 8, m.shuffle += 12, m.mul += 4, m.fma += 8, m.add += 1, m.store += 4;
  }
  if (!fma) {  // SSE2: madd is a multiply and an add; a broadcast is a load and a shuffle (movss + shufps)
    m.mul += m.fma, m.add += m.fma, m.fma = 0;
    m.load += m.broadcast, m.shuffle += m.broadcast, m.broadcast = 0;
  }
  return m;
}

Mix update_mix(double parent_reloads, bool fma) {
  Mix sum;
  for (int s = 0; s < kStages; ++s) {
    const Mix m = stage_mix(static_cast<Stage>(s), parent_reloads, fma);
    sum.fma += m.fma, sum.mul += m.mul, sum.add += m.add, sum.shuffle += m.shuffle;
    sum.load += m.load, sum.broadcast += m.broadcast, sum.store += m.store;
    sum.wide_flops += m.wide_flops, sum.wide_bytes += m.wide_bytes;
  }
  return sum;
}

double flops(const Mix& m) {
  return 4 * (2 * m.fma + m.mul + m.add) + m.wide_flops;
}
double bytes(const Mix& m) {
  return 16 * (m.load + m.store) + 4 * m.broadcast + m.wide_bytes;
}

struct Bound {
  double ns = 0;
  const char* by = "";
};

Bound bound_of(const Mix& m, const ossa::bench::Peaks& p) {
  const double fp = (m.fma + m.mul + m.add) * p.fp_mix;
  const double memory = (m.load + m.broadcast + m.store) * p.memory_mix;
  const double shuffles = m.shuffle * p.shuffle;
  if (fp >= memory && fp >= shuffles) return {fp, "FP"};
  if (memory >= shuffles) return {memory, "loads/stores"};
  return {shuffles, "shuffles"};
}

// ns per joint of the whole update (stage = kStages) or of one stage, measured as BM_Update does: 16
// characters at random phases, updated in turn, best of 9 runs.
double ns_per_joint(const ossa::CharacterAsset& asset, int clip, int stage) {
  std::mt19937 rng(1);
  const ossa::Clip& c = asset.clips[clip];
  std::uniform_real_distribution<float> phase(0, c.duration());
  std::vector<ossa::CharacterInstance> crowd(16);
  for (auto& ch : crowd)
    ch.init(asset.skeleton, &c, phase(rng)), ossa::update_character(asset.skeleton, ch, 0);
  constexpr int kUpdates = 40000;
  double best = 1e30;
  for (int run = 0; run < 9; ++run) {
    const auto start = Clock::now();
    for (int i = 0; i < kUpdates; ++i) {
      ossa::CharacterInstance& ch = crowd[i & 15];
      switch (stage) {
        case kSample:
          ch.time = ch.time + 1.f / 60 > c.duration() ? 0 : ch.time + 1.f / 60;
          ossa::SampleJob{&c, ch.time, &ch.cache, ch.locals}.run();
          break;
        case kLocalToModel:
          ossa::LocalToModelJob{&asset.skeleton, ch.locals, ch.model}.run();
          break;
        case kPalette:
          ossa::PaletteJob{ch.model, asset.skeleton.inverse_binds(), {}, ch.skeleton_palette, {}}.run();
          break;
        default:
          ossa::update_character(asset.skeleton, ch, 1.f / 60);
      }
    }
    best = std::min(best, std::chrono::duration<double, std::nano>(Clock::now() - start).count() / kUpdates);
  }
  return best / asset.skeleton.joint_count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) files.push_back(argv[i]);
  if (files.empty()) {
    const std::string dir = ossa::build::sample_dir();
    files = {dir + "/ossa_sample.fbx", dir + "/../bench/ossa_humanoid70.glb"};
  }
  std::vector<ossa::SimdLevel> levels{ossa::SimdLevel::kSse2};
  if (ossa::best_simd_level() == ossa::SimdLevel::kAvx2) levels.push_back(ossa::SimdLevel::kAvx2);

  std::printf(
      "| kernels | model (joints) | FLOPs / bytes a joint | measured ns a joint | bound ns a joint (by) | "
      "measured / bound |\n|---|---|---:|---:|---:|---:|\n");
  std::vector<std::string> peak_lines, stage_lines;
  for (ossa::SimdLevel level : levels) {
    ossa::set_simd_level(level);
    const bool avx2 = level == ossa::SimdLevel::kAvx2;
    for (const std::string& file : files) {
      ossa::ImportOptions options;
      options.isolate = false;  // our own files
      auto scene = ossa::import_file(file, options);
      if (!scene) return std::fprintf(stderr, "%s\n", scene.error().c_str()), 1;
      auto asset = ossa::CharacterAsset::build(*scene);
      if (!asset || asset->clips.empty()) return std::fprintf(stderr, "%s: no clip\n", file.c_str()), 1;
      const auto parents = asset->skeleton.parents();
      int reloads = 0;
      for (int j = 0; j < static_cast<int>(parents.size()); ++j)
        reloads += parents[j] >= 0 && parents[j] != j - 1;
      const Mix mix = update_mix(static_cast<double>(reloads) / parents.size(), avx2);
      const double fp_ops = mix.fma + mix.mul + mix.add;
      const double memory_ops = mix.load + mix.broadcast + mix.store;
      const ossa::bench::Peaks peaks =
          avx2 ? ossa::bench::measure_peaks_avx2((mix.fma + mix.mul) / fp_ops,
                                                 (mix.load + mix.broadcast) / memory_ops)
               : ossa::bench::measure_peaks_sse2(mix.mul / fp_ops, (mix.load + mix.broadcast) / memory_ops);
      const double measured = ns_per_joint(*asset, 0, kStages);
      const Bound bound = bound_of(mix, peaks);
      const std::string name = file.substr(file.find_last_of('/') + 1);
      std::printf("| %s | %s (%d) | %.0f / %.0f | %.2f | %.2f (%s) | %.2f |\n", ossa::to_string(level),
                  name.c_str(), asset->skeleton.joint_count(), flops(mix), bytes(mix), measured, bound.ns,
                  bound.by, measured / bound.ns);
      char line[512];
      std::snprintf(
          line, sizeof line,
          "| %s | %s | %.1f FP (%.1f FMA, %.1f mul, %.1f add) x %.3f ns | %.1f memory (%.1f load, %.1f "
          "broadcast, %.1f store) x %.3f ns | %.1f shuffles x %.3f ns | mul %.3f, add %.3f, load %.3f, "
          "broadcast %.3f, store %.3f |",
          ossa::to_string(level), name.c_str(), fp_ops, mix.fma, mix.mul, mix.add, peaks.fp_mix, memory_ops,
          mix.load, mix.broadcast, mix.store, peaks.memory_mix, mix.shuffle, peaks.shuffle, peaks.multiply,
          peaks.add, peaks.load, peaks.broadcast, peaks.store);
      peak_lines.push_back(line);
      for (int st = 0; st < kStages; ++st) {
        const double reloads_share = static_cast<double>(reloads) / parents.size();
        const Mix m = stage_mix(static_cast<Stage>(st), reloads_share, avx2);
        const Bound b = bound_of(m, peaks);
        const double ns = ns_per_joint(*asset, 0, st);
        std::snprintf(line, sizeof line, "| %s | %s | %s | %.2f | %.2f (%s) | %.2f |", ossa::to_string(level),
                      name.c_str(), kStageNames[st], ns, b.ns, b.by, ns / b.ns);
        stage_lines.push_back(line);
      }
    }
  }
  std::printf(
      "\nPer joint, and this machine's ns per operation in each mix (L1-resident, independent chains):\n\n"
      "| kernels | model | FP operations | memory operations | shuffles | alone: ns per operation |\n"
      "|---|---|---|---|---|---|\n");
  for (const std::string& line : peak_lines) std::printf("%s\n", line.c_str());
  std::printf(
      "\nEach stage alone (its own operations against the same ns per operation):\n\n"
      "| kernels | model | stage | measured ns a joint | bound ns a joint (by) | measured / bound |\n"
      "|---|---|---|---:|---:|---:|\n");
  for (const std::string& line : stage_lines) std::printf("%s\n", line.c_str());
  return 0;
}
