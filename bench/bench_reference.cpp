// Benchmarks of the reference evaluator (the baseline the runtime jobs are measured against).
// Model: $OSSA_BENCH_MODEL, else the bundled sample.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>

#include "ossa/import/import.h"
#include "ossa/reference/reference_eval.h"

namespace {
const ossa::ImportedScene* model() {
  static std::unique_ptr<ossa::ImportedScene> scene = [] {
    const char* env = std::getenv("OSSA_BENCH_MODEL");
    std::string path = env ? env : OSSA_SAMPLE_DIR "/ossa_sample.fbx";
    auto result = ossa::import_file(path);
    if (!result) return std::unique_ptr<ossa::ImportedScene>();
    return std::make_unique<ossa::ImportedScene>(std::move(result).value());
  }();
  return scene.get();
}

void BM_ReferenceSampleAndModel(benchmark::State& state) {
  const ossa::ImportedScene* scene = model();
  if (!scene || scene->clips.empty()) {
    state.SkipWithError("no model with clips (set OSSA_BENCH_MODEL)");
    return;
  }
  const ossa::RawClip& clip = scene->clips[0];
  float t = 0;
  for (auto _ : state) {
    auto local = ossa::reference::sample_clip(scene->skeleton, clip, t);
    auto model_space = ossa::reference::local_to_model(scene->skeleton, local);
    benchmark::DoNotOptimize(model_space.data());
    t += 1.f / 60.f;
    if (t > clip.duration) t = 0;
  }
  state.counters["joints"] = static_cast<double>(scene->skeleton.joints.size());
}
BENCHMARK(BM_ReferenceSampleAndModel);

void BM_ReferenceSkin(benchmark::State& state) {
  const ossa::ImportedScene* scene = model();
  if (!scene || scene->meshes.empty()) {
    state.SkipWithError("no model with meshes");
    return;
  }
  auto model_space =
      ossa::reference::local_to_model(scene->skeleton, ossa::reference::rest_pose(scene->skeleton));
  size_t vertices = 0;
  for (auto _ : state) {
    for (const ossa::RawMesh& mesh : scene->meshes) {
      auto skinned = ossa::reference::skin_mesh(mesh, model_space);
      benchmark::DoNotOptimize(skinned.positions.data());
      vertices += mesh.positions.size();
    }
  }
  state.counters["vertices/s"] =
      benchmark::Counter(static_cast<double>(vertices), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ReferenceSkin);
}  // namespace

BENCHMARK_MAIN();
