// The viewer's plain classes (src/viewer/), without a window: the notify document against the library's own
// sidecar loader (what the viewer saves is what a game loads), undo/redo with explicit expected states, the
// timeline's geometry (x <-> time inverses, zoom anchors, tick spacing, hit testing), hostile scripts and
// damaged settings files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "ossa/asset/notifies.h"
#include "ossa/core/file_io.h"
#include "ossa/serialize/load.h"
#include "synthetic_character.h"
#include "test_paths.h"
#include "viewer/file_browser.h"
#include "viewer/key_input.h"
#include "viewer/notify_document.h"
#include "viewer/recovery.h"
#ifdef OSSA_VIEWER_HAS_CAMERA
#include "viewer/orbit_camera.h"
#endif
#include "viewer/script.h"
#include "viewer/settings.h"
#include "viewer/text.h"
#include "viewer/timeline.h"

namespace ossa::viewer {
namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  const std::string dir = utf8_from_path(fs::path(::testing::TempDir()) / ("ossa-viewer-core-" + name));
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  return dir;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_all(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::vector<ClipTiming> timings_of(const CharacterAsset& asset) {
  std::vector<ClipTiming> timings;
  for (const Clip& c : asset.clips) timings.push_back({c.name(), c.duration()});
  return timings;
}

// A notify as the library delivers it: (clip, name, time, duration, payload), for exact comparisons.
using Event = std::tuple<int, std::string, float, float, std::string>;

std::vector<Event> events_of(const NotifySet& set) {
  std::vector<Event> events;
  for (size_t c = 0; c < set.clips.size(); ++c)
    for (const auto* list : {&set.clips[c].instants, &set.clips[c].states})
      for (const Notify& n : *list)
        events.emplace_back(static_cast<int>(c), set.names[n.name_id], n.time, n.duration, n.payload);
  std::sort(events.begin(), events.end());
  return events;
}

std::vector<Event> events_of(const NotifyDocument& document) {
  std::vector<Event> events;
  for (size_t c = 0; c < document.clips().size(); ++c)
    for (const EditableNotify& e : document.notifies(static_cast<int>(c)))
      events.emplace_back(static_cast<int>(c), e.name, e.time, e.duration, e.payload);
  std::sort(events.begin(), events.end());
  return events;
}

// One clip's notifies as (name, time, duration), in the document's order.
using Brief = std::tuple<std::string, float, float>;
std::vector<Brief> brief(const NotifyDocument& document, int clip) {
  std::vector<Brief> out;
  for (const EditableNotify& e : document.notifies(clip)) out.emplace_back(e.name, e.time, e.duration);
  return out;
}

const CharacterAsset& character() {
  static const CharacterAsset asset = test::synthetic_character();
  return asset;
}

NotifyDocument sample_document() {
  const std::string path = std::string(build::source_dir()) + "/assets/sample/ossa_sample.notifies.json";
  auto set = load_notifies_for(character(), path);
  EXPECT_TRUE(set.ok()) << set.error();
  return NotifyDocument(set.ok() ? *set : NotifySet{}, timings_of(character()));
}

// ---------------------------------------------------------------------------------------------- document

TEST(ViewerDocument, StartsFromTheLoadedSetAndWritesItBackUnchanged) {
  const std::string path = std::string(build::source_dir()) + "/assets/sample/ossa_sample.notifies.json";
  auto loaded = load_notifies_for(character(), path);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  NotifyDocument document(*loaded, timings_of(character()));
  EXPECT_FALSE(document.dirty());
  EXPECT_FALSE(document.can_undo());
  EXPECT_EQ(events_of(document), events_of(*loaded));
  auto again = document.to_notify_set(character());
  ASSERT_TRUE(again.ok()) << again.error() << "\n" << document.to_json();
  EXPECT_EQ(events_of(*again), events_of(*loaded));
  EXPECT_EQ(events_of(*again).size(), 9u);  // the sample's nine notifies
  // Each clip's list is by time, ids unique.
  std::vector<uint32_t> ids;
  for (size_t c = 0; c < document.clips().size(); ++c) {
    const auto& list = document.notifies(static_cast<int>(c));
    EXPECT_TRUE(
        std::is_sorted(list.begin(), list.end(),
                       [](const EditableNotify& a, const EditableNotify& b) { return a.time < b.time; }));
    for (const EditableNotify& e : list) ids.push_back(e.id);
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

// One sidecar serves the sample's FBX ("Armature|Walk"), glTF ("Walk") and COLLADA ("Armature_Armature")
// exports. Saving from one of them keeps what it does not own: the keys as written, the ratio forms, the
// clips it lacks; so the other exports still load the saved file (this was the viewer's data loss: a save
// from the FBX rewrote every key to "Armature|..." and every ratio into seconds, and the glTF then refused
// the file).
TEST(ViewerDocument, SavingASharedSidecarKeepsWhatThisExportDoesNotOwn) {
  std::ifstream in(std::string(build::source_dir()) + "/assets/sample/ossa_sample.notifies.json");
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  const nlohmann::json original = nlohmann::json::parse(text);
  const std::vector<ClipTiming> fbx = {
      {"Armature|Idle", 2.f}, {"Armature|Turn", 1.2f}, {"Armature|Walk", 1.f}, {"Armature|Wave", 1.5f}};
  const std::vector<ClipTiming> gltf = {{"Idle", 2.f}, {"Turn", 1.2f}, {"Walk", 1.f}, {"Wave", 1.5f}};
  const std::vector<ClipTiming> collada = {{"Armature_Armature", 1.f}};
  // The COLLADA export has none of the sidecar's clips: it loads, and says what was left off.
  auto dae = parse_notifies(text, "sidecar", collada);
  ASSERT_TRUE(dae.ok()) << dae.error();
  EXPECT_EQ(dae->warnings.size(), 4u);
  NotifyDocument dae_document(*dae, collada);
  dae_document.keep_source(text);
  EXPECT_EQ(nlohmann::json::parse(dae_document.to_json()), original) << dae_document.to_json();
  // The FBX export, saved without an edit: the file as it was.
  auto set = parse_notifies(text, "sidecar", fbx);
  ASSERT_TRUE(set.ok()) << set.error();
  EXPECT_TRUE(set->warnings.empty());
  NotifyDocument document(*set, fbx);
  document.keep_source(text);
  EXPECT_EQ(nlohmann::json::parse(document.to_json()), original) << document.to_json();
  // Edits: WaveEnd (a ratio) moved to 1.2 s, a notify added to Walk (whose entries give times).
  uint32_t wave_end = 0;
  for (const EditableNotify& e : document.notifies(3))
    if (e.name == "WaveEnd") wave_end = e.id;
  ASSERT_NE(wave_end, 0u);
  ASSERT_EQ(document.move(3, wave_end, 1.2f), "");
  ASSERT_EQ(document.add(2, "Extra", 0.3f, 0), "");
  const nlohmann::json saved = nlohmann::json::parse(document.to_json());
  EXPECT_EQ(saved["clips"].size(), 4u);
  for (const char* key : {"Idle", "Turn"}) EXPECT_EQ(saved["clips"][key], original["clips"][key]) << key;
  const nlohmann::json& wave = saved["clips"]["Wave"];
  ASSERT_EQ(wave.size(), 3u);
  EXPECT_EQ(wave[0], original["clips"]["Wave"][0]);  // WaveStart: untouched, its ratio kept
  EXPECT_EQ(wave[1], original["clips"]["Wave"][1]);  // Greeting with its payload
  EXPECT_EQ(wave[2]["name"], "WaveEnd");
  ASSERT_TRUE(wave[2].contains("ratio")) << wave;
  EXPECT_NEAR(wave[2]["ratio"].get<double>(), 0.8, 1e-6);
  bool extra = false;
  for (const nlohmann::json& e : saved["clips"]["Walk"])
    if (e["name"] == "Extra") extra = e.contains("time") && std::fabs(e["time"].get<double>() - 0.3) < 1e-6;
  EXPECT_TRUE(extra) << saved["clips"]["Walk"];
  // Every export reads the saved file: the glTF with no clip left off, the edits where they were made.
  auto again = parse_notifies(document.to_json(), "saved", gltf);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_TRUE(again->warnings.empty());
  auto back = parse_notifies(document.to_json(), "saved", fbx);
  ASSERT_TRUE(back.ok()) << back.error();
  NotifyDocument reread(*back, fbx);
  EXPECT_EQ(brief(reread, 2), brief(document, 2));
  EXPECT_EQ(brief(reread, 3), brief(document, 3));
  ASSERT_TRUE(parse_notifies(document.to_json(), "saved", collada).ok());
}

TEST(ViewerDocument, EmptyDocumentWritesASidecarTheLibraryAccepts) {
  NotifyDocument document(NotifySet{}, timings_of(character()));
  for (int c = 0; c < 4; ++c) EXPECT_TRUE(document.notifies(c).empty());
  EXPECT_TRUE(document.notifies(-1).empty());
  EXPECT_TRUE(document.notifies(99).empty());
  auto set = document.to_notify_set(character());
  ASSERT_TRUE(set.ok()) << set.error();
  EXPECT_TRUE(events_of(*set).empty());
  NotifyDocument nothing;
  EXPECT_TRUE(nothing.clips().empty());
  EXPECT_NE(nothing.add(0, "A", 0, 0), "");
}

TEST(ViewerDocument, SavedFileLoadsBackExactlyAsAuthored) {
  NotifyDocument document(NotifySet{}, timings_of(character()));
  const float walk = document.clips()[0].duration;
  ASSERT_GT(walk, 0.5f);
  uint32_t a = 0, b = 0, c = 0, d = 0;
  // Times that have no short decimal form, the clip's end, a state ending exactly at the clip's end.
  ASSERT_EQ(document.add(0, "Third", walk / 3, 0, &a), "");
  ASSERT_EQ(document.add(0, "Tiny", std::nextafter(0.1f, 1.f), 0.1f, &b), "");
  ASSERT_EQ(document.add(0, "End", walk, 0, &c), "");
  ASSERT_EQ(document.add(0, "Tail", walk * 0.7f, walk, &d), "");  // clamped to end at the clip's end
  const float tail_end = document.find(0, d)->time + document.find(0, d)->duration;
  EXPECT_LE(tail_end, walk);
  EXPECT_GE(tail_end, std::nextafter(walk, 0.f));
  ASSERT_EQ(
      document.set_payload(0, a, R"({"sound": "step", "gain": 0.1, "tags": ["a", "ü"], "n": 12345678901})"),
      "");
  ASSERT_EQ(document.set_payload(0, b, "null"), "");
  ASSERT_EQ(document.set_payload(0, c, R"("a \"quoted\" string")"), "");
  ASSERT_EQ(document.add(2, "Name with \"quotes\" and ü", 0.25f, 0), "");

  const std::string dir = fresh_dir("save");
  const std::string path = dir + "/model.notifies.json";
  ASSERT_TRUE(document.save(path).ok());
  EXPECT_FALSE(document.dirty());
  auto loaded = load_notifies_for(character(), path);
  ASSERT_TRUE(loaded.ok()) << loaded.error() << "\n" << read_all(path);
  EXPECT_EQ(events_of(*loaded), events_of(document)) << read_all(path);
  EXPECT_EQ(events_of(*loaded).size(), 5u);
  // The payload as the library gives it to a game is what the document holds (canonical: keys sorted).
  EXPECT_EQ(document.find(0, a)->payload, R"({"gain":0.1,"n":12345678901,"sound":"step","tags":["a","ü"]})");
  EXPECT_EQ(read_all(path), document.to_json());
}

TEST(ViewerDocument, FloatsRoundTripInLongClipsToTheLastUlp) {
  // Far from zero a float's ulp is larger than the loader's 1e-6 s tolerance: times at the very end of a long
  // clip and states ending there must still load.
  // 3600.7f is 3600.69995...: its shortest decimal, "3600.7", reads as a double 4.9e-5 s past the clip's end.
  const std::vector<ClipTiming> clips = {{"Long", 3600.7f}, {"Short", 0.7f}};
  NotifyDocument document(NotifySet{}, clips);
  std::mt19937 random(7);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  for (int i = 0; i < 200; ++i) {
    const int clip = i % 2;
    const float length = clips[clip].duration;
    const std::string name = std::string(1, 'N') + std::to_string(i % 7);
    ASSERT_EQ(document.add(clip, name, unit(random) * length, unit(random) * length), "");
  }
  ASSERT_EQ(document.add(0, "AtEnd", clips[0].duration, 0), "");
  ASSERT_EQ(document.add(0, "StateToEnd", std::nextafter(clips[0].duration, 0.f), 1000), "");
  ASSERT_EQ(document.add(1, "WholeClip", 0, 1e9f), "");
  for (int clip = 0; clip < 2; ++clip)
    for (const EditableNotify& e : document.notifies(clip)) {
      EXPECT_GE(e.time, 0);
      EXPECT_LE(e.time + e.duration, clips[clip].duration);  // in float, as the loader checks it
    }
  auto parsed = parse_notifies(document.to_json(), "saved", clips);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(events_of(*parsed), events_of(document));
  // Short decimals where they read back exactly: 0.25 is written "0.25", not "0.25000000".
  NotifyDocument simple(NotifySet{}, clips);
  ASSERT_EQ(simple.add(1, "Quarter", 0.25f, 0.1f), "");
  EXPECT_NE(simple.to_json().find(R"({"name":"Quarter","time":0.25,"duration":0.1})"), std::string::npos)
      << simple.to_json();
}

TEST(ViewerDocument, ClampsTimesAndDurationsIntoTheClip) {
  NotifyDocument document(NotifySet{}, {{"Clip", 2.0f}});
  uint32_t early = 0, late = 0, state = 0;
  ASSERT_EQ(document.add(0, "Early", -1, -3, &early), "");
  ASSERT_EQ(document.add(0, "Late", 5, 0, &late), "");
  ASSERT_EQ(document.add(0, "State", 1.5f, 4, &state), "");
  EXPECT_EQ(brief(document, 0),
            (std::vector<Brief>{{"Early", 0.f, 0.f}, {"State", 1.5f, 0.5f}, {"Late", 2.f, 0.f}}));
  // A move keeps the duration and shifts the state so it ends inside the clip.
  ASSERT_EQ(document.set_duration(0, state, 0.5f), "");
  ASSERT_EQ(document.move(0, state, 1.9f), "");
  EXPECT_EQ(document.find(0, state)->time, 1.5f);
  EXPECT_EQ(document.find(0, state)->duration, 0.5f);
  ASSERT_EQ(document.move(0, state, -7), "");
  EXPECT_EQ(document.find(0, state)->time, 0.f);
  // Duration clamped to the clip's remainder; 0 or less makes an instant.
  ASSERT_EQ(document.set_duration(0, state, 10), "");
  EXPECT_EQ(document.find(0, state)->duration, 2.f);
  ASSERT_EQ(document.set_duration(0, state, -1), "");
  EXPECT_EQ(document.find(0, state)->duration, 0.f);
  ASSERT_EQ(document.move(0, late, 1.25f), "");
  EXPECT_EQ(document.find(0, late)->time, 1.25f);
  // Order: by time, then by id (the earlier added first).
  uint32_t twin = 0;
  ASSERT_EQ(document.add(0, "Twin", 1.25f, 0, &twin), "");
  EXPECT_GT(twin, late);
  const auto& list = document.notifies(0);
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[2].id, late);
  EXPECT_EQ(list[3].id, twin);
}

TEST(ViewerDocument, RefusedEditsChangeNothing) {
  std::vector<ClipTiming> clips = {{"Walk", 1}, {"Walk", 1}, {std::string("Bad\xff", 4), 1}};
  NotifyDocument document(NotifySet{}, clips);
  uint32_t id = 0;
  ASSERT_EQ(document.add(0, "A", 0.5f, 0, &id), "");
  const std::string before = document.to_json();
  const std::vector<Event> events = events_of(document);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<std::string> refusals = {
      document.add(3, "A", 0, 0),
      document.add(-1, "A", 0, 0),
      document.add(1, "A", 0, 0),  // the sidecar could only name the first "Walk"
      document.add(2, "A", 0, 0),  // a clip name JSON cannot hold
      document.add(0, "", 0, 0),
      document.add(0, std::string("\xc3", 1), 0, 0),
      document.add(0, "A", nan, 0),
      document.add(0, "A", 0, inf),
      document.move(0, id + 1, 0.1f),
      document.move(0, id, nan),
      document.set_duration(0, id, nan),
      document.rename(0, id, ""),
      document.rename(0, 12345, "B"),
      document.set_payload(0, id, "{\"a\": }"),
      document.set_payload(0, id, "{} {}"),
      document.set_payload(0, id, std::string(100, '[') + std::string(100, ']')),
      document.remove(0, id + 1),
      document.remove(1, id),
  };
  for (size_t i = 0; i < refusals.size(); ++i) EXPECT_NE(refusals[i], "") << "refusal " << i;
  EXPECT_EQ(document.to_json(), before);
  EXPECT_EQ(events_of(document), events);
  ASSERT_TRUE(document.undo());  // only the one add was a step
  EXPECT_FALSE(document.can_undo());
}

TEST(ViewerDocument, UndoRedoWalkThroughExactStates) {
  NotifyDocument document(NotifySet{}, {{"Clip", 4.0f}});
  uint32_t a = 0, b = 0;
  const std::vector<Brief> s0 = {};
  ASSERT_EQ(document.add(0, "A", 1, 0, &a), "");
  const std::vector<Brief> s1 = {{"A", 1.f, 0.f}};
  ASSERT_EQ(document.add(0, "B", 0.5f, 1, &b), "");
  const std::vector<Brief> s2 = {{"B", 0.5f, 1.f}, {"A", 1.f, 0.f}};
  ASSERT_EQ(document.move(0, a, 3), "");
  const std::vector<Brief> s3 = {{"B", 0.5f, 1.f}, {"A", 3.f, 0.f}};
  ASSERT_EQ(document.rename(0, b, "Swing"), "");
  const std::vector<Brief> s4 = {{"Swing", 0.5f, 1.f}, {"A", 3.f, 0.f}};
  ASSERT_EQ(document.remove(0, a), "");
  const std::vector<Brief> s5 = {{"Swing", 0.5f, 1.f}};
  EXPECT_EQ(brief(document, 0), s5);

  const std::vector<std::vector<Brief>> states = {s0, s1, s2, s3, s4, s5};
  for (int i = 4; i >= 0; --i) {
    ASSERT_TRUE(document.undo());
    EXPECT_EQ(brief(document, 0), states[i]) << "after undo to state " << i;
  }
  EXPECT_FALSE(document.can_undo());
  EXPECT_FALSE(document.undo());
  for (int i = 1; i <= 5; ++i) {
    ASSERT_TRUE(document.redo());
    EXPECT_EQ(brief(document, 0), states[i]) << "after redo to state " << i;
  }
  EXPECT_FALSE(document.can_redo());
  EXPECT_FALSE(document.redo());
  // Ids survive undo and redo: a drag in progress keeps finding its notify.
  ASSERT_TRUE(document.undo());  // the remove of A, undone
  ASSERT_NE(document.find(0, a), nullptr);
  EXPECT_EQ(document.find(0, a)->name, "A");
  EXPECT_EQ(document.find(0, b)->name, "Swing");
}

TEST(ViewerDocument, ANewEditAfterUndoClearsRedo) {
  NotifyDocument document(NotifySet{}, {{"Clip", 4.0f}});
  ASSERT_EQ(document.add(0, "A", 1, 0), "");
  ASSERT_EQ(document.add(0, "B", 2, 0), "");
  ASSERT_TRUE(document.undo());
  EXPECT_TRUE(document.can_redo());
  ASSERT_EQ(document.add(0, "C", 3, 0), "");
  EXPECT_FALSE(document.can_redo());
  EXPECT_FALSE(document.redo());
  EXPECT_EQ(brief(document, 0), (std::vector<Brief>{{"A", 1.f, 0.f}, {"C", 3.f, 0.f}}));
  // An edit that changes nothing is no step and keeps redo.
  ASSERT_TRUE(document.undo());
  const uint32_t a = document.notifies(0)[0].id;
  ASSERT_EQ(document.move(0, a, 1), "");
  ASSERT_EQ(document.rename(0, a, "A"), "");
  EXPECT_TRUE(document.can_redo());
  ASSERT_TRUE(document.redo());
  EXPECT_EQ(brief(document, 0), (std::vector<Brief>{{"A", 1.f, 0.f}, {"C", 3.f, 0.f}}));
}

TEST(ViewerDocument, AGroupIsOneUndoStep) {
  NotifyDocument document(NotifySet{}, {{"Clip", 4.0f}});
  uint32_t a = 0;
  ASSERT_EQ(document.add(0, "A", 1, 0, &a), "");
  // A drag: many moves, one step; nested groups join the outer one.
  document.begin_group();
  for (int i = 1; i <= 20; ++i) ASSERT_EQ(document.move(0, a, 1 + i * 0.1f), "");
  document.begin_group();
  ASSERT_EQ(document.set_duration(0, a, 0.5f), "");
  document.end_group();
  EXPECT_TRUE(document.can_undo());
  document.end_group();
  const float dragged = document.find(0, a)->time;
  EXPECT_EQ(dragged, 1 + 20 * 0.1f);
  ASSERT_TRUE(document.undo());
  EXPECT_EQ(brief(document, 0), (std::vector<Brief>{{"A", 1.f, 0.f}}));
  ASSERT_TRUE(document.redo());
  EXPECT_EQ(brief(document, 0), (std::vector<Brief>{{"A", dragged, 0.5f}}));
  // A drag that ends where it started is no step.
  ASSERT_TRUE(document.undo());
  document.begin_group();
  ASSERT_EQ(document.move(0, a, 2), "");
  ASSERT_EQ(document.move(0, a, 1), "");
  document.end_group();
  EXPECT_TRUE(document.can_redo());  // nothing changed: the redo step is still there
  // Undo while a drag is open ends the drag, then undoes it; the late end_group() is harmless.
  document.begin_group();
  ASSERT_EQ(document.move(0, a, 3), "");
  ASSERT_TRUE(document.undo());
  EXPECT_EQ(brief(document, 0), (std::vector<Brief>{{"A", 1.f, 0.f}}));
  document.end_group();
  document.end_group();  // unbalanced: ignored
  ASSERT_TRUE(document.undo());
  EXPECT_TRUE(document.notifies(0).empty());
}

TEST(ViewerDocument, DirtyComparesWithTheSavedState) {
  NotifyDocument document = sample_document();
  EXPECT_FALSE(document.dirty());
  const uint32_t first = document.notifies(0).at(0).id;
  ASSERT_EQ(document.move(0, first, 0.3f), "");
  EXPECT_TRUE(document.dirty());
  ASSERT_TRUE(document.undo());
  EXPECT_FALSE(document.dirty());  // back to what the file holds
  ASSERT_TRUE(document.redo());
  EXPECT_TRUE(document.dirty());
  const std::string path = fresh_dir("dirty") + "/sample.notifies.json";
  ASSERT_TRUE(document.save(path).ok());
  EXPECT_FALSE(document.dirty());
  ASSERT_TRUE(document.undo());
  EXPECT_TRUE(document.dirty());  // the file has the moved notify
  ASSERT_TRUE(document.redo());
  EXPECT_FALSE(document.dirty());
  // Removing a notify and adding an equal one back is the saved content again.
  const EditableNotify copy = *document.find(0, first);
  ASSERT_EQ(document.remove(0, first), "");
  uint32_t readded = 0;
  ASSERT_EQ(document.add(0, copy.name, copy.time, copy.duration, &readded), "");
  ASSERT_EQ(document.set_payload(0, readded, copy.payload), "");
  EXPECT_FALSE(document.dirty()) << document.to_json();
  ASSERT_EQ(document.rename(0, readded, "Other"), "");
  EXPECT_TRUE(document.dirty());
  document.mark_saved();
  EXPECT_FALSE(document.dirty());
}

TEST(ViewerDocument, RestoreTakesASetBackAsOneUndoStep) {
  NotifyDocument document = sample_document();
  const std::vector<Event> loaded = events_of(document);
  NotifyDocument edited = sample_document();
  const uint32_t first = edited.notifies(0).at(0).id;
  ASSERT_EQ(edited.move(0, first, 0.3f), "");
  ASSERT_EQ(edited.add(1, "Recovered", 0.25f, 0), "");
  auto set = edited.to_notify_set(character());
  ASSERT_TRUE(set.ok()) << set.error();

  EXPECT_TRUE(document.restore(*set));
  EXPECT_EQ(events_of(document), events_of(edited));
  EXPECT_TRUE(document.dirty());
  EXPECT_FALSE(document.restore(*set));  // already what it holds: no step
  ASSERT_TRUE(document.undo());
  EXPECT_EQ(events_of(document), loaded);
  EXPECT_FALSE(document.dirty());
  EXPECT_FALSE(document.can_undo());
  ASSERT_TRUE(document.redo());
  EXPECT_EQ(events_of(document), events_of(edited));
  // Ids stay unique: an edit after a restore finds the notify it names.
  const uint32_t id = document.notifies(1).back().id;
  EXPECT_EQ(document.rename(1, id, "Renamed"), "");
  EXPECT_EQ(document.notifies(1).back().name, "Renamed");
}

TEST(ViewerDocument, AFailedSaveKeepsTheDocumentDirtyAndThePreviousFile) {
  NotifyDocument document(NotifySet{}, timings_of(character()));
  const std::string dir = fresh_dir("failed-save");
  ASSERT_EQ(document.add(0, "A", 0.1f, 0), "");
  EXPECT_FALSE(document.save(dir + "/missing-folder/x.notifies.json").ok());
  EXPECT_TRUE(document.dirty());
  const std::string path = dir + "/x.notifies.json";
  ASSERT_TRUE(document.save(path).ok());
  const std::string saved = read_all(path);
  ASSERT_EQ(document.add(0, "B", 0.2f, 0), "");
  EXPECT_FALSE(document.save(dir).ok());  // a folder cannot be replaced by a file
  EXPECT_TRUE(document.dirty());
  EXPECT_EQ(read_all(path), saved);
}

TEST(ViewerDocument, PayloadErrorAcceptsExactlyWhatTheLibraryLoads) {
  EXPECT_EQ(NotifyDocument::payload_error(""), "");
  EXPECT_EQ(NotifyDocument::payload_error("  \n"), "");
  EXPECT_EQ(NotifyDocument::payload_error(R"({"a": [1, 2.5, "x", null, true]})"), "");
  EXPECT_EQ(NotifyDocument::payload_error("42"), "");
  EXPECT_NE(NotifyDocument::payload_error("{"), "");
  EXPECT_NE(NotifyDocument::payload_error("{'a': 1}"), "");
  EXPECT_NE(NotifyDocument::payload_error("[1,]"), "");
  EXPECT_NE(NotifyDocument::payload_error("\"\xff\""), "");                 // not UTF-8
  EXPECT_NE(NotifyDocument::payload_error(std::string(1 << 20, '[')), "");  // never a deep recursion
  EXPECT_NE(NotifyDocument::payload_error(std::string("[1, 2") + std::string(3, '\0') + "]"), "");
  // The deepest payload accepted is the deepest the library loads inside a sidecar, and one deeper fails.
  const std::vector<ClipTiming> clips = {{"Clip", 1}};
  for (int depth : {59, 60, 61}) {
    const std::string payload = std::string(depth, '[') + std::string(depth, ']');
    const bool accepted = NotifyDocument::payload_error(payload).empty();
    const std::string sidecar =
        R"({"clips": {"Clip": [{"name": "N", "time": 0, "payload": )" + payload + "}]}}";
    const bool loads = parse_notifies(sidecar, "test", clips).ok();
    EXPECT_EQ(accepted, loads) << "depth " << depth;
    if (accepted) {
      NotifyDocument document(NotifySet{}, clips);
      uint32_t id = 0;
      ASSERT_EQ(document.add(0, "N", 0, 0, &id), "");
      ASSERT_EQ(document.set_payload(0, id, payload), "");
      auto parsed = parse_notifies(document.to_json(), "saved", clips);
      ASSERT_TRUE(parsed.ok()) << parsed.error();
      EXPECT_EQ(parsed->clips[0].instants.at(0).payload, payload);
    }
  }
  EXPECT_TRUE(NotifyDocument::payload_error(std::string(60, '[') + std::string(60, ']')).empty());
  EXPECT_FALSE(NotifyDocument::payload_error(std::string(61, '[') + std::string(61, ']')).empty());
}

// ---------------------------------------------------------------------------------------------- timeline

TEST(ViewerTimeline, XAndTimeAreInversesAcrossZoomAndPan) {
  TimelineView view;
  view.set_clip(2.5f, 30);
  view.set_width(800);
  EXPECT_EQ(view.start(), 0);
  EXPECT_EQ(view.end(), 2.5f);
  EXPECT_FLOAT_EQ(view.time_to_x(0), 0);
  EXPECT_FLOAT_EQ(view.time_to_x(2.5f), 800);
  EXPECT_FLOAT_EQ(view.time_to_x(1.25f), 400);
  for (int step = 0; step < 6; ++step) {
    for (float t : {0.f, 0.1f, 0.77f, 1.3f, 2.5f})
      EXPECT_NEAR(view.x_to_time(view.time_to_x(t)), t, 1e-5) << "step " << step;
    for (float x : {0.f, 13.f, 400.f, 799.f}) EXPECT_NEAR(view.time_to_x(view.x_to_time(x)), x, 1e-2);
    EXPECT_FLOAT_EQ(view.time_to_x(view.start()), 0);
    EXPECT_NEAR(view.time_to_x(view.end()), 800, 1e-2);
    view.zoom(1.7f, 300);
    view.pan(-25);
  }
}

TEST(ViewerTimeline, ZoomKeepsTheTimeUnderTheAnchor) {
  TimelineView view;
  view.set_clip(10, 24);
  view.set_width(1000);
  for (float anchor : {500.f, 123.f, 877.f}) {
    view.show_all();
    view.zoom(2, 500);  // away from the clip's ends, so that no clamping moves the view
    const float before = view.x_to_time(anchor);
    const float span = view.end() - view.start();
    view.zoom(1.5f, anchor);
    EXPECT_NEAR(view.x_to_time(anchor), before, 1e-5) << anchor;
    EXPECT_NEAR(view.end() - view.start(), span / 1.5f, 1e-5);
    view.zoom(1 / 1.5f, anchor);
    EXPECT_NEAR(view.x_to_time(anchor), before, 1e-5) << anchor;
    EXPECT_NEAR(view.end() - view.start(), span, 1e-5);
  }
}

TEST(ViewerTimeline, ZoomAndPanStayWithinTheirLimits) {
  TimelineView view;
  view.set_clip(10, 30);
  view.set_width(1200);
  view.zoom(1e6f, 600);  // in as far as it goes: one frame per 40 pixels
  EXPECT_NEAR(view.time_to_x(1.f / 30) - view.time_to_x(0), 40, 1e-2);
  EXPECT_NEAR(view.end() - view.start(), 1200.f / 40 / 30, 1e-5);
  view.pan(1e9f);  // far right drag: the clip's start comes into view, no further
  EXPECT_EQ(view.start(), 0);
  view.pan(-1e9f);
  EXPECT_FLOAT_EQ(view.end(), 10);
  EXPECT_NEAR(view.end() - view.start(), 1.f, 1e-5);
  view.pan(40);  // content follows the pointer: 40 px right shows one frame earlier
  EXPECT_NEAR(view.end(), 10 - 1.f / 30, 1e-4);
  view.zoom(1e-6f, 0);  // out as far as it goes: the whole clip
  EXPECT_EQ(view.start(), 0);
  EXPECT_EQ(view.end(), 10);
  // Junk changes nothing; a narrower window keeps the view inside the limit.
  view.zoom(std::numeric_limits<float>::quiet_NaN(), 10);
  view.zoom(-2, 10);
  view.zoom(0, 10);
  view.pan(std::numeric_limits<float>::infinity());
  EXPECT_EQ(view.start(), 0);
  EXPECT_EQ(view.end(), 10);
  view.set_width(std::numeric_limits<float>::quiet_NaN());
  EXPECT_GE(view.width(), 1);
  // A clip shorter than the zoom limit cannot zoom in; an empty clip maps everything to 0.
  view.set_clip(0.01f, 30);
  view.set_width(1000);
  view.zoom(10, 500);
  EXPECT_FLOAT_EQ(view.end() - view.start(), 0.01f);
  view.set_clip(0, 30);
  view.zoom(3, 100);
  EXPECT_EQ(view.time_to_x(0), 0);
  EXPECT_EQ(view.x_to_time(500), 0);
  EXPECT_EQ(view.ticks().size(), 1u);
}

TEST(ViewerTimeline, TicksAreOnFramesWithLabelsAtLeast60PixelsApart) {
  std::vector<long long> nice;  // 1, 2, 5, 10, 20, 50, ...
  for (long long decade = 1; decade <= 1000000000; decade *= 10)
    for (long long digit : {1, 2, 5}) nice.push_back(digit * decade);
  TimelineView view;
  for (float width : {200.f, 640.f, 1920.f})
    for (float rate : {24.f, 30.f, 60.f}) {
      for (float duration : {0.5f, 3.f, 65.f, 3600.f}) {
        view.set_clip(duration, rate);
        view.set_width(width);
        for (int zoom_step = 0; zoom_step < 12; ++zoom_step, view.zoom(2.3f, width * 0.37f)) {
          const std::vector<Tick> ticks = view.ticks();
          ASSERT_FALSE(ticks.empty());
          const double pixels_per_frame = width / ((view.end() - view.start()) * double{rate});
          std::vector<const Tick*> majors;
          for (const Tick& t : ticks) {
            const double frame = t.time * double{rate};
            EXPECT_NEAR(frame, std::round(frame), 1e-3 * std::max(1.0, frame));  // on a frame
            EXPECT_GE(t.x, -0.5f);
            EXPECT_LE(t.x, width + 0.5f);
            EXPECT_NEAR(t.x, view.time_to_x(t.time), 1e-3);
            if (t.major) {
              EXPECT_EQ(t.label, std::to_string(std::llround(frame)));
              majors.push_back(&t);
            } else {
              EXPECT_EQ(t.label, "");
            }
          }
          // The major step: the smallest nice number of frames at least 60 pixels wide.
          const long long step = *std::find_if(
              nice.begin(), nice.end(), [&](long long n) { return n * pixels_per_frame >= 60 - 1e-3; });
          for (size_t i = 1; i < majors.size(); ++i) {
            EXPECT_GE(majors[i]->x - majors[i - 1]->x, 60 - 0.05);
            EXPECT_EQ(std::llround(majors[i]->time * double{rate}) -
                          std::llround(majors[i - 1]->time * double{rate}),
                      step);
          }
          for (const Tick* t : majors) EXPECT_EQ(std::llround(t->time * double{rate}) % step, 0);
          // A view that spans more than two steps shows a label.
          if ((view.end() - view.start()) * rate >= 2 * step) {
            EXPECT_FALSE(majors.empty());
          }
          EXPECT_LE(ticks.size(), width / 5 + 2);  // minor ticks are not a carpet
        }
      }
    }
}

TEST(ViewerTimeline, SnappedTimeIsTheNearestFrameInsideTheClip) {
  TimelineView view;
  view.set_clip(1.0f, 10);
  view.set_width(1000);  // 100 px a frame
  EXPECT_FLOAT_EQ(view.snapped_time(0), 0);
  EXPECT_FLOAT_EQ(view.snapped_time(149), 0.1f);
  EXPECT_FLOAT_EQ(view.snapped_time(151), 0.2f);
  EXPECT_FLOAT_EQ(view.snapped_time(-500), 0);
  EXPECT_FLOAT_EQ(view.snapped_time(5000), 1);
  view.set_clip(1.05f, 10);  // the clip ends between frames: the end is as far as a snap goes
  view.set_width(1050);
  EXPECT_FLOAT_EQ(view.snapped_time(1049), 1.05f);
  EXPECT_FLOAT_EQ(view.snapped_time(1020), 1.0f);
  view.set_clip(1.0f, 0);  // no frame rate: no snapping
  view.set_width(1000);
  EXPECT_FLOAT_EQ(view.snapped_time(123), 0.123f);
  // The same rule for a time (the playhead's, a drag's): frame 10 of a 30 fps clip, the end, the ends.
  EXPECT_EQ(TimelineView::snap_to_frame(0.336f, 1.f, 30), static_cast<float>(10.0 / 30.0));
  EXPECT_EQ(TimelineView::snap_to_frame(1.04f, 1.05f, 10), 1.05f);
  EXPECT_EQ(TimelineView::snap_to_frame(-1.f, 1.f, 30), 0.f);
  EXPECT_EQ(TimelineView::snap_to_frame(std::nanf(""), 1.f, 30), 0.f);
  EXPECT_EQ(TimelineView::snap_to_frame(0.123f, 1.f, 0), 0.123f);
}

#ifdef OSSA_VIEWER_HAS_CAMERA
// F frames the character from where the camera looks: target and distance as a fresh frame gives them, the
// orbit angles kept (it used to swing back to the front view).
TEST(ViewerCamera, StandardViewsLookFromTheirSide) {
  OrbitCamera camera;
  camera.frame({-0.5f, 0, -0.2f}, {0.5f, 1.8f, 0.2f}, 1.5f);
  const Vec3 target = camera.target;
  const float distance = camera.distance;
  const std::pair<OrbitCamera::View, Vec3> views[] = {{OrbitCamera::View::kFront, {0, 0, 1}},
                                                      {OrbitCamera::View::kSide, {1, 0, 0}},
                                                      {OrbitCamera::View::kTop, {0, 1, 0}}};
  for (const auto& [view, from] : views) {
    camera.look_from(view);
    const Camera c = camera.camera();
    const Vec3 d = normalize(c.eye - c.target);
    EXPECT_GT(d.x * from.x + d.y * from.y + d.z * from.z, 0.999f) << d.x << " " << d.y << " " << d.z;
    EXPECT_NEAR(length(c.eye - c.target), distance, 1e-4f);
    EXPECT_NEAR(length(c.target - target), 0, 1e-6f);
  }
  camera.look_from(OrbitCamera::View::kTop);  // from above, the front (+z) at the bottom of the view
  EXPECT_GT(camera.camera().eye.z, camera.target.z);
}

TEST(ViewerCamera, FollowingKeepsTheViewOfATravellingCharacter) {
  OrbitCamera camera;
  camera.frame({-0.5f, 0, -0.2f}, {0.5f, 1.8f, 0.2f}, 1.5f);
  const Camera before = camera.camera();
  camera.follow({0, 0, 0}, {1.5f, 0.3f, -2});  // walked 1.5 m right and 2 m away, up a 0.3 m step
  const Camera after = camera.camera();
  EXPECT_NEAR(length((after.eye - before.eye) - Vec3{1.5f, 0, -2}), 0, 1e-6f);
  EXPECT_NEAR(length((after.target - before.target) - Vec3{1.5f, 0, -2}), 0, 1e-6f);
  camera.follow({0, 0, 0}, {std::nanf(""), 0, 0});  // nothing finite to follow
  EXPECT_NEAR(length(camera.camera().target - after.target), 0, 1e-6f);
}

TEST(ViewerCamera, RefitKeepsTheOrbitAngles) {
  const Vec3 lo{-0.5f, 0, -0.3f}, hi{0.5f, 1.8f, 0.3f};
  OrbitCamera fresh, camera;
  fresh.frame(lo, hi, 1.5f);
  camera.frame(lo, hi, 1.5f);
  camera.orbit(120, -40);
  camera.pan(30, 10, 400);
  camera.zoom(3);
  const float yaw = camera.yaw, pitch = camera.pitch;
  ASSERT_NE(yaw, fresh.yaw);
  camera.refit(lo, hi, 1.5f);
  EXPECT_EQ(camera.yaw, yaw);
  EXPECT_EQ(camera.pitch, pitch);
  EXPECT_EQ(camera.distance, fresh.distance);
  EXPECT_EQ(camera.target.x, fresh.target.x);
  EXPECT_EQ(camera.target.y, fresh.target.y);
  EXPECT_EQ(camera.target.z, fresh.target.z);
}
#endif

TEST(ViewerTimeline, LanesAreOneANameOrderedByTheirFirstNotify) {
  NotifyDocument document(NotifySet{}, {{"Clip", 4}});
  uint32_t b1 = 0, a1 = 0, b2 = 0, c1 = 0;
  ASSERT_EQ(document.add(0, "B", 2, 0, &b2), "");
  ASSERT_EQ(document.add(0, "A", 1, 1, &a1), "");
  ASSERT_EQ(document.add(0, "B", 0.5f, 0, &b1), "");
  ASSERT_EQ(document.add(0, "C", 3, 0, &c1), "");
  const std::vector<Lane> lanes = TimelineView::lanes(document, 0);
  ASSERT_EQ(lanes.size(), 3u);
  EXPECT_EQ(lanes[0].name, "B");
  EXPECT_EQ(lanes[0].ids, (std::vector<uint32_t>{b1, b2}));
  EXPECT_EQ(lanes[1].name, "A");
  EXPECT_EQ(lanes[1].ids, (std::vector<uint32_t>{a1}));
  EXPECT_EQ(lanes[2].name, "C");
  EXPECT_TRUE(TimelineView::lanes(document, 1).empty());
}

TEST(ViewerTimeline, LanesKeepTheirOrderDuringADrag) {
  // C's notify dragged before A's and B's: by first notify the lanes would swap under the pointer.
  NotifyDocument document(NotifySet{}, {{"Clip", 4}});
  uint32_t a = 0, b = 0, c = 0;
  ASSERT_EQ(document.add(0, "A", 1, 0, &a), "");
  ASSERT_EQ(document.add(0, "B", 2, 0, &b), "");
  ASSERT_EQ(document.add(0, "C", 3, 0, &c), "");
  std::vector<std::string> order;
  for (const Lane& lane : TimelineView::lanes(document, 0)) order.push_back(lane.name);
  ASSERT_EQ(order, (std::vector<std::string>{"A", "B", "C"}));
  ASSERT_EQ(document.move(0, c, 0.5f), "");
  EXPECT_EQ(TimelineView::lanes(document, 0).front().name, "C");  // without the kept order
  const std::vector<Lane> kept = TimelineView::lanes(document, 0, order);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[2].name, "C");
  EXPECT_EQ(kept[2].ids, std::vector<uint32_t>{c});
  // Hit testing uses the same lanes: C's marker is in the third lane while the drag goes on.
  TimelineView view;
  view.set_clip(4, 30);
  view.set_width(400);
  const float x = view.time_to_x(0.5f);
  EXPECT_EQ(view.hit_test(document, 0, x, 2.5f * 20, 20, 5, order).id, c);
  EXPECT_EQ(view.hit_test(document, 0, x, 0.5f * 20, 20).id, c);  // first lane by first notify
  // A name of the kept order without notifies (renamed, removed) leaves no empty lane.
  ASSERT_EQ(document.remove(0, b), "");
  EXPECT_EQ(TimelineView::lanes(document, 0, order).size(), 2u);
}

TEST(ViewerTimeline, HitTestFindsMarkersBarsAndEndGrips) {
  NotifyDocument document(NotifySet{}, {{"Clip", 4}});
  uint32_t instant = 0, state = 0, narrow = 0, other = 0;
  ASSERT_EQ(document.add(0, "Step", 1, 0, &instant), "");         // lane 0, x = 100
  ASSERT_EQ(document.add(0, "Swing", 2, 1, &state), "");          // lane 1, x 200..300
  ASSERT_EQ(document.add(0, "Swing", 3.5f, 0.04f, &narrow), "");  // lane 1, x 350..354
  ASSERT_EQ(document.add(0, "Step", 3, 0, &other), "");           // lane 0, x = 300
  TimelineView view;
  view.set_clip(4, 30);
  view.set_width(400);  // 100 px a second
  const float lane = 20;
  auto hit = [&](float x, float y) { return view.hit_test(document, 0, x, y, lane); };
  EXPECT_EQ(hit(100, 10).part, HitPart::kBody);
  EXPECT_EQ(hit(100, 10).id, instant);
  EXPECT_EQ(hit(104.9f, 0).id, instant);
  EXPECT_EQ(hit(95.1f, 19.9f).id, instant);
  EXPECT_EQ(hit(106, 10).part, HitPart::kNone);
  EXPECT_EQ(hit(100, 25).part, HitPart::kNone);  // lane 1 has nothing at x = 100
  EXPECT_EQ(hit(100, -1).part, HitPart::kNone);
  EXPECT_EQ(hit(300, 10).id, other);
  // The state: its body, its end grip (the last 5 px), nothing past its end.
  EXPECT_EQ(hit(200, 30).part, HitPart::kBody);
  EXPECT_EQ(hit(250, 30).id, state);
  EXPECT_EQ(hit(294, 30).part, HitPart::kBody);
  EXPECT_EQ(hit(296, 30).part, HitPart::kEnd);
  EXPECT_EQ(hit(300, 30).part, HitPart::kEnd);
  EXPECT_EQ(hit(300, 30).id, state);
  EXPECT_EQ(hit(301, 30).part, HitPart::kNone);
  EXPECT_EQ(hit(199, 30).part, HitPart::kNone);
  // A bar narrower than two grips: its left half is the body, its right half the grip.
  EXPECT_EQ(hit(351, 30).part, HitPart::kBody);
  EXPECT_EQ(hit(351, 30).id, narrow);
  EXPECT_EQ(hit(353, 30).part, HitPart::kEnd);
  EXPECT_EQ(hit(353, 30).id, narrow);
  EXPECT_EQ(hit(350, 45).part, HitPart::kNone);  // no lane 2
  // Zoomed in, the same notifies are where time_to_x says.
  view.zoom(4, 250);
  const float x = view.time_to_x(2.5f);
  EXPECT_EQ(view.hit_test(document, 0, x, 30, lane).id, state);
  EXPECT_EQ(view.hit_test(document, 0, view.time_to_x(3) - 1, 30, lane).part, HitPart::kEnd);
  // Junk in, nothing out.
  EXPECT_EQ(view.hit_test(document, 0, std::numeric_limits<float>::quiet_NaN(), 5, lane).part,
            HitPart::kNone);
  EXPECT_EQ(view.hit_test(document, 0, 100, 5, 0).part, HitPart::kNone);
  EXPECT_EQ(view.hit_test(document, 7, 100, 5, lane).part, HitPart::kNone);
}

// ---------------------------------------------------------------------------------------------- scripts

TEST(ViewerScript, ParsesEveryActionWithItsWordsNumbersAndLines) {
  const std::string script =
      "# a comment line\n"
      "open \"assets/sample/ossa sample.fbx\"\n"
      "play Walk   # trailing comment\n"
      "\n"
      "pause\r\n"
      "resume\n"
      "seek 0.5\n"
      "speed -1.5\n"
      "step -3\n"
      "loop pingpong\n"
      "crossfade \"Armature|Run\" 0.25 sync\n"
      "root-motion off\n"
      "lighting texture-only\n"
      "skinning baked\n"
      "crowd 16\n"
      "skeleton on\n"
      "layer Wave 0.5 \"Upper arm\"\n"
      "layer off\n"
      "select-joint spine_01\n"
      "add-notify \"Left foot\" 0.2\n"
      "move-notify FootL 1e-1\n"
      "duration-notify FootL 0.3\n"
      "rename-notify FootL \"Foot \\\"L\\\"\"\n"
      "payload-notify \"Left foot\"   {\"sound\": \"step # grass\", \"gain\": [1, 2]}  \n"
      "delete-notify FootL\n"
      "undo\n"
      "redo\n"
      "save\n"
      "save out/walk.notifies.json\n"
      "click 100 200.5\n"
      "drag 1 2 3 4\n"
      "screenshot shots/Timeline.PNG\n"
      "wait 60\n"
      "expect-error\n"
      "expect-clip Walk\n"
      "expect-events 3\n"
      "quit 2";
  auto parsed = parse_script(script, "demo.txt");
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  const auto& actions = *parsed;
  ASSERT_EQ(actions.size(), 35u);
  auto at = [&](const std::string& name, int nth = 0) -> const ScriptAction& {
    for (const ScriptAction& a : actions)
      if (a.action == name && nth-- == 0) return a;
    ADD_FAILURE() << "no " << name;
    return actions[0];
  };
  EXPECT_EQ(at("open").words, std::vector<std::string>{"assets/sample/ossa sample.fbx"});
  EXPECT_EQ(at("open").line, 2);
  EXPECT_EQ(at("play").words, std::vector<std::string>{"Walk"});
  EXPECT_EQ(at("pause").line, 5);
  EXPECT_TRUE(at("pause").words.empty());
  EXPECT_EQ(at("seek").numbers, std::vector<double>{0.5});
  EXPECT_EQ(at("speed").numbers, std::vector<double>{-1.5});
  EXPECT_EQ(at("step").numbers, std::vector<double>{-3});
  EXPECT_EQ(at("crossfade").words, (std::vector<std::string>{"Armature|Run", "0.25", "sync"}));
  EXPECT_EQ(at("crossfade").numbers, std::vector<double>{0.25});
  EXPECT_EQ(at("layer").words, (std::vector<std::string>{"Wave", "0.5", "Upper arm"}));
  EXPECT_EQ(at("layer", 1).words, std::vector<std::string>{"off"});
  EXPECT_EQ(at("add-notify").words, (std::vector<std::string>{"Left foot", "0.2"}));
  EXPECT_EQ(at("move-notify").numbers, std::vector<double>{0.1});
  EXPECT_EQ(at("rename-notify").words, (std::vector<std::string>{"FootL", "Foot \"L\""}));
  EXPECT_EQ(at("payload-notify").words,
            (std::vector<std::string>{"Left foot", R"({"sound": "step # grass", "gain": [1, 2]})"}));
  EXPECT_TRUE(at("save").words.empty());
  EXPECT_EQ(at("save", 1).words, std::vector<std::string>{"out/walk.notifies.json"});
  EXPECT_EQ(at("click").numbers, (std::vector<double>{100, 200.5}));
  EXPECT_EQ(at("drag").numbers, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(at("quit").numbers, std::vector<double>{2});
  EXPECT_EQ(at("quit").line, 37);
  EXPECT_EQ(at("expect-events").numbers, std::vector<double>{3});
}

// The grammar's actions, listed for the viewer to check that each has a verb: unique, and each one a script
// may name (a name not listed is an unknown action).
TEST(ViewerScript, ListsTheActionsItKnows) {
  const std::vector<std::string> names = script_action_names();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  for (const char* name : {"open", "play", "layer", "payload-notify", "bottom-tab", "expect-events", "quit"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  for (const std::string& name : names) {
    auto parsed = parse_script(name + "\n", "s.txt");  // known: at worst its words are missing
    EXPECT_TRUE(parsed.ok() || parsed.error().find("unknown action") == std::string::npos) << parsed.error();
  }
  EXPECT_NE(parse_script("teleport\n", "s.txt").error().find("unknown action"), std::string::npos);
}

// The error for a one-line script (with a first line so that the line number is 2).
std::string error_of(const std::string& line) {
  auto parsed = parse_script("wait 1\n" + line + "\n", "s.txt");
  return parsed.ok() ? "(accepted)" : parsed.error();
}

TEST(ViewerScript, BadLinesAreErrorsNamingTheLine) {
  const std::vector<std::string> bad = {
      "explode",
      "Play Walk",
      "play",
      "play Walk Run",
      "pause now",
      "seek",
      "seek abc",
      "seek 0.5s",
      "seek nan",
      "seek NaN",
      "seek inf",
      "seek -inf",
      "seek 1e400",
      "seek -1",
      "seek 0x10",
      "seek --1",
      "speed 1e30",
      "step 1.5",
      "step 99999999999999999999",
      "wait -1",
      "wait 1e300",
      "loop sometimes",
      "loop ONCE",
      "crossfade Run",
      "crossfade Run -0.1",
      "crossfade Run 0.2 async",
      "root-motion yes",
      "lighting blinn",  // parse_lighting_mode's alias, but scripts take the five names
      "lighting",
      "skinning fast",
      "crowd 2.5",
      "crowd 1000000",
      "layer off Walk",
      "layer Walk",
      "layer Walk 2",
      "layer Walk 0.5 spine extra",
      "add-notify",
      "add-notify \"\"",
      "add-notify Foot -1",
      "add-notify \"Foot",
      "add-notify Fo\"ot",
      "add-notify \"Foot\"x",
      "payload-notify Foot {\"a\": }",
      "payload-notify Foot {\"a\": 1} # comment",
      "payload-notify Foot " + std::string(200, '[') + std::string(200, ']'),
      "rename-notify Foot",
      "click 10",
      "click -1 5",
      "drag 1 2 3",
      "screenshot shot.jpg",
      "screenshot png",
      "quit 256",
      "quit -1",
      "expect-events many",
      std::string("pause\0", 6),
      "pause \x01",
      "open \xff\xfe",
      "open \xc3",
      "open \xed\xa0\x80",  // a UTF-16 surrogate
      "open \xc0\xaf",      // an overlong '/'
  };
  for (const std::string& line : bad) {
    const std::string error = error_of(line);
    EXPECT_EQ(error.rfind("s.txt:2: ", 0), 0u) << "'" << line << "' gave: " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  // Messages say what is wrong.
  EXPECT_NE(error_of("explode").find("unknown action 'explode'"), std::string::npos);
  EXPECT_NE(error_of("seek nan").find("not a finite number"), std::string::npos);
  EXPECT_NE(error_of("step 1.5").find("whole number"), std::string::npos);
  EXPECT_NE(error_of("loop sometimes").find("once, repeat, pingpong"), std::string::npos);
  EXPECT_NE(error_of("speed 1e30").find("outside -100 to 100"), std::string::npos);
  EXPECT_NE(error_of("play").find("usage: play CLIP"), std::string::npos);
}

TEST(ViewerScript, HostileInputGivesErrorsNeverACrash) {
  // Binary junk: refused, with line numbers, and a bounded message.
  std::mt19937 random(13);
  for (int round = 0; round < 50; ++round) {
    std::string junk(1 + random() % 5000, '\0');
    for (char& c : junk) c = static_cast<char>(random());
    auto parsed = parse_script(junk, "junk.bin");
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.error().rfind("junk.bin:", 0), 0u);
      EXPECT_LT(parsed.error().size(), 100000u);
    }
  }
  // Many bad lines: the first ten are reported, then a count.
  std::string many;
  for (int i = 0; i < 50; ++i) many += "explode\n";
  auto parsed = parse_script(many, "many.txt");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error().find("many.txt:1: "), std::string::npos);
  EXPECT_NE(parsed.error().find("many.txt:10: "), std::string::npos);
  EXPECT_EQ(parsed.error().find("many.txt:11: "), std::string::npos);
  EXPECT_NE(parsed.error().find("40 more errors"), std::string::npos);
  // An over-long line.
  EXPECT_EQ(error_of("open " + std::string(100000, 'a')).rfind("s.txt:2: line longer than", 0), 0u);
  // 1 MiB is the limit: one byte more is refused whole, exactly 1 MiB is read.
  std::string comment_lines;
  while (comment_lines.size() < static_cast<size_t>(kMaxScriptBytes)) comment_lines += "# padding padding\n";
  comment_lines.resize(static_cast<size_t>(kMaxScriptBytes) - 5);
  comment_lines += "\nundo";
  ASSERT_EQ(comment_lines.size(), static_cast<size_t>(kMaxScriptBytes));
  auto at_limit = parse_script(comment_lines, "big.txt");
  ASSERT_TRUE(at_limit.ok()) << at_limit.error().substr(0, 200);
  ASSERT_EQ(at_limit->size(), 1u);
  EXPECT_EQ(at_limit->at(0).action, "undo");
  auto over = parse_script(comment_lines + "\n", "big.txt");
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().find("larger than 1048576 bytes"), std::string::npos) << over.error();
  // Too many actions.
  std::string actions;
  for (int i = 0; i <= kMaxScriptActions; ++i) actions += "undo\n";
  auto too_many = parse_script(actions, "long.txt");
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().find("long.txt:100001: more than 100000 actions"), std::string::npos);
  actions.resize(actions.size() - 5);
  EXPECT_TRUE(parse_script(actions, "long.txt").ok());
  // Empty and comment-only scripts are valid and do nothing.
  EXPECT_TRUE(parse_script("", "e.txt").ok());
  EXPECT_TRUE(parse_script("   \n# nothing\n\t\n", "e.txt")->empty());
}

TEST(ViewerScript, LoadScriptReadsFilesAndRefusesWhatIsNotOne) {
  const std::string dir = fresh_dir("scripts");
  write_all(dir + "/ok.txt", "play Walk\nwait 10\nquit\n");
  auto ok = load_script(dir + "/ok.txt");
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(ok->size(), 3u);
  write_all(dir + "/bad.txt", "play Walk\nseek later\n");
  auto bad = load_script(dir + "/bad.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().rfind(dir + "/bad.txt:2: ", 0), 0u) << bad.error();
  EXPECT_FALSE(load_script(dir + "/missing.txt").ok());
  EXPECT_FALSE(load_script(dir).ok());
  write_all(dir + "/huge.txt", std::string(static_cast<size_t>(kMaxScriptBytes) + 1, '#'));
  auto huge = load_script(dir + "/huge.txt");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().find("larger than"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------- settings

TEST(ViewerSettings, RoundTripThroughJson) {
  ViewerSettings settings;
  settings.window_width = 1920;
  settings.window_height = 1080;
  settings.lighting = "unlit";
  settings.grid = false;
  settings.skeleton = true;
  settings.add_recent("/models/a.fbx");
  settings.add_recent("/models/ü b.ossa");
  settings.left_panel = 410, settings.right_panel = 260, settings.bottom_panel = 330;
  settings.font_scale = 1.25;
  std::string warning = "stale";
  const ViewerSettings back = settings_from_json(settings_to_json(settings), &warning);
  EXPECT_EQ(warning, "");
  EXPECT_EQ(back.left_panel, 410);
  EXPECT_EQ(back.right_panel, 260);
  EXPECT_EQ(back.bottom_panel, 330);
  EXPECT_EQ(back.font_scale, 1.25);
  EXPECT_EQ(back.window_width, 1920);
  EXPECT_EQ(back.window_height, 1080);
  EXPECT_EQ(back.lighting, "unlit");
  EXPECT_FALSE(back.grid);
  EXPECT_TRUE(back.skeleton);
  EXPECT_EQ(back.recent_files, (std::vector<std::string>{"/models/ü b.ossa", "/models/a.fbx"}));
  // The five lighting names of ossa/render's to_string(LightingMode) are kept as they are.
  for (const char* mode : {"phong", "blinn-phong", "lambert", "unlit", "texture-only"}) {
    settings.lighting = mode;
    EXPECT_EQ(settings_from_json(settings_to_json(settings)).lighting, mode);
  }
}

TEST(ViewerSettings, PanelSizesAndFontScaleAreClamped) {
  std::string warning;
  const ViewerSettings s = settings_from_json(
      R"({"left_panel": 5, "right_panel": 1e9, "bottom_panel": "wide", "font_scale": 40})", &warning);
  EXPECT_EQ(s.left_panel, ViewerSettings::kMinPanel);
  EXPECT_EQ(s.right_panel, ViewerSettings::kMaxPanel);
  EXPECT_EQ(s.bottom_panel, ViewerSettings{}.bottom_panel);  // not a number: the default
  EXPECT_EQ(s.font_scale, ViewerSettings::kMaxFontScale);
  for (const char* key : {"left_panel", "right_panel", "bottom_panel", "font_scale"})
    EXPECT_NE(warning.find(key), std::string::npos) << warning;
}

TEST(ViewerSettings, RecentFilesAreNewestFirstWithoutDuplicates) {
  ViewerSettings settings;
  for (int i = 0; i < 15; ++i) settings.add_recent("/m/" + std::to_string(i));
  ASSERT_EQ(settings.recent_files.size(), 10u);
  EXPECT_EQ(settings.recent_files.front(), "/m/14");
  EXPECT_EQ(settings.recent_files.back(), "/m/5");
  settings.add_recent("/m/9");
  EXPECT_EQ(settings.recent_files.size(), 10u);
  EXPECT_EQ(settings.recent_files[0], "/m/9");
  EXPECT_EQ(std::count(settings.recent_files.begin(), settings.recent_files.end(), "/m/9"), 1);
  settings.add_recent("");
  EXPECT_EQ(settings.recent_files[0], "/m/9");
}

TEST(ViewerSettings, DamagedFilesGiveDefaultsAndAWarning) {
  const ViewerSettings defaults;
  const std::vector<std::string> damaged = {
      "",
      "{",
      "{\"window_width\": 800",
      "[1, 2, 3]",
      "\"just a string\"",
      "null",
      std::string("\x89PNG\r\n\x1a\n\0\0\0", 11),
      std::string(100000, '['),
      std::string(2 << 20, ' ') + "{}",  // larger than a settings file can be
  };
  for (const std::string& text : damaged) {
    std::string warning;
    const ViewerSettings s = settings_from_json(text, &warning);
    EXPECT_NE(warning, "") << text.substr(0, 40);
    EXPECT_EQ(s.window_width, defaults.window_width);
    EXPECT_EQ(s.window_height, defaults.window_height);
    EXPECT_EQ(s.lighting, defaults.lighting);
    EXPECT_EQ(s.recent_files, defaults.recent_files);
    EXPECT_EQ(s.grid, defaults.grid);
    EXPECT_EQ(s.skeleton, defaults.skeleton);
  }
}

TEST(ViewerSettings, BadValuesAreClampedOrDroppedOneByOne) {
  std::string warning;
  ViewerSettings s = settings_from_json(
      R"({"window_width": 1e300, "window_height": -5, "lighting": "disco", "grid": "yes", "skeleton": true,
          "recent_files": ["/a", 7, "", "/a", "/b", null, ["/c"]]})",
      &warning);
  EXPECT_EQ(s.window_width, ViewerSettings::kMaxWindowSide);  // 8192: a larger window asks for GBs
  EXPECT_EQ(s.window_height, 320);
  EXPECT_EQ(s.lighting, "blinn-phong");
  EXPECT_TRUE(s.grid);      // default kept
  EXPECT_TRUE(s.skeleton);  // the good value kept
  EXPECT_EQ(s.recent_files, (std::vector<std::string>{"/a", "/b"}));
  EXPECT_NE(warning.find("lighting"), std::string::npos) << warning;
  EXPECT_NE(warning.find("grid"), std::string::npos) << warning;
  EXPECT_NE(warning.find("window_width"), std::string::npos) << warning;
  // parse_lighting_mode's aliases read as the canonical names; unknown keys are ignored.
  s = settings_from_json(R"({"lighting": "blinn", "future_option": {"x": 1}})", &warning);
  EXPECT_EQ(s.lighting, "blinn-phong");
  EXPECT_EQ(warning, "");
  EXPECT_EQ(settings_from_json(R"({"lighting": "texture"})").lighting, "texture-only");
  // More than ten recent files: the first ten.
  std::string list = "[";
  for (int i = 0; i < 30; ++i) {
    if (i) list += ',';
    list += "\"/f" + std::to_string(i) + "\"";
  }
  s = settings_from_json(R"({"recent_files": )" + list + "]}");
  ASSERT_EQ(s.recent_files.size(), 10u);
  EXPECT_EQ(s.recent_files[9], "/f9");
  // Writing clamps too, and never writes what JSON cannot hold.
  ViewerSettings odd;
  odd.window_width = -100000;
  odd.window_height = 1 << 30;
  odd.lighting = "nope";
  odd.recent_files = {std::string("/bad\xff", 5), "/good"};
  s = settings_from_json(settings_to_json(odd), &warning);
  EXPECT_EQ(warning, "");
  EXPECT_EQ(s.window_width, 320);
  EXPECT_EQ(s.window_height, ViewerSettings::kMaxWindowSide);
  EXPECT_EQ(s.lighting, "blinn-phong");
  EXPECT_EQ(s.recent_files, std::vector<std::string>{"/good"});
}

TEST(ViewerSettings, SaveCreatesTheFolderAndLoadReadsItBack) {
  const std::string dir = fresh_dir("settings");
  const std::string path = dir + "/config/ossa/viewer.json";
  ViewerSettings settings;
  settings.window_width = 1000;
  settings.add_recent("/x.fbx");
  ASSERT_TRUE(save_settings(path, settings).ok());
  std::string warning = "stale";
  ViewerSettings back = load_settings(path, &warning);
  EXPECT_EQ(warning, "");
  EXPECT_EQ(back.window_width, 1000);
  EXPECT_EQ(back.recent_files, std::vector<std::string>{"/x.fbx"});
  // A missing file is a first run: defaults, no warning. A folder or a damaged file: defaults and a warning.
  back = load_settings(dir + "/none/viewer.json", &warning);
  EXPECT_EQ(warning, "");
  EXPECT_EQ(back.window_width, 1280);
  back = load_settings(dir, &warning);
  EXPECT_NE(warning, "");
  EXPECT_EQ(back.window_width, 1280);
  write_all(dir + "/damaged.json", "{\"window_width\": 9");
  back = load_settings(dir + "/damaged.json", &warning);
  EXPECT_NE(warning.find(dir + "/damaged.json"), std::string::npos) << warning;
  EXPECT_EQ(back.window_width, 1280);
  EXPECT_EQ(load_settings("").window_width, 1280);
  // A file where the folder should be: an error, and the file is untouched.
  write_all(dir + "/blocker", "keep");
  EXPECT_FALSE(save_settings(dir + "/blocker/viewer.json", settings).ok());
  EXPECT_EQ(read_all(dir + "/blocker"), "keep");
  EXPECT_FALSE(save_settings("", settings).ok());
}

#ifndef _WIN32
// Sets an environment variable for one scope (tests run one at a time in this binary).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

TEST(ViewerSettings, DefaultPathIsInTheUsersConfigFolder) {
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", "/tmp/xdg-config"), home("HOME", "/home/someone");
    EXPECT_EQ(default_settings_path(), "/tmp/xdg-config/ossa/viewer.json");
  }
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", nullptr), home("HOME", "/home/someone");
    EXPECT_EQ(default_settings_path(), "/home/someone/.config/ossa/viewer.json");
  }
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", "relative/dir"), home("HOME", "/home/someone");
    EXPECT_EQ(default_settings_path(), "/home/someone/.config/ossa/viewer.json");  // XDG: relative is invalid
  }
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", ""), home("HOME", nullptr);
    EXPECT_EQ(default_settings_path(), "");
  }
}
#endif

}  // namespace

// The keyboard at a low frame rate (GLFW's key numbers: N 78, Space 32, Backspace 259).
constexpr int kKeyN = 78, kKeySpace = 32, kKeyBackspace = 259;

// ---------------------------------------------------------------------------------------------- browser

TEST(ViewerFileBrowser, ListsFoldersThenTheFilesOssaOpens) {
  const std::string dir = fresh_dir("browser");
  for (const char* name : {"b.FBX", "a.glb", "notes.txt", ".hidden.fbx", "z.ossa", "model.dae", "x.gltf"})
    write_all(dir + "/" + name, "x");
  fs::create_directories(dir + "/Sub");
  fs::create_directories(dir + "/sub2");
  fs::create_directories(dir + "/.git");
  FileBrowser browser(dir);
  EXPECT_EQ(browser.folder(), utf8_from_path(fs::path(dir).lexically_normal()));
  std::vector<std::string> names;
  for (const BrowserEntry& e : browser.entries()) names.push_back(e.name + (e.folder ? "/" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"../", "Sub/", "sub2/", "a.glb", "b.FBX", "model.dae", "x.gltf",
                                             "z.ossa"}));
  EXPECT_EQ(browser.entries()[3].bytes, 1u);
  browser.set_show_all(true);
  EXPECT_EQ(browser.entries().size(), 9u);   // notes.txt too, never the hidden ones
  EXPECT_FALSE(browser.enter("notes.txt"));  // not a folder
  EXPECT_FALSE(browser.enter("missing"));
  ASSERT_TRUE(browser.enter("Sub"));
  EXPECT_EQ(fs::path(browser.folder()).filename(), "Sub");
  ASSERT_EQ(browser.entries().size(), 1u);  // only ".."
  ASSERT_TRUE(browser.enter(".."));
  EXPECT_EQ(browser.folder(), utf8_from_path(fs::path(dir).lexically_normal()));
  EXPECT_EQ(browser.path_of("a.glb"), utf8_from_path(fs::path(dir).lexically_normal() / "a.glb"));
  EXPECT_FALSE(browser.go_to(dir + "/a.glb"));  // a file: nothing changes, error says why
  EXPECT_FALSE(browser.error().empty());
  EXPECT_EQ(browser.folder(), utf8_from_path(fs::path(dir).lexically_normal()));
  ASSERT_TRUE(browser.go_to("/"));
  EXPECT_TRUE(browser.entries().empty() || browser.entries()[0].name != "..");  // a root has no parent
}

