// `ossa view` driven by the scripts in tests/viewer/ in a real window (ctest runs this under xvfb-run):
// screenshots against goldens (the render tests' tolerance), the notifies authored in the window read back
// by the library and replayed through `ossa play`, damaged files shown as errors while the viewer runs on.
// Goldens: OSSA_UPDATE_GOLDENS=1 rewrites them (tests/golden/viewer/). The Windows build runs some of these
// (tests/CMakeLists.txt) under Wine against the same goldens: its window is Win32 + Direct3D 11.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "oracle_compare.h"
#include "ossa/import/load_character.h"
#include "ossa/render/image.h"
#include "ossa/serialize/load.h"
#include "test_paths.h"

#if defined(_WIN32)
#include <process.h>
#else
#include <unistd.h>
#endif

namespace fs = std::filesystem;
using namespace ossa;

namespace {

constexpr int kWidth = 1100, kHeight = 700;  // every scripted run uses this window size
// The 3D view inside that window (left panel 300, right panel 340, menu bar 19, bottom panel 250 points).
constexpr int kSceneX = 300, kSceneY = 19, kSceneW = 460, kSceneH = 431;

std::string sample_fbx() {
  return test::source_dir() + "/assets/sample/ossa_sample.fbx";
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// std::system's result as the program's exit status.
int exit_status(int raw) {
#if defined(_WIN32)
  return raw;
#else
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
#endif
}

struct ViewerRun {
  int status = -1;
  std::string out, err;
};

// Runs `ossa view FILE --script tests/viewer/SCRIPT` (or SCRIPT, a path made by the test) in `dir` (its
// outputs land there).
ViewerRun run_view(const fs::path& dir, const std::string& script, const std::string& extra = "",
                   const std::string& model = sample_fbx()) {
  const std::string script_path =
      fs::path(script).is_absolute() ? script : test::source_dir() + "/tests/viewer/" + script;
#if defined(_WIN32)  // cmd.exe: double quotes, and the status is the program's
  const std::string command = "cd /d \"" + dir.string() + "\" && \"" + std::string(build::cli_path()) +
                              "\" view \"" + model + "\" --script \"" + script_path +
                              "\" --settings settings.json --size " + std::to_string(kWidth) + "x" +
                              std::to_string(kHeight) + " " + extra + " > out.txt 2> err.txt";
#else
  const std::string command = "cd '" + dir.string() + "' && '" + std::string(build::cli_path()) + "' view '" +
                              model + "' --script '" + script_path + "' --settings settings.json --size " +
                              std::to_string(kWidth) + "x" + std::to_string(kHeight) + " " + extra +
                              " > out.txt 2> err.txt";
#endif
  ViewerRun run;
  run.status = exit_status(std::system(command.c_str()));
  run.out = read_text(dir / "out.txt");
  run.err = read_text(dir / "err.txt");
  return run;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ossa_viewer_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A window script whose expect-* actions are the checks: it must run to its end.
void expect_script_passes(const std::string& name, const std::string& script) {
  const ViewerRun run = run_view(fresh_dir(name), script);
  EXPECT_EQ(run.status, 0) << script << ": " << run.err;
}

#define REQUIRE_DISPLAY()                                          \
  if (!std::getenv("DISPLAY"))                                     \
  GTEST_SKIP() << "no X display: ctest runs these under xvfb-run " \
                  "(scripts/bootstrap.sh installs xvfb)"

Image crop(const Image& image, int x, int y, int w, int h) {
  Image out;
  out.width = w;
  out.height = h;
  out.rgba.resize(static_cast<size_t>(w) * h * 4);
  for (int row = 0; row < h; ++row)
    std::copy_n(&image.rgba[(static_cast<size_t>(y + row) * image.width + x) * 4], static_cast<size_t>(w) * 4,
                &out.rgba[static_cast<size_t>(row) * w * 4]);
  return out;
}

// The render tests' tolerance: at most 0.2 % of pixels differ by more than 2/255.
void expect_matches_golden(const Image& image, const std::string& name) {
  const std::string golden = test::source_dir() + "/tests/golden/viewer/" + name;
  if (std::getenv("OSSA_UPDATE_GOLDENS")) {
    ASSERT_TRUE(write_png(image, golden));
  }
  auto expected = read_png(golden);
  ASSERT_TRUE(expected) << expected.error() << " (run with OSSA_UPDATE_GOLDENS=1 to create it)";
  ASSERT_EQ(expected->width, image.width);
  ASSERT_EQ(expected->height, image.height);
  const ImageDifference d = compare_images(image, *expected, 2);
  EXPECT_LE(d.fraction_over, 0.002) << name << ": max difference " << d.max_difference;
  std::printf("  %s: %.3f %% of pixels over 2/255 from the golden, largest difference %d/255\n", name.c_str(),
              100 * d.fraction_over, d.max_difference);
}

std::array<int, 3> pixel(const Image& image, int x, int y) {
  const uint8_t* p = &image.rgba[(static_cast<size_t>(y) * image.width + x) * 4];
  return {p[0], p[1], p[2]};
}

// A window script run to its end, then each of its screenshots against its golden.
void expect_screenshots_match_goldens(const std::string& name, const std::string& script,
                                      std::initializer_list<const char*> screenshots) {
  const fs::path dir = fresh_dir(name);
  const ViewerRun run = run_view(dir, script);
  ASSERT_EQ(run.status, 0) << run.err;
  for (const char* screenshot : screenshots) {
    auto image = read_png((dir / screenshot).string());
    ASSERT_TRUE(image) << image.error();
    expect_matches_golden(*image, screenshot);
  }
}

}  // namespace

TEST(ViewerWindow, TourMatchesItsGolden) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("tour");
  // The model by a path relative to the viewer's working folder: File > Recent must still find it later.
  // (Not on Windows under Wine: the model is on another drive than the temporary folder.)
  std::string model = fs::relative(sample_fbx(), dir).string();
  if (model.empty()) model = sample_fbx();
  const ViewerRun run = run_view(dir, "tour.txt", "", model);
  ASSERT_EQ(run.status, 0) << run.err;
  auto image = read_png((dir / "tour.png").string());
  ASSERT_TRUE(image) << image.error();
  EXPECT_EQ(image->width, kWidth);
  EXPECT_EQ(image->height, kHeight);
  expect_matches_golden(*image, "tour.png");
  // Settings were written where asked (never next to the model).
  EXPECT_TRUE(fs::exists(dir / "settings.json"));
  const auto settings = nlohmann::json::parse(read_text(dir / "settings.json"));
  ASSERT_FALSE(settings["recent_files"].empty());
  EXPECT_EQ(settings["recent_files"][0].get<std::string>(), fs::weakly_canonical(sample_fbx()).string());
  EXPECT_FALSE(fs::exists(test::source_dir() + "/assets/sample/settings.json"));
}

TEST(ViewerWindow, LightingModesMatchGoldensAndDiffer) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("lighting");
  const ViewerRun run = run_view(dir, "lighting.txt");
  ASSERT_EQ(run.status, 0) << run.err;
  std::map<std::string, Image> scenes;
  for (const char* mode : {"phong", "blinn-phong", "lambert", "unlit", "texture-only"}) {
    const std::string name = std::string("lighting_") + mode + ".png";
    auto image = read_png((dir / name).string());
    ASSERT_TRUE(image) << image.error();
    scenes[mode] = crop(*image, kSceneX, kSceneY, kSceneW, kSceneH);
    expect_matches_golden(scenes[mode], name);
  }
  // A viewer that ignored the mode would match goldens made from it: the modes must differ.
  EXPECT_GT(compare_images(scenes["phong"], scenes["unlit"], 8).fraction_over, 0.01);
  EXPECT_GT(compare_images(scenes["lambert"], scenes["texture-only"], 8).fraction_over, 0.01);
}

