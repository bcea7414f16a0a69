// Motion matching: the database's features (ossa/offline/motion_database.h) and the search
// (ossa/runtime/motion_search.h). Truths: a plain loop over the features in double precision, the brute force
// for the accelerated search, and what ../shared/mocap's MANIFEST says of its takes (straight walks and runs
// along +Z, turns to the left and right, centimetres).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <vector>

#include "oracle_compare.h"
#include "ossa/import/load_character.h"
#include "ossa/offline/mirror.h"
#include "ossa/offline/motion_database.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/motion_search.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/serialize/ossa_file.h"
#include "ossa_bytes.h"

namespace ossa {
namespace {

using DB = MotionDatabase;
namespace fs = std::filesystem;

// A database of `frames` frames whose features wander smoothly (as a character's do from frame to frame) in
// ranges of 100 to 400 frames, the last 60 of each excluded, with two tags over random stretches.
DB wandering_database(int frames, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> step(0, 0.08f);
  std::uniform_int_distribution<int> length(100, 400);
  DB db;
  db.left_foot = 0, db.right_foot = 1, db.hips = 2;
  db.tag_names = {"run", "turn"};
  db.offset.assign(DB::kFeatures, 0);
  db.scale.assign(DB::kFeatures, 1);
  float x[DB::kFeatures] = {};
  while (db.frame_count() < frames) {
    const int count = std::min(length(rng), frames - db.frame_count());
    db.ranges.push_back({static_cast<int>(db.ranges.size()), db.frame_count(), count, 0});
    for (float& v : x) v = std::normal_distribution<float>(0, 1)(rng);
    const uint32_t tag = rng() % 4;
    for (int k = 0; k < count; ++k) {
      for (float& v : x) v = 0.98f * v + step(rng);
      db.features.insert(db.features.end(), x, x + DB::kFeatures);
      db.features.push_back(0);
      db.tags.push_back((k + 60 >= count ? DB::kExcludedTag : 0) | (k % 90 < 45 ? tag : 0));
      db.roots.push_back({});
    }
  }
  EXPECT_EQ(db.check(), "");
  return db;
}

struct Query {
  std::vector<float> features;
  uint32_t required = 0;
  int current = -1;
};

// Half near a frame of the database (what a character asks mid-motion), half anywhere; some require a tag,
// some name a current frame.
std::vector<Query> queries(const DB& db, int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0, 0.3f), wide(0, 1.5f);
  std::vector<Query> out(count);
  for (int i = 0; i < count; ++i) {
    Query& q = out[i];
    q.features.assign(DB::kStride, 0);
    const int near = static_cast<int>(rng() % db.frame_count());
    for (int d = 0; d < DB::kFeatures; ++d)
      q.features[d] = i % 2 ? db.frame_features(near)[d] + noise(rng) : wide(rng);
    if (i % 5 == 0) q.required = 1u << (rng() % 2);
    if (i % 3 == 0) q.current = static_cast<int>(rng() % db.frame_count());
    if (i % 7 == 0) q.current = near;  // sometimes the best already plays
  }
  return out;
}

MotionMatch search(const DB& db, const MotionSearchIndex* index, const Query& q) {
  MotionMatch m;
  const MotionSearchJob job{.database = &db,
                            .index = index,
                            .query = q.features,
                            .required_tags = q.required,
                            .current_frame = q.current,
                            .output = &m};
  EXPECT_TRUE(job.run());
  return m;
}

TEST(MotionSearch, AcceleratedSearchReturnsTheBruteForcesFrame) {
  const DB db = wandering_database(20000, 3);
  const MotionSearchIndex index(db);
  int kept_current = 0;
  for (const Query& q : queries(db, 10000, 4)) {
    const MotionMatch brute = search(db, nullptr, q), fast = search(db, &index, q);
    ASSERT_GE(brute.frame, 0);
    ASSERT_EQ(fast.frame, brute.frame);
    ASSERT_EQ(fast.cost, brute.cost);
    EXPECT_FALSE(db.tags[brute.frame] & DB::kExcludedTag);
    EXPECT_EQ(db.tags[brute.frame] & q.required, q.required);
    kept_current += brute.frame == q.current;
  }
  EXPECT_GT(kept_current, 100);  // the current frame wins where it is the best (no jitter)
}

TEST(MotionSearch, BruteForceAgreesWithADoublePrecisionLoop) {
  const DB db = wandering_database(5000, 5);
  for (const Query& q : queries(db, 300, 6)) {
    double best = std::numeric_limits<double>::infinity();
    for (int f = 0; f < db.frame_count(); ++f) {
      if ((db.tags[f] & DB::kExcludedTag) || (db.tags[f] & q.required) != q.required) continue;
      double cost = 0;
      for (int d = 0; d < DB::kFeatures; ++d) {
        const double diff = static_cast<double>(q.features[d]) - db.frame_features(f)[d];
        cost += diff * diff;
      }
      best = std::min(best, cost);
    }
    const MotionMatch m = search(db, nullptr, q);
    ASSERT_GE(m.frame, 0);
    // The frame found costs the least in double precision too, up to float rounding (28 terms: 1e-5).
    double found = 0;
    for (int d = 0; d < DB::kFeatures; ++d) {
      const double diff = static_cast<double>(q.features[d]) - db.frame_features(m.frame)[d];
      found += diff * diff;
    }
    EXPECT_LE(found, best * (1 + 1e-5) + 1e-9);
    EXPECT_NEAR(m.cost, found, found * 1e-5 + 1e-9);
  }
}

TEST(MotionSearch, NothingMatchableGivesNoFrame) {
  DB db = wandering_database(500, 7);
  const MotionSearchIndex index(db);
  Query q = queries(db, 1, 8)[0];
  q.required = 1u << 5;  // no frame has it
  EXPECT_EQ(search(db, nullptr, q).frame, -1);
  EXPECT_EQ(search(db, &index, q).frame, -1);
  MotionMatch m;
  const std::vector<float> short_query(DB::kFeatures);
  const MotionSearchJob short_job{.database = &db, .query = short_query, .output = &m};
  EXPECT_FALSE(short_job.run());
  const DB other = wandering_database(500, 9);
  const MotionSearchJob other_job{.database = &other, .index = &index, .query = q.features, .output = &m};
  EXPECT_FALSE(other_job.run());
}

// Times one search per query over the whole set; microseconds per search.
double microseconds_per_search(const DB& db, const MotionSearchIndex* index, const std::vector<Query>& qs) {
  const auto start = std::chrono::steady_clock::now();
  int sink = 0;
  for (const Query& q : qs) sink += search(db, index, q).frame;
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(sink, -static_cast<int>(qs.size()));
  return us / static_cast<double>(qs.size());
}

// What a character asks: the features of a frame (where it plays) moved by 0.1 of a spread per dim.
std::vector<Query> near_queries(const DB& db, int count) {
  std::mt19937 rng(12);
  std::normal_distribution<float> noise(0, 0.1f);
  std::vector<Query> qs(count);
  for (Query& q : qs) {
    const int near = static_cast<int>(rng() % db.frame_count());
    q.features.assign(db.frame_features(near), db.frame_features(near) + DB::kStride);
    for (int d = 0; d < DB::kFeatures; ++d) q.features[d] += noise(rng);
    q.current = near;  // a matcher names the frame it plays: its cost is the first bound
  }
  return qs;
}

// The shared mocap as one character: the first file's skeleton and every file's clip (the files share one
// hierarchy, MANIFEST.md), read in centimetres.
struct Mocap {
  CharacterAsset character;
  std::vector<std::string> names;
};
Mocap load_mocap(const std::vector<std::string>& files) {
  Mocap out;
  ModelLoadOptions options;
  options.import.unit_scale = 0.01;
  for (const std::string& file : files) {
    auto loaded = load_character(test::shared_dir() + "/mocap/" + file, options);
    EXPECT_TRUE(loaded) << (loaded ? "" : loaded.error());
    if (!loaded) continue;
    if (out.names.empty()) out.character.skeleton = (*loaded)->asset.skeleton;
    EXPECT_EQ((*loaded)->asset.skeleton.joint_count(), out.character.skeleton.joint_count());
    out.character.clips.push_back((*loaded)->asset.clips.at(0));
    out.names.push_back(file);
  }
  return out;
}

#define REQUIRE_MOCAP()                                                               \
  if (test::shared_dir().empty() || !fs::is_directory(test::shared_dir() + "/mocap")) \
  GTEST_SKIP() << "../shared/mocap not found (OSSA_SHARED_DIR): skipped"

TEST(MotionDatabase, MocapFeaturesFollowWhatTheTakesDo) {
  REQUIRE_MOCAP();
  const Mocap mocap =
      load_mocap({"dataset-2_walk_normal_001.bvh", "dataset-2_run_normal_001.bvh",
                  "dataset-2_walk-turn-left_normal_001.bvh", "dataset-2_walk-turn-right_normal_001.bvh"});
  ASSERT_EQ(mocap.character.clips.size(), 4u);
  const MotionJoints joints = find_motion_joints(mocap.character.skeleton);
  ASSERT_GE(joints.left_foot, 0);
  EXPECT_EQ(mocap.character.skeleton.name(joints.left_foot), "Foot_L");
  EXPECT_EQ(mocap.character.skeleton.name(joints.right_foot), "Foot_R");
  EXPECT_EQ(mocap.character.skeleton.name(joints.hips), "Hips");
  const std::vector<MotionSource> sources = {{0}, {1}, {2}, {3}};
  const std::vector<MotionTagRange> tags = {{1, "run", 0, 100}, {0, "mm_exclude", 1.0f, 1.5f}};
  auto built = build_motion_database(mocap.character, sources, tags);
  ASSERT_TRUE(built) << built.error();
  const DB& db = *built;
  ASSERT_EQ(db.ranges.size(), 4u);
  auto raw = [&](int frame, int d) { return db.frame_features(frame)[d] / db.scale[d] + db.offset[d]; };
  double speed[4] = {}, turn[4] = {}, lowest[4] = {1, 1, 1, 1};
  for (int r = 0; r < 4; ++r) {
    const DB::Range& range = db.ranges[r];
    // 30 fps takes at 60 frames a second: twice the frames, less one.
    const int manifest_frames[4] = {273, 68, 102, 100};  // MANIFEST.md
    EXPECT_EQ(range.count, 2 * (manifest_frames[r] - 1) + 1) << mocap.names[r];
    int matchable = 0;
    for (int k = 0; k < range.count; ++k) matchable += !(db.tags[range.first + k] & DB::kExcludedTag);
    const int excluded_by_tag = r == 0 ? 31 : 0;  // mm_exclude over [1.0, 1.5] s: 31 frames at 60 fps
    EXPECT_EQ(matchable, range.count - 60 - excluded_by_tag) << mocap.names[r];
    for (int k = 0; k + 60 < range.count; ++k) {
      const int f = range.first + k;
      speed[r] += std::hypot(raw(f, 19), raw(f, 20)) / (range.count - 60);  // metres covered in 1 s
      turn[r] += std::atan2(raw(f, 25), raw(f, 26)) / (range.count - 60);   // facing 1 s ahead, + = left
      // Feet stay under the hips (within 1 m) and below the knees (0.7 m), and touch the ground.
      for (int d : {0, 3}) {
        EXPECT_LT(std::hypot(raw(f, d), raw(f, d + 2)), 1.0);
        EXPECT_LT(raw(f, d + 1), 0.7);
        lowest[r] = std::min(lowest[r], static_cast<double>(raw(f, d + 1)));
      }
      EXPECT_EQ((db.tags[f] & 1u) != 0, r == 1);  // the "run" tag on the run only
    }
  }
  std::printf(
      "mean speed (m/s): walk %.2f run %.2f left %.2f right %.2f; mean turn in 1 s (rad): walk %.2f "
      "run %.2f left %.2f right %.2f\n",
      speed[0], speed[1], speed[2], speed[3], turn[0], turn[1], turn[2], turn[3]);
  for (double low : lowest) EXPECT_LT(low, 0.15);  // the ankle over a planted foot
  EXPECT_GT(speed[0], 0.8);                        // walking pace, 0.8-2 m/s
  EXPECT_LT(speed[0], 2.0);
  EXPECT_GT(speed[1], 1.4 * speed[0]);  // running is faster
  EXPECT_LT(std::abs(turn[0]), 0.1);    // straight takes keep their heading
  EXPECT_GT(turn[2], 0.2);              // the left turn turns left (+), the right one right
  EXPECT_LT(turn[3], -0.2);
}

// Model-space joint positions of a clip at time t.
std::vector<Vec3> positions(const Clip& clip, const Skeleton& skeleton, float t) {
  std::vector<JointPose> locals(skeleton.joint_count());
  std::vector<Mat4> model(skeleton.joint_count());
  SamplingCache cache;
  EXPECT_TRUE((SampleJob{.clip = &clip, .time = t, .cache = &cache, .output = locals}.run()));
  EXPECT_TRUE((LocalToModelJob{.skeleton = &skeleton, .input = locals, .output = model}.run()));
  std::vector<Vec3> out;
  for (const Mat4& m : model) out.push_back(transform_point(m, {}));
  return out;
}

TEST(MotionDatabase, MirroredTakesTurnTheOtherWay) {
  REQUIRE_MOCAP();
  Mocap mocap = load_mocap({"dataset-2_walk-turn-left_normal_001.bvh"});
  ASSERT_EQ(mocap.character.clips.size(), 1u);
  const Skeleton& skeleton = mocap.character.skeleton;
  const std::vector<int> pairs = mirror_joints(skeleton);
  const int foot_l = skeleton.find_joint("Foot_L"), foot_r = skeleton.find_joint("Foot_R");
  EXPECT_EQ(pairs[foot_l], foot_r);
  EXPECT_EQ(pairs[skeleton.find_joint("Hips")], skeleton.find_joint("Hips"));
  const Clip& original = mocap.character.clips[0];
  auto mirrored = mirror_clip(original, skeleton);
  ASSERT_TRUE(mirrored) << mirrored.error();
  auto back = mirror_clip(*mirrored, skeleton);
  ASSERT_TRUE(back) << back.error();
  // Truth: the reflection x -> -x of the original's joint positions, each joint taking its mirror's; and
  // mirroring twice gives the original back (1 mm, the BVH being 1.4 m tall).
  double worst_mirror = 0, worst_back = 0;
  for (float t = 0; t < original.duration(); t += 0.1f) {
    const auto a = positions(original, skeleton, t), m = positions(*mirrored, skeleton, t),
               b = positions(*back, skeleton, t);
    for (int j = 0; j < skeleton.joint_count(); ++j) {
      const Vec3 want{-a[pairs[j]].x, a[pairs[j]].y, a[pairs[j]].z};
      worst_mirror = std::max(worst_mirror, static_cast<double>(length(m[j] - want)));
      worst_back = std::max(worst_back, static_cast<double>(length(b[j] - a[j])));
    }
  }
  std::printf(
      "mirror: joints within %.2e m of the reflection, mirrored twice within %.2e m of the original\n",
      worst_mirror, worst_back);
  EXPECT_LT(worst_mirror, 1e-3);
  EXPECT_LT(worst_back, 1e-3);
  // In a database the mirrored left turn turns right as much.
  mocap.character.clips.push_back(*mirrored);
  const std::vector<MotionSource> sources = {{0}, {1}};
  auto built = build_motion_database(mocap.character, sources);
  ASSERT_TRUE(built) << built.error();
  const DB& db = *built;
  double turn[2] = {};
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k + 60 < db.ranges[r].count; ++k) {
      const int f = db.ranges[r].first + k;
      const float x = db.frame_features(f)[25] / db.scale[25] + db.offset[25];
      const float z = db.frame_features(f)[26] / db.scale[26] + db.offset[26];
      turn[r] += std::atan2(x, z) / (db.ranges[r].count - 60);
    }
  std::printf("mean turn in 1 s: left take %.3f rad, mirrored %.3f rad\n", turn[0], turn[1]);
  EXPECT_GT(turn[0], 0.2);
  EXPECT_NEAR(turn[1], -turn[0], 0.02);
}