TEST(ViewerFileBrowser, OpenableExtensionsInAnyCase) {
  for (const char* name : {"a.fbx", "A.FBX", "b.gltf", "c.GLB", "d.dae", "e.ossa", "f.Ossa"})
    EXPECT_TRUE(is_openable(name)) << name;
  for (const char* name : {"a.obj", "fbx", ".fbx", "a.fbx.txt", "a.", "a.notifies.json", ""})
    EXPECT_FALSE(is_openable(name)) << name;
}

// ---------------------------------------------------------------------------------------------- recovery

TEST(ViewerRecovery, CopiesLiveInTheSettingsFolderNamedByTheModel) {
  const std::string dir = fresh_dir("recovery-path");
  const std::string settings = dir + "/config/viewer.json";
  const std::string a = recovery_path(settings, dir + "/models/a.fbx");
  const std::string b = recovery_path(settings, dir + "/models/b.fbx");
  EXPECT_EQ(fs::path(a).parent_path(), fs::path(dir) / "config" / "recovery");
  EXPECT_NE(a, b);
  EXPECT_EQ(a, recovery_path(settings, dir + "/models/../models/a.fbx"));  // the same model, however named
  EXPECT_EQ(recovery_path("", dir + "/models/a.fbx"), "");                 // no settings: nothing kept
}

