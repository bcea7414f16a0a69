// libFuzzer target: the .ossa loader must reject or accept any bytes without crashing, and whatever it
// accepts must be usable: every clip samples and every mesh skins without reading out of bounds.
#include <cstdint>
#include <span>

#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/skinning_job.h"
#include "ossa/serialize/ossa_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = ossa::decode_ossa(std::span<const uint8_t>(data, size), "fuzz.ossa");
  if (!file || !file->skeleton) return 0;
  const ossa::Skeleton& skeleton = *file->skeleton;
  std::vector<ossa::JointPose> locals(skeleton.joint_count());
  std::vector<ossa::Mat4> model(skeleton.joint_count());
  for (const ossa::Clip& clip : file->clips) {
    ossa::SamplingCache cache;
    for (float f : {0.f, 0.5f, 1.f}) ossa::SampleJob{&clip, clip.duration() * f, &cache, locals}.run();
  }
  ossa::LocalToModelJob{&skeleton, locals, model}.run();
  for (const ossa::SkinnedMesh& mesh : file->meshes) {
    std::vector<ossa::Mat4> palette(mesh.inverse_binds().size());
    ossa::PaletteJob{model, mesh.inverse_binds(), mesh.joint_remap(), palette, {}}.run();
    std::vector<float> out(mesh.positions().size());
    ossa::SkinningJob job = ossa::SkinningJob::for_mesh(mesh, palette);
    job.out_positions = out.data();
    job.run();
  }
  return 0;
}
