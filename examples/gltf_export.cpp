// Exports a character as glTF 2.0 (what `ossa convert IN -o OUT.glb` does): a model file keeps its clips'
// exact keys, a .ossa is written as it plays.
//
//   gltf_export MODEL OUT.glb|OUT.gltf
#include <ossa/ossa.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 3) return std::fprintf(stderr, "usage: gltf_export MODEL OUT.glb|OUT.gltf\n"), 2;
  ossa::ModelLoadOptions options;
  options.build.layout = ossa::Clip::Layout::kKeyed;  // the source's own keys, not resampled frames
  // [snippet export]
  auto hero = ossa::load_character(argv[1], options);  // a model file or a .ossa
  if (!hero) return std::fprintf(stderr, "%s\n", hero.error().c_str()), 1;
  auto written = ossa::write_gltf(**hero, argv[2]);  // .glb: one file; .gltf: JSON, .bin, images
  if (!written) return std::fprintf(stderr, "%s\n", written.error().c_str()), 1;
  for (const std::string& line : written->dropped) std::fprintf(stderr, "dropped: %s\n", line.c_str());
  // [/snippet]
  std::printf("%s: %zu clips, %zu meshes -> %s\n", argv[1], (*hero)->asset.clips.size(),
              (*hero)->asset.meshes.size(), argv[2]);
  return 0;
}
