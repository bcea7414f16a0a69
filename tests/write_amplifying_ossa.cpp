// Writes the amplifying inputs of SECURITY.md's cost model into a folder, for
// scripts/hostile-amplification.sh to time and measure against any build of the CLI (each cost a file next to
// nothing and a loader far more):
//   segments.ossa   8 compressed clips without animated channels, each declaring 2^23 + 1 one-frame segments
//   weights.ossa    quantized morph weights: 250,000 keys x 1,024 zero-bit targets (about 1 MB)
//   notifies.ossa   a 1 ms clip with 100,000 notifies (play it with long steps)
//   ossa_write_amplifying_ossa FOLDER
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "ossa/core/file_io.h"
#include "ossa/serialize/ossa_file.h"
#include "ossa_sections.h"
#include "synthetic_character.h"

namespace {
using namespace ossa;

bool write(const std::string& path, const std::vector<uint8_t>& bytes) {
  auto written = write_file_atomically(path, bytes);
  if (!written) std::fprintf(stderr, "%s\n", written.error().c_str());
  return static_cast<bool>(written);
}

// Each clip declares one frame per segment (the library stores such a clip as one segment; the bytes are
// patched after encoding).
bool write_segments(const std::string& path) {
  OssaFile file;
  file.skeleton = test::two_joint_skeleton();
  const int frames = (1 << 23) + 1;  // 2048 s at 4096 fps
  for (int c = 0; c < 8; ++c) {
    Clip::QuantizedParts parts;
    parts.frame_count = frames;
    auto clip = Clip::from_quantized(std::string("e").append(std::to_string(c)), 2048, 4096,
                                     file.skeleton->rest_pose(), parts);
    if (!clip) return std::fprintf(stderr, "%s\n", clip.error().c_str()), false;
    file.clips.push_back(std::move(clip).value());
  }
  file.root_motion.resize(file.clips.size());
  std::vector<uint8_t> bytes = encode_ossa(file);
  // Each clip's segment length: after its name (length 8 + "eN" 2), layout, duration, joints, rate, frames.
  for (int c = 0; c < 8; ++c)
    if (!test::patch_section(bytes, 3, 8 + 2 + 4 * 5, uint32_t{1}, c)) return false;
  return write(path, bytes);
}

bool write_weights(const std::string& path) {
  OssaFile file;
  file.skeleton = test::two_joint_skeleton();
  const uint32_t keys = 250000;
  const int targets = 1024;
  std::vector<float> times(keys);
  for (uint32_t k = 0; k < keys; ++k) times[k] = static_cast<float>(k) / 1000;
  const MorphWeightTracks::QuantizedTrack track{0, targets, keys};
  auto weights = MorphWeightTracks::from_quantized({&track, 1}, std::move(times),
                                                   std::vector<MorphWeightTracks::WeightChannel>(targets), {},
                                                   "weights.ossa");
  if (!weights) return std::fprintf(stderr, "%s\n", weights.error().c_str()), false;
  RawClip raw;
  raw.name = "w";
  raw.duration = 1;
  auto clip = Clip::build_fixed_rate(raw, *file.skeleton, 30);
  if (!clip) return false;
  file.clips.push_back(Clip::with_morph_weights(std::move(clip).value(), std::move(weights).value()));
  file.root_motion.resize(1);
  return write(path, encode_ossa(file));
}

bool write_notifies(const std::string& path) {
  OssaFile file;
  file.skeleton = test::two_joint_skeleton();
  RawClip raw;
  raw.name = "short";
  raw.duration = 0.001f;
  auto clip = Clip::build_fixed_rate(raw, *file.skeleton, 1000);
  if (!clip) return false;
  file.clips.push_back(std::move(clip).value());
  file.root_motion.resize(1);
  std::string json = R"({"clips": {"short": [)";
  for (int i = 0; i < 100000; ++i) {
    json += i ? "," : "";
    json += R"({"name": "n", "time": )";
    json += std::to_string(0.001 * i / 100000);
    json += "}";
  }
  file.notifies_json = json + "]}}";
  return write(path, encode_ossa(file));
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ossa_write_amplifying_ossa FOLDER\n");
    return 2;
  }
  const std::string folder = argv[1];
  std::filesystem::create_directories(folder);
  if (!write_segments(folder + "/segments.ossa") || !write_weights(folder + "/weights.ossa") ||
      !write_notifies(folder + "/notifies.ossa"))
    return 1;
  for (const char* name : {"segments.ossa", "weights.ossa", "notifies.ossa"})
    std::printf("%s/%s: %ju bytes\n", folder.c_str(), name,
                static_cast<uintmax_t>(std::filesystem::file_size(folder + "/" + name)));
  return 0;
}
