// Google Benchmark targets for the runtime stages, the whole character update, skinning, and the naive
// tutorial-style update they replace. Model: $OSSA_BENCH_MODEL (clip $OSSA_BENCH_CLIP, an index), else the
// bundled sample. `ossa bench` measures the same things with its own harness and a JSON contract.
#include <benchmark/benchmark.h>
#include <atomic>
#include <chrono>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>

#include "baseline/naive_animator.h"
#include "ossa/asset/character.h"
#include "ossa/import/import.h"
#include "ossa/offline/retarget.h"
#include "ossa/runtime/anim_graph.h"
#include "ossa/runtime/blend_space.h"
#include "ossa/runtime/crowd.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/skinning_job.h"
#include "ossa/runtime/thread_pool.h"

namespace ossa::build {
const char* sample_dir();  // assets/sample of the source tree (generated: ossa_generated_paths)
}  // namespace ossa::build

namespace {
std::string sample_file(const char* name) {
  return std::string(ossa::build::sample_dir()) + "/" + name;
}

struct Fixture {
  ossa::ImportedScene scene;
  std::unique_ptr<ossa::CharacterAsset> fixed, keyed;
  int clip = 0;
};

const Fixture* fixture() {
  static std::unique_ptr<Fixture> f = [] {
    const char* env = std::getenv("OSSA_BENCH_MODEL");
    const char* clip = std::getenv("OSSA_BENCH_CLIP");
    auto scene = ossa::import_file(env ? env : sample_file("ossa_sample.fbx"));
    if (!scene || scene->clips.empty()) return std::unique_ptr<Fixture>();
    auto out = std::make_unique<Fixture>();
    out->scene = std::move(scene).value();
    out->clip = clip ? std::atoi(clip) : 0;
    if (out->clip < 0 || out->clip >= static_cast<int>(out->scene.clips.size())) out->clip = 0;
    auto fixed = ossa::CharacterAsset::build(out->scene, {ossa::Clip::Layout::kFixedRate, 0});
    auto keyed = ossa::CharacterAsset::build(out->scene, {ossa::Clip::Layout::kKeyed, 0});
    if (!fixed || !keyed) return std::unique_ptr<Fixture>();
    out->fixed = std::make_unique<ossa::CharacterAsset>(std::move(fixed).value());
    out->keyed = std::make_unique<ossa::CharacterAsset>(std::move(keyed).value());
    return out;
  }();
  return f.get();
}

// 16 characters with random phases, advanced at 60 Hz: one iteration = one character's frame.
struct Crowd {
  explicit Crowd(const ossa::CharacterAsset& asset, int clip) {
    std::mt19937 rng(1);
    const ossa::Clip& c = asset.clips[clip];
    std::uniform_real_distribution<float> phase(0, c.duration());
    characters.resize(16);
    for (auto& ch : characters) ch.init(asset.skeleton, &c, phase(rng));
  }
  ossa::CharacterInstance& next() { return characters[i++ & 15]; }
  std::vector<ossa::CharacterInstance> characters;
  unsigned i = 0;
};

void BM_Update(benchmark::State& state, bool keyed) {
  const Fixture* f = fixture();
  if (!f) return state.SkipWithError("no model (set OSSA_BENCH_MODEL)");
  const ossa::CharacterAsset& asset = keyed ? *f->keyed : *f->fixed;
  Crowd crowd(asset, f->clip);
  for (auto _ : state) {
    ossa::CharacterInstance& c = crowd.next();
    ossa::update_character(asset.skeleton, c, 1.f / 60);
    benchmark::DoNotOptimize(c.skeleton_palette.data());
  }
  state.counters["joints"] = asset.skeleton.joint_count();
}
BENCHMARK_CAPTURE(BM_Update, fixed_rate, false);
BENCHMARK_CAPTURE(BM_Update, keyed, true);

void BM_Sample(benchmark::State& state) {
  const Fixture* f = fixture();
  if (!f) return state.SkipWithError("no model");
  Crowd crowd(*f->fixed, f->clip);
  const ossa::Clip& clip = f->fixed->clips[f->clip];
  for (auto _ : state) {
    ossa::CharacterInstance& c = crowd.next();
    c.time = c.time + 1.f / 60 > clip.duration() ? 0 : c.time + 1.f / 60;
    ossa::SampleJob{&clip, c.time, &c.cache, c.locals}.run();
    benchmark::DoNotOptimize(c.locals.data());
  }
}
BENCHMARK(BM_Sample);

// A blend space's update (weights, phase sync, events, sampling, blending: locals only) on the sample's
// fixed-rate clips. "one_clip": a space of Walk alone (the cost of a single clip through the same path);
// "three_clips_between": Idle:0, Walk:1.5, Turn:4 at 1.0 (two clips weigh, three advance in phase);
// "three_clips_at_sample": the same space at 1.5 (Walk alone weighs, three advance).
void BM_BlendSpaceUpdate(benchmark::State& state, int clip_count, float parameter) {
  const Fixture* f = fixture();
  if (!f) return state.SkipWithError("no model");
  const ossa::CharacterAsset& asset = *f->fixed;
  std::vector<int> clips = {asset.find_clip("Walk"), asset.find_clip("Idle"), asset.find_clip("Turn")};
  std::vector<float> positions = {1.5f, 0.f, 4.f};
  clips.resize(clip_count), positions.resize(clip_count);
  for (int c : clips)
    if (c < 0) return state.SkipWithError("the model has no Walk, Idle and Turn clips");
  auto space = ossa::BlendSpace::build_1d(positions);
  if (!space) return state.SkipWithError(space.error().c_str());
  auto player = ossa::BlendSpacePlayer::create(asset, *space, clips);
  if (!player) return state.SkipWithError(player.error().c_str());
  player->set_parameter(parameter);
  for (auto _ : state) {
    player->update(1.f / 60);
    benchmark::DoNotOptimize(player->locals().data());
  }
  state.counters["joints"] = asset.skeleton.joint_count();
}
BENCHMARK_CAPTURE(BM_BlendSpaceUpdate, one_clip, 1, 1.5f);
BENCHMARK_CAPTURE(BM_BlendSpaceUpdate, three_clips_between, 3, 1.0f);
BENCHMARK_CAPTURE(BM_BlendSpaceUpdate, three_clips_at_sample, 3, 1.5f);

void BM_LocalToModel(benchmark::State& state) {
  const Fixture* f = fixture();
  if (!f) return state.SkipWithError("no model");
  Crowd crowd(*f->fixed, f->clip);
  for (auto _ : state) {
    ossa::CharacterInstance& c = crowd.next();
    ossa::LocalToModelJob{&f->fixed->skeleton, c.locals, c.model}.run();
    benchmark::DoNotOptimize(c.model.data());
  }
}
BENCHMARK(BM_LocalToModel);

// RetargetJob onto the same skeleton with its rest pose changed (the left arm lowered 40 degrees, so no joint
// below it takes the copy path): the issue's budget is 2x BM_LocalToModel on the same joints.
// The sample onto itself with two rest rotations changed (most joints then go through the rest-aware path);
// state.range(0) = 1: both feet held by the contact pass at full weight (its worst case); 2: the same rig
// with both weights 0 (the legs' model positions tracked, no bending: what the contact pass costs before its
// IK).
void BM_Retarget(benchmark::State& state) {
  const bool contacts = state.range(0) != 0;
  const Fixture* f = fixture();
  if (!f) return state.SkipWithError("no model");
  ossa::RawSkeleton raw = f->scene.skeleton;
  for (ossa::RawJoint& j : raw.joints)
    if (j.name == "upperarm_l" || j.name == "spine_01")
      j.rest.rotation = ossa::normalize(j.rest.rotation * ossa::quat_from_axis_angle({0, 0, 1}, 0.7f));
  auto target = ossa::Skeleton::build(raw);
  if (!target) return state.SkipWithError("no target skeleton");
  const ossa::Skeleton& source = f->fixed->skeleton;
  auto map = ossa::build_bone_map(source, *target);
  auto rig = ossa::RetargetRig::build(
      source, *target, *map, contacts ? ossa::RetargetContacts::kFeet : ossa::RetargetContacts::kNone);
  if (!rig) return state.SkipWithError("no rig");
  ossa::RetargetScratch scratch(*rig);
  std::vector<ossa::JointPose> out(target->joint_count());
  const std::vector<float> weights(rig->contacts.size(), state.range(0) == 2 ? 0.f : 1.f);
  Crowd crowd(*f->fixed, f->clip);
  for (auto _ : state) {
    ossa::CharacterInstance& c = crowd.next();
    ossa::RetargetJob{
        .rig = &*rig, .source = c.locals, .scratch = &scratch, .output = out, .contact_weights = weights}
        .run();
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_Retarget)->Arg(0)->Arg(1)->Arg(2);

void BM_Palette(benchmark::State& state) {
  const Fixture* f = fixture();
  if (!f) return state.SkipWithError("no model");
  Crowd crowd(*f->fixed, f->clip);
  for (auto _ : state) {
    ossa::CharacterInstance& c = crowd.next();
    ossa::PaletteJob{c.model, f->fixed->skeleton.inverse_binds(), {}, c.skeleton_palette, {}}.run();
    benchmark::DoNotOptimize(c.skeleton_palette.data());
  }
}
BENCHMARK(BM_Palette);

void BM_NaiveUpdate(benchmark::State& state) {
  const Fixture* f = fixture();
  if (!f) return state.SkipWithError("no model");
  ossa::baseline::NaiveAnimator naive(f->scene, f->clip);
  float t = 0, duration = f->scene.clips[f->clip].duration;
  for (auto _ : state) {
    t = t + 1.f / 60 > duration ? 0 : t + 1.f / 60;
    naive.update(t);
    benchmark::DoNotOptimize(naive.final_matrices().data());
  }
}
BENCHMARK(BM_NaiveUpdate);

// Positions + normals of the largest mesh, 1 to 4 influences as the mesh has them.
void BM_SkinPositionsNormals(benchmark::State& state) {
  const Fixture* f = fixture();
  if (!f || f->fixed->meshes.empty()) return state.SkipWithError("no mesh");
  const ossa::CharacterAsset& asset = *f->fixed;
  const ossa::SkinnedMesh* mesh = &asset.meshes[0];
  for (const auto& m : asset.meshes)
    if (m.vertex_count() > mesh->vertex_count()) mesh = &m;
  ossa::CharacterInstance c;
  c.init(asset.skeleton, &asset.clips[f->clip], 0.3f);
  ossa::update_character(asset.skeleton, c, 0);
  std::vector<ossa::Mat4> palette(mesh->inverse_binds().size());
  ossa::PaletteJob{c.model, mesh->inverse_binds(), mesh->joint_remap(), palette, {}}.run();
  std::vector<float> out_p(mesh->positions().size()), out_n(mesh->positions().size());
  std::vector<float> normals(mesh->normals().begin(), mesh->normals().end());
  if (normals.empty()) normals.assign(mesh->positions().size(), 0.5f);
  ossa::SkinningJob job = ossa::SkinningJob::for_mesh(*mesh, palette);
  job.in_normals = normals;
  job.out_positions = out_p;
  job.out_normals = out_n;
  for (auto _ : state) {
    job.run();
    benchmark::DoNotOptimize(out_p.data());
  }
  state.counters["ns/vertex"] = benchmark::Counter(static_cast<double>(state.iterations()) * job.vertex_count,
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["influences"] = job.influences;
}
BENCHMARK(BM_SkinPositionsNormals);

void BM_Crowd1000(benchmark::State& state) {
  const Fixture* f = fixture();
  if (!f) return state.SkipWithError("no model");
  const ossa::CharacterAsset& asset = *f->fixed;
  std::vector<ossa::CharacterInstance> characters(1000);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> phase(0, asset.clips[f->clip].duration());
  for (auto& c : characters) c.init(asset.skeleton, &asset.clips[f->clip], phase(rng));
  ossa::ThreadPool pool(static_cast<int>(state.range(0)));
  for (auto _ : state) ossa::update_crowd(pool, asset.skeleton, characters, 1.f / 60);
  state.counters["updates/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * characters.size(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Crowd1000)->Arg(1)->Arg(2)->Arg(8)->UseRealTime();

// Animation state machines, side by side with the Animator doing the same work: a two-layer graph of 11
// states (a 1D blend space of Idle and Walk at half and half, eight clip states whose transitions wait on
// parameters never set, Wave on an upper layer masked at spine_02) against an Animator playing Walk with an
// Idle layer at 0.5 and a masked Wave layer: three clips sampled and blended either way.
const char* const kBenchGraph = R"({
  "parameters": {"speed": {"type": "float", "default": 0.75}, "go": {"type": "trigger"},
                 "wave": {"type": "bool", "default": true}},
  "layers": [
    {"name": "base", "entry": "Locomotion",
     "states": [{"name": "Locomotion", "blend1d": {"parameter": "speed", "points": [["Idle", 0], ["Walk", 1.5]]}},
                {"name": "A", "clip": "Turn"}, {"name": "B", "clip": "Wave"}, {"name": "C", "clip": "Idle"},
                {"name": "D", "clip": "Walk"}, {"name": "E", "clip": "Turn", "loop": false},
                {"name": "F", "clip": "Wave", "loop": false}, {"name": "G", "clip": "Idle", "speed": 2},
                {"name": "H", "clip": "Walk", "speed": 0.5}],
     "transitions": [{"from": "Locomotion", "to": "A", "when": ["go"], "duration": 0.2},
                     {"from": "*", "to": "B", "when": [["speed", ">", 9]], "duration": 0.1},
                     {"from": "A", "to": "C", "exit_time": 0.9, "duration": 0.2},
                     {"from": "C", "to": "D", "when": ["go"]}, {"from": "D", "to": "E", "when": ["go"]},
                     {"from": "E", "to": "F", "when": ["go"]}, {"from": "F", "to": "G", "when": ["go"]},
                     {"from": "G", "to": "H", "when": ["go"]}, {"from": "H", "to": "Locomotion", "when": ["go"]}]},
    {"name": "upper", "mask": {"root": "spine_02"}, "entry": "Waving",
     "states": [{"name": "Off", "empty": true}, {"name": "Waving", "clip": "Wave"}],
     "transitions": [{"from": "Waving", "to": "Off", "when": ["!wave"], "duration": 0.3},
                     {"from": "Off", "to": "Waving", "when": ["wave"], "duration": 0.2}]}]})";

void BM_AnimGraph(benchmark::State& state) {
  const Fixture* f = fixture();
  if (!f || f->fixed->find_clip("Wave") < 0) return state.SkipWithError("needs the bundled sample");
  auto graph = ossa::AnimGraph::parse(kBenchGraph, *f->fixed);
  if (!graph) return state.SkipWithError(graph.error().c_str());
  std::vector<ossa::AnimGraphInstance> crowd;
  for (int i = 0; i < 16; ++i) {
    crowd.emplace_back(*graph, *f->fixed);
    crowd.back().update(0.037f * static_cast<float>(i));  // other phases
  }
  unsigned i = 0;
  for (auto _ : state) {
    ossa::AnimGraphInstance& a = crowd[i++ & 15];
    a.update(1.f / 60);
    benchmark::DoNotOptimize(a.animator().skeleton_palette().data());
  }
}
BENCHMARK(BM_AnimGraph);

void BM_AnimGraphAnimatorAlone(benchmark::State& state) {
  const Fixture* f = fixture();
  if (!f || f->fixed->find_clip("Wave") < 0) return state.SkipWithError("needs the bundled sample");
  const ossa::CharacterAsset& asset = *f->fixed;
  std::vector<float> mask(asset.skeleton.joint_count(), 0.f);
  const int spine = asset.skeleton.find_joint("spine_02");
  for (int j = spine; j < asset.skeleton.subtree_end(spine); ++j) mask[j] = 1;
  std::vector<ossa::Animator> crowd;
  for (int i = 0; i < 16; ++i) {
    crowd.emplace_back(asset);
    if (!crowd.back().play(asset.find_clip("Walk"))) return state.SkipWithError("no Walk");
    crowd.back().add_layer(asset.find_clip("Idle"), 0.5f);
    crowd.back().add_layer(asset.find_clip("Wave"), 1.f, mask);
    crowd.back().update(0.037f * static_cast<float>(i));
  }
  unsigned i = 0;
  for (auto _ : state) {
    ossa::Animator& a = crowd[i++ & 15];
    a.update(1.f / 60);
    benchmark::DoNotOptimize(a.skeleton_palette().data());
  }
}
BENCHMARK(BM_AnimGraphAnimatorAlone);

// 1,000 characters each with its own graph instance, updated on the pool's threads.
void BM_AnimGraph1000(benchmark::State& state) {
  const Fixture* f = fixture();
  if (!f || f->fixed->find_clip("Wave") < 0) return state.SkipWithError("needs the bundled sample");
  auto graph = ossa::AnimGraph::parse(kBenchGraph, *f->fixed);
  if (!graph) return state.SkipWithError(graph.error().c_str());
  std::vector<ossa::AnimGraphInstance> crowd;
  crowd.reserve(1000);
  for (int i = 0; i < 1000; ++i) crowd.emplace_back(*graph, *f->fixed);
  ossa::ThreadPool pool(static_cast<int>(state.range(0)));
  for (auto _ : state)
    pool.parallel_for(1000, 16, [&](int begin, int end) {
      for (int c = begin; c < end; ++c) crowd[c].update(1.f / 60);
    });
  state.counters["updates/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 1000, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_AnimGraph1000)->Arg(1)->Arg(2)->UseRealTime();

// What one parallel_for costs when there is nothing to do (64 indices, chunk 1, empty body).
void BM_EmptyParallelFor(benchmark::State& state) {
  ossa::ThreadPool pool(static_cast<int>(state.range(0)));
  std::atomic<int> sink{0};
  for (auto _ : state)
    pool.parallel_for(64, 1, [&](int, int) { sink.fetch_add(0, std::memory_order_relaxed); });
}
BENCHMARK(BM_EmptyParallelFor)->Arg(1)->Arg(2)->Arg(8)->UseRealTime();

// A whole import, guarded (ImportOptions::isolate: the child parses, converts and sends the scene back) or
// not. Models: the sample FBX and GLB, the 71-joint humanoid, and $OSSA_BENCH_IMPORT_MODEL when set. Wall
// time (the child's work is not this process's CPU time).
void BM_Import(benchmark::State& state, bool guarded) {
  const char* extra = std::getenv("OSSA_BENCH_IMPORT_MODEL");
  const std::string models[] = {sample_file("ossa_sample.fbx"), sample_file("ossa_sample.glb"),
                                sample_file("../bench/ossa_humanoid70.glb"), extra ? extra : ""};
  const std::string& model = models[state.range(0)];
  if (model.empty()) return state.SkipWithError("OSSA_BENCH_IMPORT_MODEL is not set");
  ossa::ImportOptions options;
  options.isolate = guarded;
  for (auto _ : state) {
    auto scene = ossa::import_file(model, options);
    if (!scene) return state.SkipWithError(scene.error().c_str());
    benchmark::DoNotOptimize(scene->meshes.data());
  }
  state.SetLabel(model.substr(model.rfind('/') + 1));
}
// Guarded against unguarded imports of one model in this (warm) process, interleaved so that the machine's
// swings in speed hit both alike: counters give each side's median and their ratio (the figure the import
// guard's 1.2x goal is about). The first guarded import (forking the worker) is not counted.
void BM_ImportGuardRatio(benchmark::State& state) {
  const char* extra = std::getenv("OSSA_BENCH_IMPORT_MODEL");
  const std::string models[] = {sample_file("ossa_sample.fbx"), sample_file("ossa_sample.glb"),
                                sample_file("../bench/ossa_humanoid70.glb"), extra ? extra : ""};
  const std::string& model = models[state.range(0)];
  if (model.empty()) return state.SkipWithError("OSSA_BENCH_IMPORT_MODEL is not set");
  ossa::ImportOptions guarded, unguarded;
  unguarded.isolate = false;
  std::vector<double> g, u;
  auto time_ms = [&](const ossa::ImportOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    auto scene = ossa::import_file(model, options);
    if (!scene) std::abort();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  time_ms(guarded), time_ms(unguarded);
  for (auto _ : state) {
    g.push_back(time_ms(guarded));
    u.push_back(time_ms(unguarded));
    state.SetIterationTime((g.back() + u.back()) / 1e3);
  }
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  state.counters["guarded_ms"] = median(g);
  state.counters["unguarded_ms"] = median(u);
  state.counters["ratio"] = median(g) / median(u);
  state.SetLabel(model.substr(model.rfind('/') + 1));
}
BENCHMARK(BM_ImportGuardRatio)
    ->DenseRange(0, 3)
    ->Iterations(21)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(BM_Import, guarded, true)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Import, unguarded, false)
    ->DenseRange(0, 3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
}  // namespace

// `ossa_bench --first-import FILE guarded|unguarded`: times this process's first import_file() call alone
// (start-up excluded) and prints milliseconds; bench/first-import.sh alternates fresh processes.
int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--first-import") {
    ossa::ImportOptions options;
    options.isolate = std::string(argv[3]) == "guarded";
    const auto t0 = std::chrono::steady_clock::now();
    const auto scene = ossa::import_file(argv[2], options);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!scene) return std::fprintf(stderr, "%s\n", scene.error().c_str()), 1;
    return std::printf("%.3f\n", ms) < 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