// The viewer draws what the renderer draws: its GPU, CPU and baked paths agree within the render tests'
// bounds (GPU vs CPU: at most 0.04 % of pixels over 1/255; baked: 1 % over 8/255); the crowd and the
// travelled path match their goldens.
TEST(ViewerWindow, SkinningPathsAgreeAndCrowdAndTravelMatchGoldens) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("paths");
  const ViewerRun run = run_view(dir, "paths.txt");
  ASSERT_EQ(run.status, 0) << run.err;
  std::map<std::string, Image> scenes;
  for (const char* name : {"path_gpu", "path_cpu", "path_baked", "crowd", "travel"}) {
    auto image = read_png((dir / (std::string(name) + ".png")).string());
    ASSERT_TRUE(image) << image.error();
    scenes[name] = crop(*image, kSceneX, kSceneY, kSceneW, kSceneH);
  }
  const ImageDifference cpu = compare_images(scenes["path_gpu"], scenes["path_cpu"], 1);
  EXPECT_LE(cpu.fraction_over, 0.0004) << "max difference " << cpu.max_difference;
  const ImageDifference baked = compare_images(scenes["path_gpu"], scenes["path_baked"], 8);
  EXPECT_LE(baked.fraction_over, 0.01) << "max difference " << baked.max_difference;
  expect_matches_golden(scenes["path_gpu"], "path_gpu.png");
  expect_matches_golden(scenes["crowd"], "crowd.png");
  expect_matches_golden(scenes["travel"], "travel.png");
  // The crowd adds instances behind the character; travel moved it (both differ from the still pose).
  EXPECT_GT(compare_images(scenes["path_gpu"], scenes["crowd"], 8).fraction_over, 0.01);
}

