#include "ossa/runtime/motion_search.h"

#include <algorithm>
#include <limits>

#if defined(__SSE2__) || defined(__ARM_NEON)
#include "kernels/vec4.h"
#define OSSA_MOTION_SEARCH_SIMD 1
#endif

namespace ossa {
namespace {

constexpr int kStride = MotionDatabase::kStride;

// Squared distance over kStride floats (7 steps of 4 lanes). One implementation for every caller, so that
// the brute force and the accelerated search see the same cost for a frame, bit for bit.
inline float squared_distance(const float* a, const float* b) {
#ifdef OSSA_MOTION_SEARCH_SIMD
  using namespace detail::vec4;
  F4 sum = set1(0);
  for (int d = 0; d < kStride; d += 4) {
    const F4 diff = sub(loadu(a + d), loadu(b + d));
    sum = add(mul(diff, diff), sum);  // no fused multiply-add: the same sums on every target
  }
  alignas(16) float lanes[4];
  store(lanes, sum);
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
#else
  float lanes[4] = {0, 0, 0, 0};
  for (int d = 0; d < kStride; d += 4)
    for (int l = 0; l < 4; ++l) {
      const float diff = a[d + l] - b[d + l];
      lanes[l] = diff * diff + lanes[l];
    }
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
#endif
}

// squared_distance(a, b) when it is at most `limit`, else a value above `limit`: the sum stops after 16 of
// the 28 floats when it already exceeds it. Every lane only grows as terms are added (and so does their final
// sum), so a partial sum above the limit means the whole one is too; the full sum is the same bits as
// squared_distance's.
inline float squared_distance_below(const float* a, const float* b, float limit) {
#ifdef OSSA_MOTION_SEARCH_SIMD
  using namespace detail::vec4;
  F4 sum = set1(0);
  for (int d = 0; d < 16; d += 4) {
    const F4 diff = sub(loadu(a + d), loadu(b + d));
    sum = add(mul(diff, diff), sum);
  }
  alignas(16) float lanes[4];
  store(lanes, sum);
  const float partial = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  if (partial > limit) return partial;
  for (int d = 16; d < kStride; d += 4) {
    const F4 diff = sub(loadu(a + d), loadu(b + d));
    sum = add(mul(diff, diff), sum);
  }
  store(lanes, sum);
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
#else
  (void)limit;
  return squared_distance(a, b);
#endif
}

// The squared distance from the query to a box: a lower bound on the cost of every frame in it.
inline float box_distance(const float* q, const float* lo, const float* hi) {
#ifdef OSSA_MOTION_SEARCH_SIMD
  using namespace detail::vec4;
  F4 sum = set1(0);
  for (int d = 0; d < kStride; d += 4) {
    const F4 x = loadu(q + d);
    const F4 diff = sub(x, vmax(loadu(lo + d), vmin(x, loadu(hi + d))));
    sum = add(mul(diff, diff), sum);
  }
  alignas(16) float lanes[4];
  store(lanes, sum);
  return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
#else
  float sum = 0;
  for (int d = 0; d < kStride; ++d) {
    const float diff = q[d] - std::max(lo[d], std::min(q[d], hi[d]));
    sum += diff * diff;
  }
  return sum;
#endif
}

// Rounding can put a box's float bound a few ulp above a frame's float cost; the bound is lowered by more
// than the 28 additions can err (about 28 x 2^-24 of the sum) so that no frame that could win is skipped.
inline float safe_bound(float bound) {
  return bound * (1 - 1e-5f);
}

bool matchable(uint32_t tags, uint32_t required) {
  return !(tags & MotionDatabase::kExcludedTag) && (tags & required) == required;
}

}  // namespace

float motion_cost(const MotionDatabase& database, const float* query, int frame) {
  return squared_distance(query, database.frame_features(frame));
}

MotionSearchIndex::MotionSearchIndex(const MotionDatabase& database) : database_(&database) {
  for (int f = 0; f < database.frame_count(); ++f)
    if (!(database.tags[f] & MotionDatabase::kExcludedTag)) frames_.push_back(f);
  if (!frames_.empty()) {
    nodes_.resize(1);
    boxes_.resize(2 * kStride);
    build(0, 0, static_cast<int>(frames_.size()));
  }
  features_.resize(frames_.size() * kStride);
  tags_.resize(frames_.size());
  for (size_t i = 0; i < frames_.size(); ++i) {
    std::copy_n(database.frame_features(frames_[i]), kStride, &features_[i * kStride]);
    tags_[i] = database.tags[frames_[i]];
  }
}

// Fills node `node` (its slot already made) over frames_[begin, end). Splits at the median of the widest
// feature of the node's box, so that the tree is balanced (depth at most log2 of the frames over kLeaf, under
// 28 for any int count) and its leaves are compact in feature space.
void MotionSearchIndex::build(int node, int begin, int end) {
  float *lo = &boxes_[static_cast<size_t>(node) * 2 * kStride], *hi = lo + kStride;
  std::fill_n(lo, kStride, std::numeric_limits<float>::infinity());
  std::fill_n(hi, kStride, -std::numeric_limits<float>::infinity());
  uint32_t tags = 0;
  for (int i = begin; i < end; ++i) {
    const float* x = database_->frame_features(frames_[i]);
    for (int d = 0; d < kStride; ++d) lo[d] = std::min(lo[d], x[d]), hi[d] = std::max(hi[d], x[d]);
    tags |= database_->tags[frames_[i]];
  }
  nodes_[node] = {begin, end, -1, tags};
  if (end - begin <= kLeaf) return;
  int widest = 0;
  for (int d = 1; d < MotionDatabase::kFeatures; ++d)
    if (hi[d] - lo[d] > hi[widest] - lo[widest]) widest = d;
  const int mid = begin + (end - begin) / 2;
  // Ties broken by frame, so that the index is the same on every machine.
  std::nth_element(frames_.begin() + begin, frames_.begin() + mid, frames_.begin() + end, [&](int a, int b) {
    const float va = database_->frame_features(a)[widest], vb = database_->frame_features(b)[widest];
    return va < vb || (va == vb && a < b);
  });
  // Children side by side, so that the search reads both boxes from one place.
  const int child = static_cast<int>(nodes_.size());
  nodes_[node].child = child;
  nodes_.resize(nodes_.size() + 2);
  boxes_.resize(nodes_.size() * 2 * kStride);  // lo and hi are not used past here: resizing may move them
  build(child, begin, mid);
  build(child + 1, mid, end);
}

bool MotionSearchJob::validate() const {
  if (!database || !output || query.size() != static_cast<size_t>(kStride)) return false;
  if (database->features.size() != static_cast<size_t>(database->frame_count()) * kStride) return false;
  if (database->tags.size() != static_cast<size_t>(database->frame_count())) return false;
  if (index && index->database_ != database) return false;
  return current_frame >= -1 && current_frame < database->frame_count() && skip_count >= 0;
}

bool MotionSearchJob::run() const {
  if (!validate()) return false;
  const MotionDatabase& db = *database;
  const float* q = query.data();
  MotionMatch best{-1, std::numeric_limits<float>::infinity()};
  auto skipped = [&](int f) {
    return static_cast<unsigned>(f - skip_first) < static_cast<unsigned>(skip_count);
  };
  if (current_frame >= 0 && matchable(db.tags[current_frame], required_tags) && !skipped(current_frame))
    best = {current_frame, motion_cost(db, q, current_frame)};
  if (!index) {
    for (int f = 0; f < db.frame_count(); ++f) {
      if (!matchable(db.tags[f], required_tags) || skipped(f)) continue;
      const float cost = squared_distance(q, db.frame_features(f));
      if (cost < best.cost) best = {f, cost};
    }
  } else if (!index->nodes_.empty() && (index->nodes_[0].tags & required_tags) == required_tags) {
    const MotionSearchIndex& ix = *index;
    auto box_bound = [&](int node) {
      const float* box = &ix.boxes_[static_cast<size_t>(node) * 2 * kStride];
      return safe_bound(box_distance(q, box, box + kStride));
    };
    // Boxes still to visit, each with its bound; at most one per level of the tree (under 28).
    struct Pending {
      int node;
      float bound;
    };
    Pending pending[64];
    int count = 0;
    pending[count++] = {0, box_bound(0)};
    while (count > 0) {
      const Pending next = pending[--count];
      if (next.bound > best.cost) continue;  // a better frame was found since it was put aside
      int node = next.node;
      while (ix.nodes_[node].child >= 0) {
        // The nearer child now, the other later if it can still hold a better frame.
        int near = ix.nodes_[node].child, far = near + 1;
        const bool near_ok = (ix.nodes_[near].tags & required_tags) == required_tags,
                   far_ok = (ix.nodes_[far].tags & required_tags) == required_tags;
        float near_bound = near_ok ? box_bound(near) : std::numeric_limits<float>::infinity(),
              far_bound = far_ok ? box_bound(far) : std::numeric_limits<float>::infinity();
        bool go_near = near_ok, go_far = far_ok;
        if (far_bound < near_bound)
          std::swap(near, far), std::swap(near_bound, far_bound), std::swap(go_near, go_far);
        if (go_far && far_bound <= best.cost) pending[count++] = {far, far_bound};
        if (!go_near || near_bound > best.cost) {
          node = -1;
          break;
        }
        node = near;
      }
      if (node < 0) continue;
      const MotionSearchIndex::Node& leaf = ix.nodes_[node];
      for (int i = leaf.first; i < leaf.end; ++i) {
        const int f = ix.frames_[i];
        if ((ix.tags_[i] & required_tags) != required_tags || skipped(f)) continue;
        const float cost =
            squared_distance_below(q, &ix.features_[static_cast<size_t>(i) * kStride], best.cost);
        // The brute force's order: the lower frame wins a tie, the current frame any tie.
        if (cost < best.cost || (cost == best.cost && f < best.frame && best.frame != current_frame))
          best = {f, cost};
      }
    }
  }
  *output = best.frame >= 0 ? best : MotionMatch{};
  return true;
}

}  // namespace ossa