TEST(ViewerRecovery, WrittenCopiesReadBackOnlyForTheirModel) {
  const std::string dir = fresh_dir("recovery-read");
  const std::string model = dir + "/hero.fbx", other = dir + "/villain.fbx";
  const std::string path = recovery_path(dir + "/viewer.json", model);
  const std::string notifies = R"({"clips":{"Walk":[{"name":"Step","time":0.5}]}})";
  ASSERT_TRUE(write_recovery(path, {recovery_model_key(model), "", notifies}).ok());
  auto copy = read_recovery(path, model);
  ASSERT_TRUE(copy.has_value());
  EXPECT_EQ(copy->model, recovery_model_key(model));
  EXPECT_EQ(copy->written.size(), 19u) << copy->written;  // YYYY-MM-DD HH:MM:SS
  EXPECT_EQ(nlohmann::json::parse(copy->notifies_json), nlohmann::json::parse(notifies));
  EXPECT_FALSE(read_recovery(path, other).has_value());  // a copy that names another model (a collision)
  remove_recovery(path);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(read_recovery(path, model).has_value());
  EXPECT_FALSE(write_recovery(path, {model, "", "{not json"}).ok());
  EXPECT_FALSE(fs::exists(path));
}

TEST(ViewerRecovery, DamagedCopiesAreIgnored) {
  const std::string dir = fresh_dir("recovery-damaged");
  const std::string model = dir + "/hero.fbx";
  const std::string path = recovery_path(dir + "/viewer.json", model);
  fs::create_directories(fs::path(path).parent_path());
  const std::string key = nlohmann::json(recovery_model_key(model)).dump();
  for (const std::string& text :
       {std::string("{"), std::string("[]"), "{\"model\": " + key + "}",
        "{\"model\": " + key + ", \"notifies\": 3}", std::string("{\"model\": 7, \"notifies\": {}}"),
        "{\"model\": " + key + ", \"notifies\": " + std::string(100000, '[') + std::string(100000, ']') +
            "}"}) {
    write_all(path, text);
    EXPECT_FALSE(read_recovery(path, model).has_value()) << text.substr(0, 80);
  }
  write_all(path, "{\"model\": " + key + ", \"notifies\": {\"clips\": {}}}");
  EXPECT_TRUE(read_recovery(path, model).has_value());  // the control: the same shape, well formed
}