// The blend space drives what the window draws: held at Walk's sample point (paused at time 0) the scene is
// Walk's at 0 within the GPU-vs-CPU bound (0.04 % of pixels over 1/255), at Idle's point it is not; half way
// with root motion and the feet planted on the slope and step, with its pad and the ground drawn, it matches
// its golden.
TEST(ViewerWindow, BlendSpaceAndFootPlacementDriveTheScene) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("blend_feet");
  const ViewerRun run = run_view(dir, "blend_feet.txt");
  ASSERT_EQ(run.status, 0) << run.err;
  std::map<std::string, Image> scenes;
  for (const char* name : {"walk0", "blend_walk", "blend_idle"}) {
    auto image = read_png((dir / (std::string(name) + ".png")).string());
    ASSERT_TRUE(image) << image.error();
    scenes[name] = crop(*image, kSceneX, kSceneY, kSceneW, kSceneH);
  }
  const ImageDifference same = compare_images(scenes["walk0"], scenes["blend_walk"], 1);
  EXPECT_LE(same.fraction_over, 0.0004) << "max difference " << same.max_difference;
  EXPECT_GT(compare_images(scenes["walk0"], scenes["blend_idle"], 8).fraction_over, 0.001);
  auto whole = read_png((dir / "blend_feet.png").string());
  ASSERT_TRUE(whole) << whole.error();
  expect_matches_golden(*whole, "blend_feet.png");
}

// Morph targets in the window (the face sample): GPU palette and CPU paths agree within the GPU-vs-CPU bound
// (0.04 % of pixels over 1/255); the override to 0 of smile and blink changes the face; removing the override
// gives back the clip's face.
TEST(ViewerWindow, MorphTargetsAreDrawnAndOverridden) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("morphs");
  const ViewerRun run = run_view(dir, "morphs.txt", "", test::source_dir() + "/assets/sample/ossa_face.glb");
  ASSERT_EQ(run.status, 0) << run.err;
  std::map<std::string, Image> scenes;
  for (const char* name : {"face_gpu", "face_cpu", "face_neutral", "face_again"}) {
    auto image = read_png((dir / (std::string(name) + ".png")).string());
    ASSERT_TRUE(image) << image.error();
    scenes[name] = crop(*image, kSceneX, kSceneY, kSceneW, kSceneH);
  }
  const ImageDifference cpu = compare_images(scenes["face_gpu"], scenes["face_cpu"], 1);
  EXPECT_LE(cpu.fraction_over, 0.0004) << "max difference " << cpu.max_difference;
  EXPECT_GT(compare_images(scenes["face_gpu"], scenes["face_neutral"], 8).fraction_over, 0.002);
  EXPECT_LE(compare_images(scenes["face_gpu"], scenes["face_again"], 1).fraction_over, 0.0004);
}

// What the authoring script leaves in the Walk clip, by hand: the sample's three notifies and the two added.
TEST(ViewerWindow, AuthoredNotifiesAreSavedAndReplayThroughPlay) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("authoring");
  const ViewerRun run = run_view(dir, "authoring.txt");
  ASSERT_EQ(run.status, 0) << run.err;
  auto image = read_png((dir / "authoring.png").string());
  ASSERT_TRUE(image) << image.error();
  expect_matches_golden(*image, "authoring.png");

  // The library reads the saved file: every authored value exactly.
  const fs::path saved = dir / "authored.notifies.json";
  ModelLoadOptions options;
  options.notifies_path = saved.string();
  auto character = load_character(sample_fbx(), options);
  ASSERT_TRUE(character) << character.error();
  const CharacterAsset& asset = character->asset;
  const NotifySet& set = character->notifies;
  const int walk = asset.find_clip("Walk");
  ASSERT_GE(walk, 0);
  using Row = std::tuple<std::string, float, float, std::string>;  // name, time, duration, payload (parsed)
  std::vector<Row> got;
  for (const auto* list : {&set.clips[walk].instants, &set.clips[walk].states})
    for (const Notify& n : *list)
      got.emplace_back(set.names[n.name_id], n.time, n.duration,
                       n.payload.empty() ? "" : nlohmann::json::parse(n.payload).dump());
  std::sort(got.begin(), got.end());
  std::vector<Row> want = {
      {"ArmSwing", 0.2f, 0.3f, ""},
      {"FootL", 0.0f, 0.f, R"({"foot":"left","sound":"step_grass"})"},
      {"FootR", 0.5f, 0.f, R"({"foot":"right","sound":"step_grass"})"},
      {"StepL", 0.15f, 0.f, ""},
      {"Swing", 0.6f, 0.25f, R"({"gain":0.5,"sound":"whoosh"})"},
  };
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  // The other clips kept theirs (Wave: WaveStart, Greeting, WaveEnd).
  EXPECT_EQ(
      set.clips[asset.find_clip("Wave")].instants.size() + set.clips[asset.find_clip("Wave")].states.size(),
      3u);

  // `ossa play` with the saved file fires each authored notify once in one pass of the clip, at its time.
  const float duration = asset.clips[walk].duration();
  const int steps = static_cast<int>(std::ceil(duration * 100)) - 1;  // one pass, short of the loop
  const std::string command = std::string("'").append(build::cli_path()) + "' play '" + sample_fbx() +
                              "' --notifies '" + saved.string() + "' --clip Walk --steps " +
                              std::to_string(steps) + " --dt 0.01 --events-json > '" +
                              (dir / "play.jsonl").string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::map<std::string, std::vector<std::pair<std::string, float>>> fired;  // name -> (type, time)
  std::istringstream lines(read_text(dir / "play.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    const auto e = nlohmann::json::parse(line);
    if (e["name"].is_null()) continue;
    fired[e["name"].get<std::string>()].emplace_back(e["type"].get<std::string>(), e["time"].get<float>());
  }
  for (const auto& [name, time, length, payload] : want) {
    SCOPED_TRACE(name);
    const auto& events = fired[name];
    if (length > 0) {
      ASSERT_EQ(events.size(), 2u);  // begin and end
      EXPECT_EQ(events[0].first, "begin");
      EXPECT_EQ(events[1].first, "end");
      EXPECT_NEAR(events[0].second, time, 0.0101f);  // within the step the boundary falls in
      EXPECT_NEAR(events[1].second, time + length, 0.0101f);
    } else {
      ASSERT_EQ(events.size(), 1u);
      EXPECT_EQ(events[0].first, "instant");
      EXPECT_NEAR(events[0].second, time, 0.0101f);
    }
  }
  EXPECT_EQ(fired.count("Mistake"), 0u);  // deleted after undo/redo
  EXPECT_EQ(fired.count("Step"), 0u);     // renamed
}