TEST(MotionSearch, CostAtOneHundredThousandFrames) {
  // The shared mocap and its mirror image, tiled to 100,000 frames, when present; else a wandering set (no
  // structure for the index to find: its figures are printed, not held to a goal).
  DB db;
  std::string what = "wandering features";
  const bool mocap_found = !test::shared_dir().empty() && fs::is_directory(test::shared_dir() + "/mocap");
  if (mocap_found) {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(test::shared_dir() + "/mocap"))
      if (e.path().extension() == ".bvh") files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    Mocap mocap = load_mocap(files);
    const size_t takes = mocap.character.clips.size();
    for (size_t c = 0; c < takes; ++c) {
      auto mirrored = mirror_clip(mocap.character.clips[c], mocap.character.skeleton);
      ASSERT_TRUE(mirrored) << mirrored.error();
      mocap.character.clips.push_back(std::move(*mirrored));
    }
    std::vector<MotionSource> sources;
    for (int c = 0; c < static_cast<int>(mocap.character.clips.size()); ++c) sources.push_back({c});
    const auto start = std::chrono::steady_clock::now();
    auto built = build_motion_database(mocap.character, sources);
    ASSERT_TRUE(built) << built.error();
    std::printf("database build: %d frames from %zu takes and their mirror images in %.1f ms\n",
                built->frame_count(), takes,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    db = *built;
    const DB one = *built;
    {  // The index returns the brute force's frame and cost on the real database too: 10,000 queries.
      const MotionSearchIndex index(one);
      int differ = 0;
      for (const Query& q : queries(one, 10000, 21)) {
        const MotionMatch brute = search(one, nullptr, q), fast = search(one, &index, q);
        differ += fast.frame != brute.frame || fast.cost != brute.cost;
      }
      EXPECT_EQ(differ, 0);
    }
    while (db.frame_count() < 100000) {
      for (const DB::Range& r : one.ranges)
        db.ranges.push_back({r.clip, db.frame_count() + r.first, r.count, r.start});
      db.features.insert(db.features.end(), one.features.begin(), one.features.end());
      db.tags.insert(db.tags.end(), one.tags.begin(), one.tags.end());
      db.roots.insert(db.roots.end(), one.roots.begin(), one.roots.end());
      db.contacts.insert(db.contacts.end(), one.contacts.begin(), one.contacts.end());
    }
    ASSERT_EQ(db.check(), "");
    what = "the shared mocap and its mirror image, tiled";
  } else {
    db = wandering_database(100000, 11);
  }
  const auto start = std::chrono::steady_clock::now();
  const MotionSearchIndex index(db);
  std::printf("index of %d frames built in %.1f ms\n", db.frame_count(),
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  // What a matcher asks (near a frame, naming it), then anything (half far from every frame).
  const std::vector<Query> near = near_queries(db, 500), mixed = queries(db, 200, 12);
  const double brute_near = microseconds_per_search(db, nullptr, near),
               fast_near = microseconds_per_search(db, &index, near),
               brute_mixed = microseconds_per_search(db, nullptr, mixed),
               fast_mixed = microseconds_per_search(db, &index, mixed);
  std::printf(
      "one search over %d frames (%s): brute force %.0f us, index %.1f us (%.1fx); any query: brute "
      "force %.0f us, index %.1f us (%.1fx)\n",
      db.frame_count(), what.c_str(), brute_near, fast_near, brute_near / fast_near, brute_mixed, fast_mixed,
      brute_mixed / fast_mixed);
  if (mocap_found) {
    EXPECT_LT(fast_near, brute_near);  // 10x apart here: a wide margin for a loaded machine
  }
}

TEST(MotionDatabase, TravelsInAnOssaFileAndHostileNumbersAreRefused) {
  auto sample = load_character(test::source_dir() + "/assets/sample/ossa_sample.fbx");
  ASSERT_TRUE(sample) << sample.error();
  const CharacterAsset& character = (*sample)->asset;
  std::vector<MotionSource> sources;
  for (int c = 0; c < static_cast<int>(character.clips.size()); ++c) sources.push_back({c});
  const std::vector<MotionTagRange> tags = {{0, "idle", 0, 2}};
  auto built = build_motion_database(character, sources, tags);
  ASSERT_TRUE(built) << built.error();
  OssaFile file;
  file.skeleton = character.skeleton;
  file.clips = character.clips;
  file.motion_database = *built;
  const std::vector<uint8_t> bytes = encode_ossa(file);
  auto back = decode_ossa(bytes, "mm.ossa");
  ASSERT_TRUE(back) << back.error();
  ASSERT_TRUE(back->motion_database);
  const DB &a = *built, &b = *back->motion_database;
  EXPECT_EQ(b.features, a.features);
  EXPECT_EQ(b.tags, a.tags);
  EXPECT_EQ(b.tag_names, a.tag_names);
  EXPECT_EQ(b.contacts, a.contacts);
  EXPECT_EQ(b.ranges.size(), a.ranges.size());
  EXPECT_EQ(b.hips, a.hips);
  // Nothing lost: the section is written again to the same bytes (its checksum in the table).
  auto database_checksum = [](const std::vector<uint8_t>& file_bytes) {
    uint32_t count = 0;
    std::memcpy(&count, file_bytes.data() + 16, 4);
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t type = 0;
      uint64_t checksum = 0;
      std::memcpy(&type, file_bytes.data() + 32 + 32 * i, 4);
      std::memcpy(&checksum, file_bytes.data() + 32 + 32 * i + 24, 8);
      if (type == 10) return checksum;
    }
    return uint64_t{0};
  };
  EXPECT_NE(database_checksum(bytes), 0u);
  EXPECT_EQ(database_checksum(encode_ossa(*back)), database_checksum(bytes));
  // Every number behind a valid checksum: refused with a message, never used. Offsets into the section:
  // frame rate 0, trajectory frames 4, joints 16, range count 28, ranges from 32 (16 bytes each).
  const size_t ranges_end = 32 + 16 * a.ranges.size(), features_at = ranges_end + 2 * (8 + 27 * 4) + 8;
  struct Patch {
    const char* what;
    size_t at;
    std::vector<uint8_t> value;
  };
  auto f32 = [](float v) {
    std::vector<uint8_t> out(4);
    std::memcpy(out.data(), &v, 4);
    return out;
  };
  auto i32 = [](int32_t v) {
    std::vector<uint8_t> out(4);
    std::memcpy(out.data(), &v, 4);
    return out;
  };
  auto u64 = [](uint64_t v) {
    std::vector<uint8_t> out(8);
    std::memcpy(out.data(), &v, 8);
    return out;
  };
  const Patch patches[] = {
      {"a NaN frame rate", 0, f32(std::numeric_limits<float>::quiet_NaN())},
      {"a trajectory of 0 frames", 4, i32(0)},
      {"trajectory frames out of order", 8, i32(10)},
      {"a foot outside the skeleton", 16, i32(character.skeleton.joint_count())},
      {"a negative hips", 24, i32(-1)},
      {"4 billion ranges", 28, i32(-1)},
      {"a range of a missing clip", 32, i32(static_cast<int32_t>(character.clips.size()))},
      {"a range starting elsewhere", 36, i32(1)},
      {"a range of 2^31 - 1 frames", 40, i32(std::numeric_limits<int32_t>::max())},
      {"a range past its clip's end", 44, f32(100)},
      {"a range starting at -inf", 44, f32(-std::numeric_limits<float>::infinity())},
      {"an offset array of 2^60 floats", ranges_end, u64(uint64_t{1} << 60)},
      {"a NaN feature", features_at + 4 * 5, f32(std::numeric_limits<float>::quiet_NaN())},
      {"a padding float", features_at + 4 * 27, f32(1)},
  };
  for (const Patch& p : patches) {
    std::vector<uint8_t> hostile = bytes;
    for (size_t i = 0; i < p.value.size(); ++i) test::patch_ossa_section(hostile, 10, p.at + i, p.value[i]);
    auto decoded = decode_ossa(hostile, "hostile.ossa");
    EXPECT_FALSE(decoded) << p.what;
    if (!decoded) {
      EXPECT_NE(decoded.error().find("hostile.ossa: "), std::string::npos) << decoded.error();
    }
  }
  // A database whose clips are not in the file, or without a skeleton, is refused too.
  OssaFile no_clips = file;
  no_clips.clips.clear();
  EXPECT_FALSE(decode_ossa(encode_ossa(no_clips), "no-clips.ossa"));
  OssaFile no_skeleton = file;
  no_skeleton.skeleton.reset();
  no_skeleton.clips.clear();
  EXPECT_FALSE(decode_ossa(encode_ossa(no_skeleton), "no-skeleton.ossa"));
}

}  // namespace
}  // namespace ossa
