// ossa/runtime/motion_search.h — the database frame nearest to a query: exact, brute force or accelerated.
//
// Use: build a MotionSearchIndex once per database (it allocates); per search, fill a query of kStride floats
// with MotionDatabase::normalize, and run a MotionSearchJob with the database, the index (or none, for the
// brute force), the query, the frame playing now and a MotionMatch to write. MotionMatcher does all this.
//
// The cost of frame f is the squared distance between the query and f's normalised features. The answer is
// the frame of least cost among those not excluded and holding every required tag; of equal costs the lowest
// frame wins, except that `current_frame` (what plays now) wins any tie, so a character already on the best
// frame keeps playing it. Both paths compute each frame's cost with the same SIMD code (SSE2, NEON or
// scalar), so they return the same frame and the same cost, bit for bit.
//
// The index is two levels of bounding boxes, as Holden's, but over frames grouped by where their features
// lie rather than by time: consecutive frames of a gait differ in their velocities so much that boxes of 16
// of them are nearly as wide as the database. The matchable frames are split at the median of their widest
// feature until a group holds at most 64 (a large box), and each of those likewise into groups of at most 16
// (small boxes), their features copied in that order. A box is skipped when the squared distance from the
// query to it (a lower bound on the cost of every frame inside, taken a little low against rounding) is above
// the best cost found so far, or when none of its frames has the required tags; ties go to the lower frame,
// as in the brute force. Starting from the current frame's cost (what a matcher passes) prunes most boxes at
// once. No allocation in run().
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ossa/asset/motion_database.h"

namespace ossa {

class MotionSearchIndex {
 public:
  static constexpr int kSmall = 16, kLarge = 64;
  MotionSearchIndex() = default;
  explicit MotionSearchIndex(const MotionDatabase& database);
  const MotionDatabase* database() const { return database_; }

 private:
  friend struct MotionSearchJob;
  struct Boxes {
    std::vector<float> min, max;  // kStride per box
    std::vector<uint32_t> tags;   // per box: the union of its frames' tags
    std::vector<int> first;       // box b holds the items [first[b], first[b + 1]) below it
  };
  void split(int begin, int end, int limit);
  const MotionDatabase* database_ = nullptr;
  std::vector<int> order_;       // the matchable frames, small box after small box
  std::vector<float> features_;  // their features in that order (kStride each)
  Boxes small_;                  // items: entries of order_
  Boxes large_;                  // items: small boxes
};

struct MotionMatch {
  int frame = -1;  // -1 when no frame may be matched
  float cost = 0;
};

struct MotionSearchJob {
  const MotionDatabase* database = nullptr;
  const MotionSearchIndex* index = nullptr;  // null: the brute force over every frame
  std::span<const float> query;              // kStride floats, normalised (MotionDatabase::normalize)
  uint32_t required_tags = 0;                // bits of MotionDatabase::tag_names every match must have
  int current_frame = -1;                    // wins ties; -1 for none
  int skip_first = 0, skip_count = 0;        // frames [skip_first, skip_first + skip_count) are not matched
  MotionMatch* output = nullptr;

  bool validate() const;  // database, output, query size; an index built for this database
  bool run() const;
};

// The cost of one frame, as both searches compute it.
float motion_cost(const MotionDatabase& database, const float* query, int frame);

}  // namespace ossa