// Notify `name`'s time and duration in the Walk clip of a sidecar, read by the library.
std::pair<float, float> walk_notify(const fs::path& sidecar, const std::string& name) {
  ModelLoadOptions options;
  options.notifies_path = sidecar.string();
  auto character = load_character(sample_fbx(), options);
  EXPECT_TRUE(character) << character.error();
  if (!character) return {-1, -1};
  const NotifySet& set = character->notifies;
  const ClipNotifies& walk = set.clips[character->asset.find_clip("Walk")];
  for (const auto* list : {&walk.instants, &walk.states})
    for (const Notify& n : *list)
      if (set.names[n.name_id] == name) return {n.time, n.duration};
  return {-1, -1};
}

TEST(ViewerWindow, PointerClicksAndDragsEditTheTimeline) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("pointer");
  const ViewerRun run = run_view(dir, "pointer.txt");
  ASSERT_EQ(run.status, 0) << run.err;  // the click in the clip list played Wave (expect-clip)
  auto image = read_png((dir / "pointer.png").string());
  ASSERT_TRUE(image) << image.error();
  expect_matches_golden(*image, "pointer.png");
  // The timeline shows the 1 s clip over ~614 points: 62 points to the right is ~0.1 s later.
  const auto [foot_time, foot_duration] = walk_notify(dir / "dragged.notifies.json", "FootR");
  EXPECT_NEAR(foot_time, 0.6f, 0.01f);
  EXPECT_EQ(foot_duration, 0.f);
  const auto [swing_time, swing_duration] = walk_notify(dir / "dragged.notifies.json", "ArmSwing");
  EXPECT_EQ(swing_time, 0.2f);  // the end grip changes the duration only
  EXPECT_NEAR(swing_duration, 0.4f, 0.01f);
  // One undo takes back the whole second drag (every mouse move of it), not one step of it.
  const auto [undone_time, undone_duration] = walk_notify(dir / "undone.notifies.json", "ArmSwing");
  EXPECT_EQ(undone_time, 0.2f);
  EXPECT_EQ(undone_duration, 0.3f);
  EXPECT_NEAR(walk_notify(dir / "undone.notifies.json", "FootR").first, 0.6f, 0.01f);
}

// A notify added with the playhead between frames lands on the nearest frame (it wrote 0.336 s at frame 10).
TEST(ViewerWindow, NotifiesAreAddedOnFrames) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("snap");
  const ViewerRun run = run_view(dir, "snap.txt");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(walk_notify(dir / "snapped.notifies.json", "Snap").first, static_cast<float>(10.0 / 30.0));
}

TEST(ViewerWindow, DamagedFilesShowAnErrorAndTheViewerRunsOn) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("damaged");
  {
    std::ofstream junk(dir / "broken.fbx", std::ios::binary);
    junk << "Kaydara FBX Binary  \x00\x1a\x00" << std::string(300, '\xff');
    const std::string glb = read_text(test::source_dir() + "/assets/sample/ossa_sample.glb");
    std::ofstream truncated(dir / "truncated.glb", std::ios::binary);
    truncated << glb.substr(0, glb.size() / 3);
  }
  const ViewerRun run = run_view(dir, "damaged.txt");
  ASSERT_EQ(run.status, 0) << run.err;  // expect-error passed twice, then the sample played on
  EXPECT_NE(run.out.find("error shown as expected"), std::string::npos);
  auto image = read_png((dir / "damaged.png").string());
  ASSERT_TRUE(image) << image.error();
  // The error panel (dark red) is drawn over the top middle of the window.
  const auto banner = pixel(*image, kWidth / 2, 19 + 40 + 30);
  EXPECT_GT(banner[0], banner[1] + 30) << banner[0] << " " << banner[1] << " " << banner[2];
}