TEST(ViewerKeys, APressAndItsReleaseInOnePollAreSeenInTwoFrames) {
  KeyInput keys;
  keys.push_key(kKeySpace, KeyAction::kPress);
  keys.push_key(kKeySpace, KeyAction::kRelease);
  EXPECT_EQ(keys.next_frame().size(), 1u);
  EXPECT_TRUE(keys.pressed(kKeySpace));
  EXPECT_TRUE(keys.down(kKeySpace));  // down for one whole frame: Dear ImGui sees the press
  EXPECT_EQ(keys.next_frame().size(), 1u);
  EXPECT_FALSE(keys.pressed(kKeySpace));
  EXPECT_FALSE(keys.down(kKeySpace));
  EXPECT_TRUE(keys.next_frame().empty());
}

TEST(ViewerKeys, AHeldKeyActsOnceWhateverItsRepeats) {
  KeyInput keys;
  keys.push_key(kKeyN, KeyAction::kPress);
  int presses = 0, steps = 0;
  for (int frame = 0; frame < 60; ++frame) {
    if (frame > 0) keys.push_key(kKeyN, KeyAction::kRepeat);
    keys.next_frame();
    presses += keys.pressed(kKeyN);
    steps += keys.pressed_or_repeated(kKeyN);
    EXPECT_TRUE(keys.down(kKeyN));
  }
  keys.push_key(kKeyN, KeyAction::kRelease);
  keys.next_frame();
  EXPECT_EQ(presses, 1);
  EXPECT_EQ(steps, 60);  // stepping frames follows the system's repeat
  EXPECT_FALSE(keys.down(kKeyN));
}

