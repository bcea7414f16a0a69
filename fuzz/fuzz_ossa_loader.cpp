// libFuzzer target: the .ossa loader must reject or accept any bytes without crashing, and whatever it
// accepts must be usable: every clip samples (at any time), every mesh morphs at every clip's weights and
// skins without reading out of bounds, and root motion samples inside its frames.
//
// Two things let the fuzzer reach the parser behind the section checksums: fuzz builds define
// FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, which skips the checksum check (ossa_file.cpp), and the
// structure-aware mutator below, which rewrites the numbers the runtime computes with (counts, rates,
// durations, offsets) with values chosen to break them, and recomputes the checksum so that what it finds
// reproduces on a production build too.
#include <xxhash.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>

#include "ossa/asset/value_ranges.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/morph_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/skinning_job.h"
#include "ossa/serialize/ossa_file.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

constexpr size_t kHeader = 32, kEntry = 32;

// One 4-byte value that breaks arithmetic: float specials and extremes, integer limits and off-by-ones.
uint32_t hostile_word(std::mt19937& rng, uint32_t current) {
  const float floats[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(), 1e30f, -1e30f, 1e-30f, 0.f, -1.f, 1e7f,
                          10000.f, 10001.f, 3e38f,
                          // Huge but finite, just past a documented range (value_ranges.h), subnormal:
                          // numbers that pass "is finite" and overflow or vanish once used.
                          std::numeric_limits<float>::max(), -3e38f, 1.5e7f, 1e4f + 1, 1e-40f, 2.f};
  // Large declared counts too (frames, segments, keys, targets): what a file may claim without paying for.
  const uint32_t ints[] = {0,           1,           2,           15,          16,         17,
                           255,         256,         65535,       65536,       0x7fffffff, 0x80000000u,
                           0xffffffffu, current + 1, current - 1, current * 2, 1u << 20,   (1u << 24) - 1,
                           1u << 24,    1024,        1025};
  if (rng() % 2) {
    uint32_t bits;
    std::memcpy(&bits, &floats[rng() % std::size(floats)], 4);
    return bits;
  }
  return ints[rng() % std::size(ints)];
}

size_t mutate_structure(uint8_t* data, size_t size, unsigned seed) {
  std::mt19937 rng(seed);
  if (size < kHeader) return 0;
  uint32_t count;
  std::memcpy(&count, data + 16, 4);
  if (count == 0 || count > (size - kHeader) / kEntry) return 0;
  uint8_t* entry = data + kHeader + kEntry * (rng() % count);
  uint64_t offset, length;
  std::memcpy(&offset, entry + 8, 8);
  std::memcpy(&length, entry + 16, 8);
  if (rng() % 8 == 0) {  // the table itself: a section's offset or size
    const uint64_t values[] = {0, offset + 1, offset - 1, length + 1, length - 1, size, uint64_t{1} << 63};
    std::memcpy(entry + 8 + 8 * (rng() % 2), &values[rng() % std::size(values)], 8);
    return size;
  }
  if (offset > size || length > size - offset || length < 4) return 0;
  uint8_t* payload = data + offset;
  // Mostly the first 64 bytes, where counts, layouts, rates and durations live.
  const size_t span = rng() % 4 ? std::min<uint64_t>(length, 64) : length;
  const size_t at = (rng() % (span - 3)) & ~size_t{3};
  uint32_t current;
  std::memcpy(&current, payload + at, 4);
  const uint32_t word = hostile_word(rng, current);
  std::memcpy(payload + at, &word, 4);
  const uint64_t checksum = XXH3_64bits(payload, length);
  std::memcpy(entry + 24, &checksum, 8);
  return size;
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  if (seed % 3 != 0) {
    const size_t mutated = mutate_structure(data, size, seed);
    if (mutated) return mutated;
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ossa::value_ranges;
  auto file = ossa::decode_ossa(std::span<const uint8_t>(data, size), "fuzz.ossa");
  if (!file) return 0;
  for (const auto& track : file->root_motion)
    if (track)
      for (float t : {-1.f, 0.f, 0.5f, track->duration, 1e9f}) (void)track->at(t);
  if (!file->skeleton) return 0;
  const ossa::Skeleton& skeleton = *file->skeleton;
  std::vector<ossa::JointPose> locals(skeleton.joint_count());
  std::vector<ossa::Mat4> model(skeleton.joint_count());
  for (const ossa::Clip& clip : file->clips) {
    if (clip.joint_count() != skeleton.joint_count()) __builtin_trap();  // the loader promises this
    ossa::SamplingCache cache;
    for (float t : {0.f, clip.duration() * 0.5f, clip.duration(), -1.f, 1e9f}) {
      ossa::SampleJob{&clip, t, &cache, locals}.run();
      // The loader promises the documented ranges: whatever a clip holds samples within them.
      for (const ossa::JointPose& p : locals)
        for (int i = 0; i < 3; ++i)
          if (!within(p.translation[i], kMaxCoordinate) || !within(p.scale[i], kMaxScale) ||
              !within(p.rotation[i], 1.01f) || !within(p.rotation[3], 1.01f))
            __builtin_trap();
    }
  }
  ossa::LocalToModelJob{&skeleton, locals, model}.run();
  for (const ossa::SkinnedMesh& mesh : file->meshes) {
    std::vector<ossa::Mat4> palette(mesh.inverse_binds().size());
    ossa::PaletteJob{model, mesh.inverse_binds(), mesh.joint_remap(), palette, {}}.run();
    // Morph targets at every clip's weights (and the defaults), then skinned.
    const auto defaults = mesh.morph_targets().default_weights();
    std::vector<float> weights(defaults.begin(), defaults.end()), morphed(mesh.positions().size());
    for (const ossa::Clip& clip : file->clips)
      for (float t : {0.f, clip.duration() * 0.5f, -1.f, 1e9f}) {
        clip.morph_weights().sample_mesh(static_cast<int>(&mesh - file->meshes.data()), t, weights);
        for (float w : weights)
          if (!within(w, kMaxMorphWeight)) __builtin_trap();
      }
    ossa::MorphJob morph = ossa::MorphJob::for_mesh(mesh, weights);
    morph.out_positions = morphed;
    if (!morph.run()) __builtin_trap();  // the loader promises valid targets
    std::vector<float> out(mesh.positions().size());
    ossa::SkinningJob job = ossa::SkinningJob::for_mesh(mesh, palette);
    job.in_positions = morphed;
    job.out_positions = out;
    job.run();
  }
  return 0;
}
