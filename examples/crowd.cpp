// A crowd on threads: one shared character, an Animator per instance, updated in parallel by a ThreadPool.
// Assets are read-only and each Animator owns its buffers, so threads share nothing they write.
//
//   crowd MODEL [COUNT]   (.fbx .glb .gltf .dae or .ossa)
#include <ossa/ossa.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: crowd MODEL [COUNT]\n"), 2;
  const int count = argc > 2 ? std::atoi(argv[2]) : 500;
  ossa::ModelLoadOptions options;
  options.import.isolate = false;  // our own files
  auto loaded = ossa::load_character(argv[1], options);
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
  const ossa::LoadedCharacter& character = **loaded;
  const int clips = static_cast<int>(character.asset.clips.size());
  if (clips == 0) return std::fprintf(stderr, "%s has no clips\n", argv[1]), 1;

  // [snippet crowd_threads]
  // Set-up allocates (animators size their buffers once); the frame loop below does not.
  std::vector<ossa::Animator> crowd;
  crowd.reserve(count);
  for (int i = 0; i < count; ++i) {
    crowd.push_back(character.animator());
    const int clip = i % clips;
    if (!crowd.back().play(clip, ossa::LoopMode::kRepeat, 0, 0.37f * i))  // staggered starts
      return std::fprintf(stderr, "no clip %d\n", clip), 1;
    crowd.back().set_speed(0.8f + 0.4f * static_cast<float>(i % 5) / 4);
  }

  ossa::ThreadPool pool;  // one thread per core; the calling thread works too
  const int frames = 60;
  auto start = std::chrono::steady_clock::now();
  for (int frame = 0; frame < frames; ++frame) {
    pool.parallel_for(count, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) crowd[i].update(1 / 60.f);
    });
    // Here: crowd[i].mesh_palette(m) to your renderer, or events() for sounds, from one thread.
  }
  // [/snippet]
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  int playing = 0;
  for (const ossa::Animator& a : crowd) playing += a.playing();
  std::printf("%d characters x %d frames on %d threads: %.2f ms per frame, %d playing\n", count, frames,
              pool.thread_count(), ms / frames, playing);
  return playing == count ? 0 : 1;
}