TEST(ViewerWindow, SavingOverAnInputIsRefused) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("save_over_input");
  const fs::path model = dir / "ossa_sample.fbx";
  fs::copy_file(sample_fbx(), model);
  const std::string before = read_text(model);
  const ViewerRun run = run_view(dir, "save_over_input.txt", "", model.string());
  EXPECT_EQ(run.status, 1);  // the save action failed
  EXPECT_NE(run.err.find("it is an input of this character"), std::string::npos) << run.err;
  EXPECT_EQ(read_text(model), before);
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir)) left.push_back(entry.path().filename().string());
  std::sort(left.begin(), left.end());
  // The unsaved edit's recovery copy is beside the settings, which this run keeps in the model's folder.
  EXPECT_EQ(left,
            (std::vector<std::string>{"err.txt", "ossa_sample.fbx", "out.txt", "recovery", "settings.json"}));
}

// File > Export glTF: the character as it plays, with the notifies as edited (not saved), loads back with
// them.
TEST(ViewerWindow, ExportWritesTheCharacterWithItsEditedNotifies) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("export");
  const ViewerRun run = run_view(dir, "export.txt");
  ASSERT_EQ(run.status, 0) << run.err;
  ModelLoadOptions options;
  options.import.isolate = false;
  auto back = load_character((dir / "exported.glb").string(), options);
  ASSERT_TRUE(back) << back.error();
  const int walk = (*back)->asset.find_clip("Walk");
  ASSERT_GE(walk, 0);
  const int exported = (*back)->notifies.find_notify("Exported");
  ASSERT_GE(exported, 0) << "the notify added in the viewer is not in the export";
  int found = 0;
  for (const Notify& n : (*back)->notifies.clips[walk].instants) found += n.name_id == exported;
  EXPECT_EQ(found, 1);
  EXPECT_FALSE(fs::exists(dir / "ossa_sample.notifies.json"));  // exported, not saved
}

// Inspect > Retarget: the open character's clip plays on a second one beside it through the bone map; an edit
// shows at once (the target's left arm at rest while the source's swings) and the saved map is the one
// `ossa retarget --map` reads.
TEST(ViewerWindow, RetargetShowsBothAndSavesTheMap) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("retarget");
  fs::copy_file(test::source_dir() + "/assets/sample/ossa_sample.glb", dir / "ossa_sample.glb");
  const ViewerRun run = run_view(dir, "retarget.txt");
  ASSERT_EQ(run.status, 0) << run.err;
  auto image = read_png((dir / "retarget.png").string());
  ASSERT_TRUE(image) << image.error();
  expect_matches_golden(*image, "retarget.png");
  // Both halves of the scene hold a character (pixels other than the background and the grid's greys).
  for (const int half : {0, 1}) {
    int lit = 0;
    for (int y = kSceneY; y < kSceneY + kSceneH; ++y)
      for (int x = kSceneX + half * kSceneW / 2; x < kSceneX + (half + 1) * kSceneW / 2; ++x) {
        const auto [r, g, b] = pixel(*image, x, y);
        lit += std::abs(r - g) + std::abs(g - b) > 20;
      }
    EXPECT_GT(lit, 500) << (half ? "target" : "source") << " half";
  }
  const auto map = nlohmann::json::parse(read_text(dir / "bone_map.json"));
  EXPECT_TRUE(map["upperarm_l"].is_null());
  EXPECT_EQ(map["lowerarm_l"], "lowerarm_l");
  std::ostringstream command_line;
  command_line << "'" << build::cli_path() << "' --trusted retarget '" << sample_fbx() << "' --to '"
               << (dir / "ossa_sample.glb").string() << "' --map '" << (dir / "bone_map.json").string()
               << "' -o '" << (dir / "out.ossa").string() << "' > '" << (dir / "cli.txt").string()
               << "' 2>&1";
  const std::string command = command_line.str();
  EXPECT_EQ(std::system(command.c_str()), 0);
  EXPECT_NE(read_text(dir / "cli.txt").find("31 of 32 target joints mapped"), std::string::npos)
      << read_text(dir / "cli.txt");
}

// Inspect > Graph: the sample's animation graph drives it (speed, a turn trigger, wave on the upper layer);
// the script checks the states it reaches, the screenshot shows the diagrams.
TEST(ViewerWindow, AnimationGraphDrivesTheCharacter) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("graph");
  fs::copy_file(test::source_dir() + "/assets/sample/ossa_sample.animgraph.json",
                dir / "ossa_sample.animgraph.json");
  const ViewerRun run = run_view(dir, "graph.txt");
  ASSERT_EQ(run.status, 0) << run.err;
  auto image = read_png((dir / "graph.png").string());
  ASSERT_TRUE(image) << image.error();
  expect_matches_golden(*image, "graph.png");
}

