#include "ossa/asset/motion_database.h"

#include <cmath>

namespace ossa {

int MotionDatabase::range_of(int frame) const {
  // Ranges are in frame order: a binary search.
  int lo = 0, hi = static_cast<int>(ranges.size()) - 1;
  while (lo <= hi) {
    const int mid = (lo + hi) / 2;
    if (frame < ranges[mid].first) {
      hi = mid - 1;
    } else if (frame >= ranges[mid].first + ranges[mid].count) {
      lo = mid + 1;
    } else {
      return mid;
    }
  }
  return -1;
}

void MotionDatabase::normalize(const float* raw, float* out) const {
  for (int d = 0; d < kFeatures; ++d) out[d] = (raw[d] - offset[d]) * scale[d];
  for (int d = kFeatures; d < kStride; ++d) out[d] = 0;
}

std::string MotionDatabase::check() const {
  const size_t frames = tags.size();
  if (!(frame_rate > 0) || !(frame_rate <= 1000)) return "frame rate not in (0, 1000]";
  for (int i = 0; i < 3; ++i)
    if (trajectory_frames[i] < 1 || trajectory_frames[i] > 100000 ||
        (i > 0 && trajectory_frames[i] <= trajectory_frames[i - 1]))
      return "trajectory frames are not ascending in [1, 100000]";
  if (left_foot < 0 || right_foot < 0 || hips < 0) return "a followed joint is missing";
  if (features.size() != frames * kStride) return "feature array does not hold one vector per frame";
  if (roots.size() != frames) return "root array does not hold one root per frame";
  if (!contacts.empty() && contacts.size() != frames)
    return "contact array does not hold one entry per frame";
  if (offset.size() != kFeatures || scale.size() != kFeatures) return "normalisation is not one per feature";
  if (tag_names.size() > static_cast<size_t>(kMaxTags)) return "over 31 tags";
  int next = 0;
  for (const Range& r : ranges) {
    if (r.first != next || r.count <= 0 || r.clip < 0 || r.count > static_cast<int>(frames) - next)
      return "ranges do not cover the frames in order";
    if (!(r.start >= 0) || !(r.start < 1e7f)) return "a range's start time is not in [0, 1e7)";
    next += r.count;
  }
  if (static_cast<size_t>(next) != frames) return "ranges do not cover the frames in order";
  for (float v : features)
    if (!std::isfinite(v)) return "a feature is not finite";
  for (const RootDelta& r : roots)
    if (!(std::abs(r.x) < 1e7f) || !(std::abs(r.z) < 1e7f) || !(std::abs(r.yaw) < 1e7f))
      return "a root is not finite or lies outside +-1e7";
  for (int d = 0; d < kFeatures; ++d)
    if (!std::isfinite(offset[d]) || !std::isfinite(scale[d])) return "normalisation is not finite";
  for (size_t f = 0; f < frames; ++f) {
    if (features[f * kStride + kFeatures] != 0) return "a frame's padding is not 0";
    if ((tags[f] & ~kExcludedTag) >> tag_names.size()) return "a frame has a tag with no name";
    if (!contacts.empty() && contacts[f] > 3) return "a frame's contacts name a third foot";
  }
  return "";
}

}  // namespace ossa
