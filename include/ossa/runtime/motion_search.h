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
// The index is a tree of bounding boxes over frames grouped by where their features lie, not by time:
// consecutive frames of a gait differ in their velocities so much that boxes of 16 of them are nearly as
// wide as the database (Holden's boxes over time ranges). The matchable frames are split at the median of
// their box's widest feature until a leaf holds at most 16, their features copied in leaf order. The search
// descends nearest child first, so that a good match is found within a few leaves, and skips a box when the
// squared distance from the query to it (a lower bound on the cost of every frame inside, taken a little low
// against rounding) is above the best cost found so far, or when none of its frames has the required tags.
// Starting from the current frame's cost (what a matcher passes) prunes most of the tree at once. run() keeps
// its pending boxes in a fixed array on the stack (the tree is at most 40 levels deep): no allocation.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ossa/asset/motion_database.h"

namespace ossa {

class MotionSearchIndex {
 public:
  static constexpr int kLeaf = 16;  // frames per leaf at most
  MotionSearchIndex() = default;
  explicit MotionSearchIndex(const MotionDatabase& database);
  const MotionDatabase* database() const { return database_; }
  int node_count() const { return static_cast<int>(nodes_.size()); }

 private:
  friend struct MotionSearchJob;
  struct Node {
    int first = 0, end = 0;  // a leaf: the entries [first, end) of frames_
    int child = -1;          // an inner node: children at child and child + 1; -1 for a leaf
    uint32_t tags = 0;       // the union of its frames' tags
  };
  void build(int node, int begin, int end);
  const MotionDatabase* database_ = nullptr;
  std::vector<Node> nodes_;      // nodes_[0] is the root
  std::vector<float> boxes_;     // each node's box: kStride floats of minima, then kStride of maxima
  std::vector<int> frames_;      // the matchable frames, leaf after leaf
  std::vector<uint32_t> tags_;   // their tags in that order
  std::vector<float> features_;  // their features in that order (kStride each)
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