// While an animation graph drives the sample, the events panel lists the graph's events: exactly those
// `ossa play --graph` prints for the same updates and parameters (state changes, transitions and the notifies
// of the clips it plays, not the events of the playback beneath it); the timeline shows the clip of the base
// layer's state (Turn, with its notifies).
TEST(ViewerWindow, TheEventsPanelListsTheGraphsEvents) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("graph_events");
  const std::string graph = test::source_dir() + "/assets/sample/ossa_sample.animgraph.json";
  // The window's updates, 1/60 s each: `graph-set` acts before its frame's update, `wait N` lets N more
  // frames pass, an expect-* runs before its frame's update. So: 41 updates walking, then 21 turning.
  {
    std::ofstream inputs(dir / "inputs.txt");
    for (int step = 0; step < 62; ++step)
      inputs << "0.0166666675" << (step == 0 ? " speed=1.5" : step == 41 ? " speed=0 turn" : "") << "\n";
  }
  const std::string play = "cd '" + dir.string() + "' && '" + std::string(build::cli_path()) + "' play '" +
                           sample_fbx() + "' --graph '" + graph +
                           "' --inputs inputs.txt --events-json > play.jsonl";
  ASSERT_EQ(std::system(play.c_str()), 0);
  size_t events = 0, notifies = 0;
  std::istringstream lines(read_text(dir / "play.jsonl"));
  for (std::string line; std::getline(lines, line); ++events)
    notifies += nlohmann::json::parse(line).contains("clip");
  EXPECT_GT(notifies, 3u) << "the steps should fire the clips' notifies too";
  auto character = load_character(sample_fbx());
  ASSERT_TRUE(character) << character.error();
  const ClipNotifies& turn = (*character)->notifies.clips[(*character)->asset.find_clip("Turn")];
  const size_t turn_notifies = turn.instants.size() + turn.states.size();
  ASSERT_GT(turn_notifies, 0u);
  {
    std::ofstream script(dir / "graph_events.txt");
    script << "graph \"" << graph
           << "\"\ngraph-set speed 1.5\nwait 40\ngraph-set speed 0\ngraph-set turn set\n"
           << "wait 20\nexpect-state base Turn\nexpect-events " << events << "\nexpect-clip Turn\n"
           << "expect-notifies " << turn_notifies << "\nquit\n";
  }
  const ViewerRun run = run_view(dir, (dir / "graph_events.txt").string());
  EXPECT_EQ(run.status, 0) << run.err;
}

// Inspect > Motion matching drives the character from a stick: a script's, then W held (the keyboard),
// through a database `ossa mm build` made of the sample's own clips (they walk in place, so the root's
// bounded pull towards the stick's trajectory moves it: at most 0.1 m/s); with the shared mocap retargeted
// onto the sample, at walking pace.
TEST(ViewerWindow, MotionMatchingDrivesTheCharacter) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("mm");
  auto build = [&](const std::string& motion, const std::string& out) {
    const std::string command = "cd '" + dir.string() + "' && '" + std::string(build::cli_path()) +
                                "' mm build '" + sample_fbx() + "' " + motion + " -o " + out + " > build.txt";
    return exit_status(std::system(command.c_str()));
  };
  const std::string quoted_sample = '\'' + sample_fbx() + '\'';
  ASSERT_EQ(build(quoted_sample, "db.ossa"), 0);
  {
    std::ofstream script(dir / "mm.txt");
    script << "expect-mm-travel 0 0\nmm on\nwait 30\nexpect-mm-travel 0 0.1\nmm-stick 0 1\nwait 120\n"
           << "expect-mm-travel 0.1 0.3\nscreenshot mm.png\nmm restart\nmm-keys\nhold w 90\n"
           << "expect-mm-travel 0.08 0.3\nmm off\nquit\n";
  }
  ViewerRun run = run_view(dir, (dir / "mm.txt").string(), "", (dir / "db.ossa").string());
  EXPECT_EQ(run.status, 0) << run.err;
  auto shot = read_png((dir / "mm.png").string());
  ASSERT_TRUE(shot) << shot.error();
  // A model without a database says so, and the verbs fail.
  {
    std::ofstream script(dir / "none.txt");
    script << "mm on\nquit\n";
  }
  run = run_view(dir, (dir / "none.txt").string());
  EXPECT_NE(run.status, 0);
  EXPECT_NE(run.err.find("no motion database"), std::string::npos) << run.err;

  const std::string mocap = test::shared_dir() + "/mocap";
  if (test::shared_dir().empty() || !fs::is_directory(mocap))
    GTEST_SKIP() << "../shared/mocap not found (OSSA_SHARED_DIR): the mocap walk is skipped";
  ASSERT_EQ(build('\'' + mocap + "/dataset-2_walk_normal_001.bvh' '" + mocap +
                      "/dataset-2_walk_normal_002.bvh' --scale 0.01",
                  "walk.ossa"),
            0);
  {
    std::ofstream script(dir / "walk.txt");
    script << "mm on\nmm-stick 0 1\nwait 120\nexpect-mm-travel 1.2 3\nscreenshot walk.png\nquit\n";
  }
  run = run_view(dir, (dir / "walk.txt").string(), "", (dir / "walk.ossa").string());
  EXPECT_EQ(run.status, 0) << run.err;
}