TEST(ViewerKeys, TypingKeepsItsOrderAcrossFrames) {
  // "a", Backspace tapped twice, "b", all in one poll: every Backspace is a frame of its own, and "b" comes
  // after them, as typed.
  KeyInput keys;
  keys.push_character('a');
  for (int i = 0; i < 2; ++i) {
    keys.push_key(kKeyBackspace, KeyAction::kPress);
    keys.push_key(kKeyBackspace, KeyAction::kRelease);
  }
  keys.push_character('b');
  std::string typed;
  int frames = 0;
  while (keys.pending() > 0 && frames < 10) {
    ++frames;
    for (const InputEvent& e : keys.next_frame()) {
      if (e.kind == InputEvent::Kind::kCharacter) typed += static_cast<char>(e.codepoint);
    }
    if (keys.pressed(kKeyBackspace)) typed += '<';
  }
  EXPECT_EQ(typed, "a<<b");
  EXPECT_EQ(frames, 4);  // a, press | release | press | release, b: one change of Backspace a frame
}

TEST(ViewerKeys, CombinationsAreGlfwCodesModifiersFirst) {
  EXPECT_EQ(parse_key_combo("n"), std::vector<int>{kKeyN});
  EXPECT_EQ(parse_key_combo("ctrl+s"), (std::vector<int>{341, 'S'}));
  EXPECT_EQ(parse_key_combo("shift+f12"), (std::vector<int>{340, 301}));
  EXPECT_EQ(parse_key_combo("backspace"), std::vector<int>{kKeyBackspace});
  for (const char* bad : {"", "ctrl+", "+n", "f0", "f13", "f01", "N", "nn", "ctrl++n"})
    EXPECT_TRUE(parse_key_combo(bad).empty()) << bad;
}

