// write_file_atomically() and UTF-8 paths on every platform the runtime builds for: an existing file is
// replaced whole (on Windows too, where a plain rename refuses to replace), failures leave the old file and
// no temporary, and paths outside ASCII work for writing and loading (Windows opens them through UTF-16).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ossa/core/file_io.h"
#include "ossa/serialize/load.h"
#include "ossa/serialize/ossa_file.h"
#include "synthetic_character.h"

namespace ossa {
namespace {

namespace fs = std::filesystem;

// A fresh folder for one test, named in UTF-8 (`name` may hold non-ASCII characters).
std::string fresh_dir(const std::string& name) {
  const std::string dir =
      utf8_from_path(fs::path(::testing::TempDir()) / path_from_utf8("ossa-file-io-" + name));
  std::error_code ec;
  fs::remove_all(path_from_utf8(dir), ec);
  fs::create_directories(path_from_utf8(dir));
  return dir;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path_from_utf8(path), std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(path_from_utf8(dir)))
    names.push_back(utf8_from_path(e.path().filename()));
  return names;
}

std::span<const uint8_t> bytes_of(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

TEST(FileIo, WritingReplacesAnExistingFileWhole) {
  const std::string dir = fresh_dir("replace");
  const std::string path = dir + "/out.bin";
  ASSERT_TRUE(write_file_atomically(path, bytes_of("the old contents, longer than the new")));
  ASSERT_TRUE(write_file_atomically(path, bytes_of("new")));
  EXPECT_EQ(read_all(path), "new");
  ASSERT_TRUE(write_file_atomically(path, bytes_of("")));
  EXPECT_EQ(read_all(path), "");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.bin"}) << "a temporary was left behind";
  fs::remove_all(path_from_utf8(dir));
}

TEST(FileIo, FailuresLeaveTheOldFileAndNoTemporary) {
  const std::string dir = fresh_dir("fail");
  auto missing = write_file_atomically(dir + "/no-such-folder/out.bin", bytes_of("x"));
  EXPECT_FALSE(missing);
  EXPECT_NE(missing.error().find("cannot create"), std::string::npos) << missing.error();
  fs::create_directories(path_from_utf8(dir + "/sub"));
  auto folder = write_file_atomically(dir + "/sub", bytes_of("x"));
  ASSERT_FALSE(folder);
  EXPECT_NE(folder.error().find("is a folder"), std::string::npos) << folder.error();
  EXPECT_TRUE(fs::is_directory(path_from_utf8(dir + "/sub")));
  EXPECT_FALSE(write_file_atomically("", bytes_of("x")));
  EXPECT_EQ(entries(dir), std::vector<std::string>{"sub"}) << "a temporary was left behind";
  fs::remove_all(path_from_utf8(dir));
}

// "café-日本" (UTF-8): outside ASCII and outside the usual Windows ANSI code pages.
TEST(FileIo, NonAsciiPathsWriteAndLoad) {
  const std::string dir = fresh_dir("caf\xC3\xA9-\xE6\x97\xA5\xE6\x9C\xAC");
  const std::string model = dir + "/h\xC3\xA9ros.ossa";
  OssaFile file;
  CharacterAsset asset = test::synthetic_character();
  file.skeleton = asset.skeleton;
  file.clips = asset.clips;
  file.meshes = asset.meshes;
  ASSERT_TRUE(write_ossa(file, model));
  ASSERT_TRUE(write_ossa(file, model));  // and over the existing file
  EXPECT_TRUE(fs::is_regular_file(path_from_utf8(model)));
  EXPECT_EQ(utf8_from_path(path_from_utf8(model)), model);

  const std::string sidecar = dir + "/h\xC3\xA9ros.notifies.json";
  const std::string json = R"({"clips": {"Walk": [{"name": "Step", "ratio": 0.5}]}})";
  ASSERT_TRUE(write_file_atomically(sidecar, bytes_of(json)));
  EXPECT_EQ(find_notify_sidecar(model), sidecar);
  auto hero = load_ossa_character(model);
  ASSERT_TRUE(hero) << hero.error();
  EXPECT_EQ(hero->asset.clips.size(), asset.clips.size());
  EXPECT_TRUE(hero->has_notifies());
  ASSERT_EQ(hero->source_files.size(), 2u);
  EXPECT_NE(hero->source_files[0].find("h\xC3\xA9ros.ossa"), std::string::npos) << hero->source_files[0];
  EXPECT_NE(hero->source_files[1].find("h\xC3\xA9ros.notifies.json"), std::string::npos);
  fs::remove_all(path_from_utf8(dir));
}

}  // namespace
}  // namespace ossa

// The import's folder policy compares whole path elements: a sibling whose name starts like the folder is
// outside it, and so is the folder's parent.
TEST(FileIo, PathIsInsideComparesWholeElements) {
  const std::filesystem::path folder = "/models/hero";
  EXPECT_TRUE(ossa::path_is_inside("/models/hero/hero.bin", folder));
  EXPECT_TRUE(ossa::path_is_inside("/models/hero/textures/skin.png", folder));
  EXPECT_TRUE(ossa::path_is_inside("/models/hero", folder));
  EXPECT_FALSE(ossa::path_is_inside("/models/hero2/hero.bin", folder));
  EXPECT_FALSE(ossa::path_is_inside("/models/her", folder));
  EXPECT_FALSE(ossa::path_is_inside("/models", folder));
  EXPECT_FALSE(ossa::path_is_inside("/etc/passwd", folder));
}