// A click in the scene from far away, arriving and pressing in one poll, leaves the camera where it was (it
// swung by the pointer's travel before).
TEST(ViewerWindow, AClickDoesNotSwingTheCamera) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("tap");
  const ViewerRun run = run_view(dir, "tap.txt");
  ASSERT_EQ(run.status, 0) << run.err;
  auto before = read_png((dir / "before.png").string());
  auto after = read_png((dir / "after.png").string());
  ASSERT_TRUE(before && after);
  const Image a = crop(*before, kSceneX, kSceneY, kSceneW, kSceneH),
              b = crop(*after, kSceneX, kSceneY, kSceneW, kSceneH);
  const ImageDifference d = compare_images(a, b, 2);
  EXPECT_LE(d.fraction_over, 0.0005) << "the view changed: max difference " << d.max_difference;
}

// Every key event of a poll arriving at once (the script's key, hold and type actions): taps act once, a held
// key acts once, a text field gets every Backspace and Enter (tests/viewer/keys.txt says what is checked).
TEST(ViewerWindow, KeysActOncePerPressAtALowFrameRate) {
  REQUIRE_DISPLAY();
  expect_script_passes("keys", "keys.txt");
}

TEST(ViewerWindow, NotifyFieldsFollowTheDocument) {
  REQUIRE_DISPLAY();
  expect_script_passes("fields", "fields.txt");
}

// Unsaved edits: prompts on close and open, a recovery copy beside the settings (never beside the model)
// taken back by the next run, none left once saved.
TEST(ViewerWindow, UnsavedEditsAreAskedAboutAndRecovered) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("unsaved");
  const fs::path models = dir / "models";
  fs::create_directories(models);
  fs::create_symlink(sample_fbx(), models / "model.fbx");
  fs::create_symlink(test::source_dir() + "/assets/sample/ossa_sample.glb", models / "other.glb");
  auto files_in = [](const fs::path& folder) {
    std::vector<std::string> names;
    if (fs::exists(folder))
      for (const auto& entry : fs::directory_iterator(folder))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  const ViewerRun first = run_view(dir, "unsaved.txt", "", (models / "model.fbx").string());
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(files_in(models), (std::vector<std::string>{"model.fbx", "other.glb"}));  // nothing beside it
  const std::vector<std::string> copies = files_in(dir / "recovery");
  ASSERT_EQ(copies.size(), 1u);
  const std::string copy = read_text(dir / "recovery" / copies[0]);
  EXPECT_NE(copy.find("\"Lost\""), std::string::npos) << copy;
  EXPECT_EQ(copy.find("\"Kept\""), std::string::npos) << "discarded edits came back: " << copy;

  const ViewerRun second = run_view(dir, "recover.txt", "", (models / "model.fbx").string());
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_TRUE(files_in(dir / "recovery").empty());
  EXPECT_NE(read_text(models / "model.notifies.json").find("\"Lost\""), std::string::npos);
}

// The timeline's notify markers (unselected and selected colours) in the bottom-left panel, as blobs of
// touching pixels: (left, right) columns of each, left to right.
std::vector<std::pair<int, int>> timeline_markers(const Image& image, int max_x) {
  auto is_marker = [&](int x, int y) {
    const auto p = pixel(image, x, y);
    return p == std::array<int, 3>{90, 170, 255} || p == std::array<int, 3>{255, 180, 60};
  };
  std::vector<std::pair<int, int>> columns;  // runs of columns holding marker pixels
  for (int x = 0; x < max_x; ++x) {
    bool any = false;
    for (int y = kSceneY + kSceneH; y < image.height && !any; ++y) any = is_marker(x, y);
    if (!any) continue;
    if (!columns.empty() && columns.back().second == x - 1)
      columns.back().second = x;
    else
      columns.push_back({x, x});
  }
  return columns;
}