TEST(ViewerText, CodePointsOfUtf8WithMalformedBytesReplaced) {
  EXPECT_EQ(utf8_code_points("Step"), U"Step");
  EXPECT_EQ(utf8_code_points("Pas\xc3\xa9"), U"Pas\u00e9");
  EXPECT_EQ(utf8_code_points("\xf0\x9f\x91\xa3"), U"\U0001F463");
  EXPECT_EQ(utf8_code_points("a\xc3"), U"a\uFFFD");          // truncated
  EXPECT_EQ(utf8_code_points("\xc0\xaf"), U"\uFFFD\uFFFD");  // overlong '/'
}

TEST(ViewerText, ErrorsLeadWithPlainWordsAndKeepTheDetails) {
  const ShownError import = explain_error(
      "cannot open broken.fbx:\nbroken.fbx: cannot import: FBX-Tokenize (offset 0x23) block offset is out of "
      "range");
  EXPECT_EQ(import.headline,
            "cannot open broken.fbx: it is damaged, cut short, or a kind of file the importer cannot read");
  EXPECT_EQ(import.details, "assimp: FBX-Tokenize (offset 0x23) block offset is out of range");
  const ShownError plain = explain_error("cannot save the notifies: disk full");
  EXPECT_EQ(plain.headline, "cannot save the notifies: disk full");
  EXPECT_EQ(plain.details, "");
  const std::string payload = NotifyDocument::payload_error("{a");
  EXPECT_EQ(payload.rfind("not valid JSON: line 1, column 2: syntax error", 0), 0u) << payload;
  EXPECT_EQ(payload.find("json.exception"), std::string::npos) << payload;
}

TEST(ViewerKeys, KeysOutsideGlfwsRangeAreDropped) {
  KeyInput keys;
  keys.push_key(-1, KeyAction::kPress);  // GLFW_KEY_UNKNOWN
  keys.push_key(KeyInput::kMaxKey, KeyAction::kPress);
  EXPECT_EQ(keys.pending(), 0u);
  EXPECT_FALSE(keys.down(-1));
  EXPECT_FALSE(keys.down(1 << 20));
}

}  // namespace ossa::viewer
