// The importer on every platform it is built for (the Windows build runs these under Wine; ossa_tests on
// Linux runs the ones that are not Windows-only). Independent truth for Windows: the Linux build's own
// conversion of the same files (the .ossa files Render.WritesGlReferencesForDirect3D11 writes), compared
// through what a game sees, the skinned vertices of every clip, in model units.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "oracle_compare.h"
#include "ossa/core/file_io.h"
#include "ossa/import/import.h"
#include "ossa/import/load_character.h"
#include "ossa/runtime/animator.h"
#include "ossa/runtime/skinning_job.h"
#include "ossa/serialize/load.h"
#include "test_paths.h"

namespace fs = std::filesystem;
using namespace ossa;

namespace {

// A model whose file name is not ASCII: the name is UTF-8 (as every path Ossa takes is), which Windows'
// narrow file functions would read in the ANSI code page and not find.
TEST(ImportPlatforms, NonAsciiFileNamesAreRead) {
  const fs::path dir = fs::path(::testing::TempDir()) / "ossa_import_utf8";
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  const std::string utf8_name =
      "personnage \xC3\xA9t\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC";  // "personnage été 日本"
  for (const char* ext : {".glb", ".fbx"}) {
    const std::string original = test::source_dir() + "/assets/sample/ossa_sample" + ext;
    const fs::path copy = dir / path_from_utf8(utf8_name + ext);
    fs::copy_file(path_from_utf8(original), copy, fs::copy_options::overwrite_existing);
    ImportOptions options;
    options.isolate = false;  // the path handling under test is this process's (the guard has its own test)
    auto scene = import_file(utf8_from_path(copy), options);
    ASSERT_TRUE(scene) << scene.error();
    auto same = import_file(original, options);
    ASSERT_TRUE(same) << same.error();
    EXPECT_EQ(scene->skeleton.joints.size(), same->skeleton.joints.size());
    EXPECT_EQ(scene->source_path, utf8_from_path(copy));
    auto loaded = load_character(utf8_from_path(copy));
    ASSERT_TRUE(loaded) << loaded.error();
    EXPECT_FALSE((*loaded)->asset.clips.empty());
  }
  fs::remove_all(dir, ec);
}

#if defined(_WIN32)
// Every vertex of every mesh, skinned at `time` of `clip` (CPU skinning), mesh after mesh.
std::vector<float> skinned_vertices(const CharacterAsset& asset, int clip, float time) {
  Animator animator(asset);
  EXPECT_TRUE(animator.play(clip));
  animator.update(time);
  std::vector<float> all;
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const SkinnedMesh& mesh = asset.meshes[m];
    std::vector<float> out(static_cast<size_t>(mesh.vertex_count()) * 3);
    SkinningJob job = SkinningJob::for_mesh(mesh, animator.mesh_palette(static_cast<int>(m)));
    job.in_normals = {};  // positions only: normals follow the same matrices
    job.in_tangents = {};
    job.out_positions = out;
    EXPECT_TRUE(job.run());
    all.insert(all.end(), out.begin(), out.end());
  }
  return all;
}

float bind_size(const CharacterAsset& asset) {
  float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
  for (const SkinnedMesh& mesh : asset.meshes)
    for (size_t i = 0; i < mesh.positions().size(); ++i) {
      lo[i % 3] = std::min(lo[i % 3], mesh.positions()[i]);
      hi[i % 3] = std::max(hi[i % 3], mesh.positions()[i]);
    }
  return std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-6f});
}

// The Windows build's importer (assimp cross-built from Debian's source, MinGW's libm) against the Linux
// build's, on the bundled sample (FBX, glTF), the humanoid and ../shared's animated characters: the same
// joints, meshes and clips, and every clip's skinned vertices at 0, 1/3 and 2/3 of its duration within
// 1e-5 of the model's size (what differs is the last bits of libm's results).
TEST(ImportPlatforms, WindowsImportsWhatLinuxImports) {
  const std::string dir = build::gl_reference_dir();
  REQUIRE_GL_REFERENCES(dir);
  std::vector<std::string> models = test::animated_models();
  std::ifstream manifest(dir + "/manifest.txt");
  int compared = 0;
  for (std::string name; std::getline(manifest, name);) {
    if (name.empty()) continue;
    auto model = std::find_if(models.begin(), models.end(), [&](const std::string& path) {
      std::string mangled = fs::path(path).filename().string();
      std::replace(mangled.begin(), mangled.end(), '.', '_');
      return mangled == name;
    });
    ASSERT_NE(model, models.end()) << name << ": no such model here";
    auto linux_side = load_ossa_character(dir + "/" + name + ".ossa");
    ASSERT_TRUE(linux_side) << linux_side.error();
    auto windows_side = load_character(*model);
    ASSERT_TRUE(windows_side) << windows_side.error();
    const CharacterAsset& l = (*linux_side)->asset;
    const CharacterAsset& w = (*windows_side)->asset;
    ASSERT_EQ(w.skeleton.joint_count(), l.skeleton.joint_count()) << name;
    EXPECT_TRUE(std::ranges::equal(w.skeleton.parents(), l.skeleton.parents())) << name;
    for (int j = 0; j < w.skeleton.joint_count(); ++j)
      EXPECT_EQ(w.skeleton.name(j), l.skeleton.name(j)) << name;
    ASSERT_EQ(w.meshes.size(), l.meshes.size()) << name;
    for (size_t m = 0; m < w.meshes.size(); ++m) {
      ASSERT_EQ(w.meshes[m].vertex_count(), l.meshes[m].vertex_count()) << name << " mesh " << m;
      EXPECT_TRUE(std::ranges::equal(w.meshes[m].indices(), l.meshes[m].indices())) << name << " mesh " << m;
      EXPECT_TRUE(std::ranges::equal(w.meshes[m].joint_indices(), l.meshes[m].joint_indices()))
          << name << " mesh " << m;
    }
    ASSERT_EQ(w.clips.size(), l.clips.size()) << name;
    const float size = bind_size(l);
    double worst = 0;
    for (size_t c = 0; c < w.clips.size(); ++c) {
      EXPECT_EQ(w.clips[c].name(), l.clips[c].name());
      EXPECT_NEAR(w.clips[c].duration(), l.clips[c].duration(), 1e-6);
      for (float fraction : {0.f, 1.f / 3, 2.f / 3}) {
        const float t = fraction * l.clips[c].duration();
        const std::vector<float> a = skinned_vertices(w, static_cast<int>(c), t);
        const std::vector<float> b = skinned_vertices(l, static_cast<int>(c), t);
        ASSERT_EQ(a.size(), b.size());
        for (size_t i = 0; i < a.size(); i += 3) {
          const double d = std::hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]);
          worst = std::max(worst, d / size);
        }
      }
    }
    EXPECT_LE(worst, 1e-5) << name;
    std::printf("  %-48s %zu clips, largest vertex difference %.2g of the model's size\n", name.c_str(),
                w.clips.size(), worst);
    ++compared;
  }
  EXPECT_GE(compared, 4);
}
#endif

}  // namespace