TEST(ViewerWindow, TimelineDrawsNotifiesWholeAndKeepsTheLaneNames) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("timeline");
  fs::create_symlink(sample_fbx(), dir / "model.fbx");
  const ViewerRun run = run_view(dir, "timeline.txt", "", (dir / "model.fbx").string());
  ASSERT_EQ(run.status, 0) << run.err;
  auto whole = read_png((dir / "whole.png").string());
  auto zoomed = read_png((dir / "zoomed.png").string());
  ASSERT_TRUE(whole && zoomed);
  const int timeline_w = kWidth - 380;  // the timeline panel; the events log is right of it
  const auto markers = timeline_markers(*whole, timeline_w);
  ASSERT_EQ(markers.size(), 2u);
  const int start_w = markers[0].second - markers[0].first, end_w = markers[1].second - markers[1].first;
  EXPECT_GE(start_w, 10);
  EXPECT_NEAR(end_w, start_w, 1) << "the marker at the clip's end is cut";
  EXPECT_GT(markers[0].first, 8 + 90) << "the marker at 0 covers the lane names";
  // Zoomed 1.1x about 0.9 s: Start is just left of the view, where the names are: it must not be drawn there.
  for (const auto& [left, right] : timeline_markers(*zoomed, timeline_w))
    EXPECT_GT(left, 8 + 90) << "a marker at x " << left << " to " << right << " covers the lane names";
}

TEST(ViewerWindow, APickedJointIsRevealedInTheTree) {
  REQUIRE_DISPLAY();
  expect_script_passes("joints", "joints.txt");
}

// The dope sheet (keys per joint and per morph target) and the curve view (a channel as Euler degrees and as
// its quaternion), each against its golden; the rows' keys themselves are checked in
// test_viewer_dope_sheet.cpp.
TEST(ViewerWindow, DopeSheetAndCurvesMatchTheirGoldens) {
  REQUIRE_DISPLAY();
  expect_screenshots_match_goldens("dope_sheet", "dope_sheet.txt",
                                   {"dope_sheet.png", "curves_euler.png", "curves_quat.png"});
}

TEST(ViewerWindow, FramesAreTypedAndLoopRangesPlayed) {
  REQUIRE_DISPLAY();
  expect_script_passes("frames", "frames.txt");
}

TEST(ViewerWindow, CameraViewsBindPoseAndOnionSkin) {
  REQUIRE_DISPLAY();
  expect_screenshots_match_goldens("camera", "camera.txt", {"bind_side.png", "onion_trail.png"});
}

TEST(ViewerWindow, TheFileBrowserOpensModels) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("browser");
  fs::create_directories(dir / "clips");
  fs::create_symlink(sample_fbx(), dir / "hero.fbx");
  fs::create_symlink(test::source_dir() + "/assets/sample/ossa_sample.glb", dir / "clips" / "other.glb");
  std::ofstream(dir / "notes.txt") << "not a model";
  const ViewerRun run = run_view(dir, "browser.txt", "", (dir / "hero.fbx").string());
  EXPECT_EQ(run.status, 0) << run.err;
}

// The exported view: one PNG a frame for the whole clip (Walk: 1 s at 30 fps, 31 frames), the first equal to
// the window's own 3D view at 0 s (the same renderer and camera), and a GIF.
TEST(ViewerWindow, TheViewExportsAsPngsAndGif) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("export_view");
  const ViewerRun run = run_view(dir, "export_view.txt");
  ASSERT_EQ(run.status, 0) << run.err;
  int pngs = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    pngs += entry.path().filename().string().rfind("frames_", 0) == 0;
  EXPECT_EQ(pngs, 31);
  auto first = read_png((dir / "frames_0000.png").string());
  auto window = read_png((dir / "scene0.png").string());
  ASSERT_TRUE(first && window);
  ASSERT_EQ(first->width, kSceneW);
  ASSERT_EQ(first->height, kSceneH);
  const ImageDifference d = compare_images(*first, crop(*window, kSceneX, kSceneY, kSceneW, kSceneH), 2);
  EXPECT_LE(d.fraction_over, 0.0005) << "max difference " << d.max_difference;
  EXPECT_EQ(read_text(dir / "walk.gif").substr(0, 6), "GIF89a");
}

TEST(ViewerWindow, PanelsResizeAndTheSizesAreKept) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("layout");
  const ViewerRun run = run_view(dir, "layout.txt");
  ASSERT_EQ(run.status, 0) << run.err;
  const nlohmann::json settings = nlohmann::json::parse(read_text(dir / "settings.json"));
  EXPECT_EQ(settings["left_panel"], 402);
  EXPECT_EQ(settings["right_panel"], 392);
  EXPECT_EQ(settings["bottom_panel"], 302);
  EXPECT_EQ(settings["font_scale"], 1.5);
  auto image = read_png((dir / "layout.png").string());
  ASSERT_TRUE(image) << image.error();
  expect_matches_golden(*image, "layout.png");
}

TEST(ViewerWindow, ABadScriptIsRefusedWithItsLine) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_dir("bad_script");
  {
    std::ofstream script(dir / "bad.txt");
    script << "play Walk\nseek nan\n";
  }
  const std::string command = "cd '" + dir.string() + "' && '" + std::string(build::cli_path()) + "' view '" +
                              sample_fbx() + "' --script bad.txt --settings - > out.txt 2> err.txt";
  EXPECT_NE(exit_status(std::system(command.c_str())), 0);
  EXPECT_NE(read_text(dir / "err.txt").find("bad.txt:2"), std::string::npos) << read_text(dir / "err.txt");
}
