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
  const int frames = database.frame_count();
  auto build = [&](Boxes& boxes, int size) {
    const int count = (frames + size - 1) / size;
    boxes.min.assign(static_cast<size_t>(count) * kStride, std::numeric_limits<float>::infinity());
    boxes.max.assign(static_cast<size_t>(count) * kStride, -std::numeric_limits<float>::infinity());
    boxes.tags.assign(static_cast<size_t>(count), 0);
    for (int f = 0; f < frames; ++f) {
      const int b = f / size;
      const float* x = database.frame_features(f);
      float *lo = &boxes.min[static_cast<size_t>(b) * kStride],
            *hi = &boxes.max[static_cast<size_t>(b) * kStride];
      for (int d = 0; d < kStride; ++d) lo[d] = std::min(lo[d], x[d]), hi[d] = std::max(hi[d], x[d]);
      if (!(database.tags[f] & MotionDatabase::kExcludedTag)) boxes.tags[b] |= database.tags[f] | (1u << 31);
    }
  };
  build(small_, kSmall);
  build(large_, kLarge);
}

bool MotionSearchJob::validate() const {
  if (!database || !output || query.size() != static_cast<size_t>(kStride)) return false;
  if (database->features.size() != static_cast<size_t>(database->frame_count()) * kStride) return false;
  if (index && index->database_ != database) return false;
  if (index && index->small_.tags.size() !=
                   static_cast<size_t>((database->frame_count() + MotionSearchIndex::kSmall - 1) /
                                       MotionSearchIndex::kSmall))
    return false;
  return current_frame >= -1 && current_frame < database->frame_count();
}

bool MotionSearchJob::run() const {
  if (!validate()) return false;
  const MotionDatabase& db = *database;
  const float* q = query.data();
  MotionMatch best{-1, std::numeric_limits<float>::infinity()};
  if (current_frame >= 0 && matchable(db.tags[current_frame], required_tags))
    best = {current_frame, motion_cost(db, q, current_frame)};
  auto consider = [&](int f) {
    if (!matchable(db.tags[f], required_tags)) return;
    const float cost = squared_distance(q, db.frame_features(f));
    if (cost < best.cost) best = {f, cost};
  };
  const int frames = db.frame_count();
  if (!index) {
    for (int f = 0; f < frames; ++f) consider(f);
  } else {
    // A box may hold frames only when its tag union has the marker bit (31) and every required tag.
    const uint32_t need = required_tags | (1u << 31);
    const MotionSearchIndex::Boxes &large = index->large_, &small = index->small_;
    const int large_count = static_cast<int>(large.tags.size());
    for (int lb = 0; lb < large_count; ++lb) {
      if ((large.tags[lb] & need) != need) continue;
      const size_t lo = static_cast<size_t>(lb) * kStride;
      if (safe_bound(box_distance(q, &large.min[lo], &large.max[lo])) > best.cost) continue;
      const int small_end = std::min((lb + 1) * (MotionSearchIndex::kLarge / MotionSearchIndex::kSmall),
                                     static_cast<int>(small.tags.size()));
      for (int sb = lb * (MotionSearchIndex::kLarge / MotionSearchIndex::kSmall); sb < small_end; ++sb) {
        if ((small.tags[sb] & need) != need) continue;
        const size_t so = static_cast<size_t>(sb) * kStride;
        if (safe_bound(box_distance(q, &small.min[so], &small.max[so])) > best.cost) continue;
        const int end = std::min((sb + 1) * MotionSearchIndex::kSmall, frames);
        for (int f = sb * MotionSearchIndex::kSmall; f < end; ++f) consider(f);
      }
    }
  }
  *output = best.frame >= 0 ? best : MotionMatch{};
  return true;
}

}  // namespace ossa
