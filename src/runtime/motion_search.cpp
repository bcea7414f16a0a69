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
    if (!(database.tags[f] & MotionDatabase::kExcludedTag)) order_.push_back(f);
  const int count = static_cast<int>(order_.size());
  large_.first.push_back(0);
  small_.first.push_back(0);
  split(0, count, kLarge);
  features_.resize(order_.size() * kStride);
  for (int i = 0; i < count; ++i)
    std::copy_n(database.frame_features(order_[i]), kStride, &features_[static_cast<size_t>(i) * kStride]);
  // Box bounds and tag unions, small boxes from their frames, large ones from their small boxes.
  auto bound = [&](Boxes& boxes, int count_boxes, auto&& item_min, auto&& item_max, auto&& item_tags) {
    boxes.min.assign(static_cast<size_t>(count_boxes) * kStride, std::numeric_limits<float>::infinity());
    boxes.max.assign(static_cast<size_t>(count_boxes) * kStride, -std::numeric_limits<float>::infinity());
    boxes.tags.assign(static_cast<size_t>(count_boxes), 0);
    for (int b = 0; b < count_boxes; ++b) {
      float *lo = &boxes.min[static_cast<size_t>(b) * kStride],
            *hi = &boxes.max[static_cast<size_t>(b) * kStride];
      for (int i = boxes.first[b]; i < boxes.first[b + 1]; ++i) {
        const float *a = item_min(i), *z = item_max(i);
        for (int d = 0; d < kStride; ++d) lo[d] = std::min(lo[d], a[d]), hi[d] = std::max(hi[d], z[d]);
        boxes.tags[b] |= item_tags(i);
      }
    }
  };
  const int smalls = static_cast<int>(small_.first.size()) - 1,
            larges = static_cast<int>(large_.first.size()) - 1;
  auto frame_at = [&](int i) { return &features_[static_cast<size_t>(i) * kStride]; };
  bound(small_, smalls, frame_at, frame_at, [&](int i) { return database.tags[order_[i]]; });
  bound(
      large_, larges, [&](int b) { return &small_.min[static_cast<size_t>(b) * kStride]; },
      [&](int b) { return &small_.max[static_cast<size_t>(b) * kStride]; },
      [&](int b) { return small_.tags[b]; });
}

// Splits order_[begin, end) at the median of its widest feature until the parts hold at most `limit` frames:
// kLarge for a large box (each then split to kSmall), kSmall for a small one.
void MotionSearchIndex::split(int begin, int end, int limit) {
  if (end - begin <= limit) {
    if (limit == kLarge) {
      split(begin, end, kSmall);
      large_.first.push_back(static_cast<int>(small_.first.size()) - 1);
    } else {
      small_.first.push_back(end);
    }
    return;
  }
  int widest = 0;
  float widest_extent = -1;
  for (int d = 0; d < MotionDatabase::kFeatures; ++d) {
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (int i = begin; i < end; ++i) {
      const float v = database_->frame_features(order_[i])[d];
      lo = std::min(lo, v), hi = std::max(hi, v);
    }
    if (hi - lo > widest_extent) widest_extent = hi - lo, widest = d;
  }
  const int mid = begin + (end - begin) / 2;
  // Ties broken by frame, so that the index is the same on every machine.
  std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end, [&](int a, int b) {
    const float va = database_->frame_features(a)[widest], vb = database_->frame_features(b)[widest];
    return va < vb || (va == vb && a < b);
  });
  split(begin, mid, limit);
  split(mid, end, limit);
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
  } else {
    const MotionSearchIndex::Boxes &large = index->large_, &small = index->small_;
    const int large_count = static_cast<int>(large.tags.size());
    for (int lb = 0; lb < large_count; ++lb) {
      if ((large.tags[lb] & required_tags) != required_tags) continue;
      const size_t lo = static_cast<size_t>(lb) * kStride;
      if (safe_bound(box_distance(q, &large.min[lo], &large.max[lo])) > best.cost) continue;
      for (int sb = large.first[lb]; sb < large.first[lb + 1]; ++sb) {
        if ((small.tags[sb] & required_tags) != required_tags) continue;
        const size_t so = static_cast<size_t>(sb) * kStride;
        if (safe_bound(box_distance(q, &small.min[so], &small.max[so])) > best.cost) continue;
        for (int i = small.first[sb]; i < small.first[sb + 1]; ++i) {
          const int f = index->order_[i];
          if ((db.tags[f] & required_tags) != required_tags || skipped(f)) continue;
          const float cost =
              squared_distance_below(q, &index->features_[static_cast<size_t>(i) * kStride], best.cost);
          // The brute force's order: the lower frame wins a tie, the current frame any tie.
          if (cost < best.cost || (cost == best.cost && f < best.frame && best.frame != current_frame))
            best = {f, cost};
        }
      }
    }
  }
  *output = best.frame >= 0 ? best : MotionMatch{};
  return true;
}

}  // namespace ossa
