#include "ossa/runtime/blend_space.h"

#include "anim_events.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/simd.h"

namespace ossa {
namespace {
constexpr size_t kEventCapacity = 512;

std::string point_text(BlendPoint p) {
  char text[64];
  std::snprintf(text, sizeof text, "(%g, %g)", p.x, p.y);
  return text;
}

// Finite, within kMaxCoordinate, and not subnormal: under flush-to-zero (SSE's FTZ/DAZ, which games set) a
// subnormal coordinate is 0, and two samples that differ only there would share a place.
bool coordinate_ok(float v) {
  return std::isfinite(v) && std::fabs(v) <= BlendSpace::kMaxCoordinate && std::fpclassify(v) != FP_SUBNORMAL;
}

struct P2 {
  double x, y;
};
P2 operator-(P2 a, P2 b) {
  return {a.x - b.x, a.y - b.y};
}
double cross(P2 a, P2 b) {
  return a.x * b.y - a.y * b.x;
}
double dot(P2 a, P2 b) {
  return a.x * b.x + a.y * b.y;
}

// Twice the area of the convex hull (Andrew's monotone chain), to check that the triangles tile it.
double hull_area2(std::vector<P2> p) {
  std::sort(p.begin(), p.end(), [](P2 a, P2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  std::vector<P2> h(2 * p.size());
  size_t k = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    while (k >= 2 && cross(h[k - 1] - h[k - 2], p[i] - h[k - 2]) <= 0) --k;
    h[k++] = p[i];
  }
  for (size_t i = p.size() - 1, lower = k + 1; i-- > 0;) {
    while (k >= lower && cross(h[k - 1] - h[k - 2], p[i] - h[k - 2]) <= 0) --k;
    h[k++] = p[i];
  }
  double area2 = 0;
  for (size_t i = 0; i + 1 < k; ++i) area2 += cross(h[i], h[i + 1]);
  return std::fabs(area2);
}
}  // namespace

Result<BlendSpace> BlendSpace::build_1d(std::span<const float> positions) {
  if (positions.empty()) return Result<BlendSpace>::failure("blend space: no samples");
  BlendSpace space;
  space.dimensions_ = 1;
  for (size_t i = 0; i < positions.size(); ++i) {
    if (!coordinate_ok(positions[i]))
      return Result<BlendSpace>::failure("blend space: sample " + std::to_string(i) + " is at " +
                                         std::to_string(positions[i]) +
                                         ", not a finite value within 1e6 (nor subnormal)");
    space.points_.push_back({positions[i], 0});
  }
  space.order_.resize(positions.size());
  std::iota(space.order_.begin(), space.order_.end(), 0);
  std::stable_sort(space.order_.begin(), space.order_.end(),
                   [&](int a, int b) { return positions[a] < positions[b]; });
  for (size_t k = 1; k < space.order_.size(); ++k) {
    const int a = space.order_[k - 1], b = space.order_[k];
    // A segment of length 0 (or under 1e-6, whose weights would divide by a subnormal under flush-to-zero):
    // no weight could tell them apart.
    if (!(positions[b] - positions[a] >= BlendSpace::kMinSeparation))
      return Result<BlendSpace>::failure("blend space: samples " + std::to_string(a) + " and " +
                                         std::to_string(b) + " are both at " + std::to_string(positions[a]));
  }
  return space;
}

Result<BlendSpace> BlendSpace::build_2d(std::span<const BlendPoint> points) {
  using R = Result<BlendSpace>;
  const size_t n = points.size();
  if (n < 3) return R::failure("blend space: a 2D space needs at least 3 samples not on one line");
  if (n > static_cast<size_t>(kMaxSamples2D))
    return R::failure("blend space: " + std::to_string(n) + " samples, more than the 2D limit of " +
                      std::to_string(kMaxSamples2D));
  BlendSpace space;
  space.dimensions_ = 2;
  double min_x = points[0].x, min_y = points[0].y, max_x = min_x, max_y = min_y;
  for (size_t i = 0; i < n; ++i) {
    if (!coordinate_ok(points[i].x) || !coordinate_ok(points[i].y))
      return R::failure("blend space: sample " + std::to_string(i) + " is at " + point_text(points[i]) +
                        ", not finite coordinates within 1e6");
    space.points_.push_back(points[i]);
    min_x = std::min<double>(min_x, points[i].x), max_x = std::max<double>(max_x, points[i].x);
    min_y = std::min<double>(min_y, points[i].y), max_y = std::max<double>(max_y, points[i].y);
  }
  // The predicates run on coordinates scaled into the unit square, so their tolerances are relative.
  const double extent = std::max(max_x - min_x, max_y - min_y);
  std::vector<P2> q(n);
  for (size_t i = 0; i < n; ++i) q[i] = {(points[i].x - min_x) / extent, (points[i].y - min_y) / extent};
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      if (std::hypot(q[i].x - q[j].x, q[i].y - q[j].y) < 1e-6)
        return R::failure("blend space: samples " + std::to_string(i) + " and " + std::to_string(j) +
                          " are both at " + point_text(points[i]));

  // Delaunay by brute force (n <= 64): a triangle belongs when no sample lies strictly inside its
  // circumcircle. Samples on a shared circle (a grid's squares) would give every triangle of that circle, so
  // such a group is triangulated once, as a fan of its points in angular order.
  constexpr double kAreaTolerance = 1e-9, kCircleTolerance = 1e-9;
  std::vector<std::vector<int>> groups_done;
  std::vector<int> group;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      for (size_t k = j + 1; k < n; ++k) {
        const double area2 = cross(q[j] - q[i], q[k] - q[i]);
        if (std::fabs(area2) <= kAreaTolerance) continue;
        // Circumcentre relative to q[i].
        const P2 b = q[j] - q[i], c = q[k] - q[i];
        const double bb = dot(b, b), cc = dot(c, c), d = 2 * area2;
        const P2 centre{q[i].x + (c.y * bb - b.y * cc) / d, q[i].y + (b.x * cc - c.x * bb) / d};
        const P2 ri = q[i] - centre;
        const double r2 = dot(ri, ri), tolerance = kCircleTolerance * std::max(1.0, r2);
        group.assign({static_cast<int>(i), static_cast<int>(j), static_cast<int>(k)});
        bool empty = true;
        for (size_t m = 0; m < n && empty; ++m) {
          if (m == i || m == j || m == k) continue;
          const P2 rm = q[m] - centre;
          const double d2 = dot(rm, rm);
          if (d2 < r2 - tolerance)
            empty = false;
          else if (d2 <= r2 + tolerance)
            group.push_back(static_cast<int>(m));
        }
        if (!empty) continue;
        std::sort(group.begin(), group.end());
        if (std::find(groups_done.begin(), groups_done.end(), group) != groups_done.end()) continue;
        if (group.size() > 3) groups_done.push_back(group);
        std::sort(group.begin(), group.end(), [&](int a, int b) {
          return std::atan2(q[a].y - centre.y, q[a].x - centre.x) <
                 std::atan2(q[b].y - centre.y, q[b].x - centre.x);
        });
        for (size_t t = 1; t + 1 < group.size(); ++t)
          space.triangles_.push_back({{group[0], group[t], group[t + 1]}});
      }
  if (space.triangles_.empty())
    return R::failure("blend space: the " + std::to_string(n) +
                      " samples lie on one line; use a 1D blend space for them");

  // The triangles must tile the convex hull exactly once (nearly cocircular samples could break that).
  double covered2 = 0;
  for (const Triangle& t : space.triangles_) covered2 += cross(q[t.v[1]] - q[t.v[0]], q[t.v[2]] - q[t.v[0]]);
  const double hull2 = hull_area2(q);
  if (std::fabs(covered2 - hull2) > 1e-6 * hull2)
    return R::failure("blend space: could not triangulate the samples (nearly on one circle or one line?)");

  // Hull edges: those of one triangle only.
  for (const Triangle& t : space.triangles_)
    for (int e = 0; e < 3; ++e) {
      const int a = t.v[e], b = t.v[(e + 1) % 3];
      int uses = 0;
      for (const Triangle& u : space.triangles_)
        for (int f = 0; f < 3; ++f)
          uses += (u.v[f] == a && u.v[(f + 1) % 3] == b) || (u.v[f] == b && u.v[(f + 1) % 3] == a);
      if (uses == 1) space.hull_.push_back({a, b});
    }
  return space;
}

bool BlendSpace::evaluate(float x, float y, std::span<float> weights) const {
  if (weights.size() < points_.size()) return false;
  std::fill(weights.begin(), weights.begin() + points_.size(), 0.f);
  if (std::isnan(x) || (dimensions_ == 2 && std::isnan(y))) {
    weights[0] = 1;
    return false;
  }
  // Infinities become far points: the clamping and the projection onto the hull handle them.
  const double far = 4.0 * kMaxCoordinate;
  const double px = std::clamp(static_cast<double>(x), -far, far),
               py = std::clamp(static_cast<double>(y), -far, far);
  if (dimensions_ == 1)
    evaluate_1d(px, weights);
  else
    evaluate_2d(px, py, weights);
  return true;
}

void BlendSpace::evaluate_1d(double x, std::span<float> weights) const {
  const int first = order_.front(), last = order_.back();
  if (x <= points_[first].x) {
    weights[first] = 1;
    return;
  }
  if (x >= points_[last].x) {
    weights[last] = 1;
    return;
  }
  // The segment [lo, hi) holding x: the first sorted sample above x, and the one before it.
  const auto above = std::upper_bound(order_.begin(), order_.end(), x,
                                      [&](double v, int sample) { return v < points_[sample].x; });
  const int lo = *(above - 1), hi = *above;
  const double t = (x - points_[lo].x) / (static_cast<double>(points_[hi].x) - points_[lo].x);
  weights[lo] = static_cast<float>(1 - t);
  weights[hi] = static_cast<float>(t);
}

void BlendSpace::evaluate_2d(double x, double y, std::span<float> weights) const {
  const P2 p{x, y};
  auto at = [&](int sample) { return P2{points_[sample].x, points_[sample].y}; };
  // The triangle where p is deepest inside (largest smallest barycentric coordinate). Each coordinate is
  // computed from its own corner's expression, so at a corner it is exactly 1 and the others exactly 0.
  double best_min = -1e300, best[3] = {0, 0, 0};
  const Triangle* best_triangle = nullptr;
  for (const Triangle& t : triangles_) {
    double lambda[3];
    for (int c = 0; c < 3; ++c) {
      const P2 v = at(t.v[c]), b = at(t.v[(c + 1) % 3]), d = at(t.v[(c + 2) % 3]);
      lambda[c] = cross(b - p, d - p) / cross(b - v, d - v);
    }
    const double smallest = std::min({lambda[0], lambda[1], lambda[2]});
    if (smallest > best_min) {
      best_min = smallest;
      std::copy(lambda, lambda + 3, best);
      best_triangle = &t;
    }
  }
  if (best_triangle && best_min >= -1e-9) {
    double sum = 0;
    for (double& l : best) sum += (l = std::max(0.0, l));
    for (int c = 0; c < 3; ++c) weights[best_triangle->v[c]] = static_cast<float>(best[c] / sum);
    return;
  }
  // Outside the hull: the nearest point of the hull, weighted along its edge.
  double best_d2 = 1e300, best_t = 0;
  const Edge* nearest = &hull_.front();
  for (const Edge& e : hull_) {
    const P2 a = at(e.a), ab = at(e.b) - a;
    const double t = std::clamp(dot(p - a, ab) / dot(ab, ab), 0.0, 1.0);
    const P2 r = p - P2{a.x + t * ab.x, a.y + t * ab.y};
    const double d2 = dot(r, r);
    if (d2 < best_d2) best_d2 = d2, best_t = t, nearest = &e;
  }
  weights[nearest->a] = static_cast<float>(1 - best_t);
  weights[nearest->b] += static_cast<float>(best_t);
}

// --- BlendSpacePlayer
// ---------------------------------------------------------------------------------------

Result<BlendSpacePlayer> BlendSpacePlayer::create(const CharacterAsset& asset, const BlendSpace& space,
                                                  std::span<const int> clips, const NotifySet* notifies,
                                                  std::span<const RootMotionTrack> root_motion,
                                                  std::span<const std::string> sync_markers) {
  using R = Result<BlendSpacePlayer>;
  if (clips.size() != static_cast<size_t>(space.sample_count()))
    return R::failure("blend space player: " + std::to_string(clips.size()) + " clips for " +
                      std::to_string(space.sample_count()) + " samples");
  if (!root_motion.empty() && root_motion.size() != asset.clips.size())
    return R::failure("blend space player: root motion needs one track per clip of the character");
  BlendSpacePlayer player;
  player.asset_ = &asset;
  player.space_ = &space;
  player.notifies_ = notifies;
  player.root_motion_ = root_motion;
  std::vector<int> marker_ids;
  for (const std::string& name : sync_markers)
    if (const int id = notifies ? notifies->find_notify(name) : -1; id >= 0) marker_ids.push_back(id);
  const size_t joints = static_cast<size_t>(asset.skeleton.joint_count());
  player.samples_.resize(clips.size());
  for (size_t i = 0; i < clips.size(); ++i) {
    const int clip = clips[i];
    if (clip < 0 || clip >= static_cast<int>(asset.clips.size()))
      return R::failure("blend space player: sample " + std::to_string(i) + " has no clip (index " +
                        std::to_string(clip) + ")");
    Sample& s = player.samples_[i];
    s.clip = clip;
    s.duration = asset.clips[clip].duration();
    s.pose.resize(joints);
    s.cache.reset(&asset.clips[clip]);
    const ClipNotifies* clip_notifies =
        notifies && clip < static_cast<int>(notifies->clips.size()) ? &notifies->clips[clip] : nullptr;
    s.playhead.start(s.duration, LoopMode::kRepeat, 0, 0, clip_notifies);
    if (clip_notifies && s.duration > 0)
      for (const Notify& n : clip_notifies->instants)  // sorted by time; one marker per time
        if (std::find(marker_ids.begin(), marker_ids.end(), n.name_id) != marker_ids.end() &&
            (s.marker_times.empty() || n.time > s.marker_times.back()) && n.time < s.duration) {
          s.marker_times.push_back(n.time);
          s.marker_names.push_back(n.name_id);
        }
  }
  player.weights_.resize(clips.size());
  player.layers_.reserve(clips.size());
  player.locals_.assign(asset.skeleton.rest_pose().begin(), asset.skeleton.rest_pose().end());
  player.scratch_ = EventBuffer(kEventCapacity);
  player.events_.reserve(kEventCapacity);
  return player;
}

bool BlendSpacePlayer::set_parameter(float x, float y) {
  if (!std::isfinite(x) || !std::isfinite(y)) return false;
  // Subnormal parameters are 0, whether or not the caller's thread flushes them (the same weights either
  // way).
  x_ = std::fpclassify(x) == FP_SUBNORMAL ? 0.f : x, y_ = std::fpclassify(y) == FP_SUBNORMAL ? 0.f : y;
  return true;
}

// The marker segment that holds `time`: the last marker at or before it (wrapping to the previous cycle's
// last marker before the first), and the fraction of the way to the next marker.
BlendSpacePlayer::MarkerPhase BlendSpacePlayer::marker_phase(const Sample& s, double time) const {
  const std::vector<float>& m = s.marker_times;
  if (m.empty()) return {};
  const double length = s.duration;
  const size_t after = static_cast<size_t>(std::upper_bound(m.begin(), m.end(), time) - m.begin());
  const size_t k = after == 0 ? m.size() - 1 : after - 1;
  const double start = after == 0 ? m[k] - length : m[k];
  const double end = k + 1 < m.size() ? m[k + 1] : m[0] + length;
  return {s.marker_names[k], end > start ? std::clamp((time - start) / (end - start), 0.0, 1.0) : 0.0};
}

// Where a follower goes so that it is in phase with the leader: the synced time (by markers when both have
// the leader's current marker, else by normalised time) nearest `expected` (the follower's time plus its
// nominal step), unwrapped so that a step across the follower's end keeps its loop.
double BlendSpacePlayer::synced_time(const Sample& leader, const Sample& follower, double expected) const {
  const double length = follower.duration;
  if (length <= 0) return 0;
  auto nearest = [&](double target) { return target + length * std::round((expected - target) / length); };
  const MarkerPhase phase = marker_phase(leader, leader.playhead.time());
  double best = 0, best_distance = -1;
  if (phase.name >= 0) {
    const std::vector<float>& m = follower.marker_times;
    for (size_t k = 0; k < m.size(); ++k) {
      if (follower.marker_names[k] != phase.name) continue;
      const double end = k + 1 < m.size() ? m[k + 1] : m[0] + length;
      const double candidate = nearest(m[k] + phase.fraction * (end - m[k]));
      if (best_distance < 0 || std::fabs(candidate - expected) < best_distance)
        best = candidate, best_distance = std::fabs(candidate - expected);
    }
  }
  if (best_distance >= 0) return best;
  const double ratio = leader.duration > 0 ? leader.playhead.time() / leader.duration : 0;
  return nearest(ratio * length);
}

void BlendSpacePlayer::collect(const Sample& s) {
  detail::collect_events(s.clip, notifies_, scratch_, events_, dropped_);
}

void BlendSpacePlayer::end_states() {
  events_.clear();
  dropped_ = 0;
  for (Sample& s : samples_) {
    scratch_.clear();
    s.playhead.end_states(scratch_);
    collect(s);
    s.notify_active = false;
  }
}

void BlendSpacePlayer::restart(float phase) {
  const double fraction = std::isfinite(phase) ? phase - std::floor(phase) : 0.0;
  for (Sample& s : samples_) {
    scratch_.clear();
    s.playhead.end_states(scratch_);
    s.playhead.seek(static_cast<float>(fraction * s.duration));
    s.notify_active = false;
  }
  scratch_.clear();
  events_.clear();
}

void BlendSpacePlayer::update(float dt) {
  FlushDenormalsScope flush;
  events_.clear();
  dropped_ = 0;
  root_delta_ = {};
  space_->evaluate(x_, y_, weights_);
  leader_ = static_cast<int>(std::max_element(weights_.begin(), weights_.end()) - weights_.begin());

  // The shared phase moves by step / L_blend per update: each clip by step * its length / L_blend.
  const double step = std::isfinite(dt) ? static_cast<double>(dt) * speed_ : 0.0;
  double blended_length = 0;
  for (size_t i = 0; i < samples_.size(); ++i) blended_length += weights_[i] * samples_[i].duration;
  auto nominal = [&](const Sample& s) {
    return blended_length > 0 ? step * s.duration / blended_length : step;
  };

  Sample& leader = samples_[leader_];
  auto counts = [&](size_t i) {
    return static_cast<int>(i) == leader_ || (weights_[i] > 0 && weights_[i] >= notify_weight_threshold);
  };
  auto advance_sample = [&](size_t i, double delta) {
    Sample& s = samples_[i];
    const bool c = counts(i);
    if (!c && s.notify_active) {  // stopped counting: its open states end now
      scratch_.clear();
      s.playhead.end_states(scratch_);
      collect(s);
    }
    s.notify_active = c;
    scratch_.clear();
    s.playhead.advance(delta, scratch_);
    if (c) {
      collect(s);
    } else {
      scratch_.clear();
      s.playhead.end_states(scratch_);  // states entered unreported are left silently
      scratch_.clear();
    }
  };
  advance_sample(static_cast<size_t>(leader_), nominal(leader));
  for (size_t i = 0; i < samples_.size(); ++i) {
    if (static_cast<int>(i) == leader_) continue;
    Sample& s = samples_[i];
    const double now = s.playhead.time();
    advance_sample(i, synced_time(leader, s, now + nominal(s)) - now);
  }

  // Root motion: the clips' travel over the time each swept, weighted like their poses.
  if (!root_motion_.empty()) {
    for (size_t i = 0; i < samples_.size(); ++i) {
      if (weights_[i] <= 0) continue;
      RootDelta travel;
      const RootMotionTrack& track = root_motion_[samples_[i].clip];
      for (const PlayheadSegment& segment : samples_[i].playhead.segments()) {
        const RootDelta d = track.delta(segment.from, segment.to);
        for (int k = 0; k < segment.count; ++k) travel = travel.then(d);
      }
      root_delta_.x += weights_[i] * travel.x;
      root_delta_.z += weights_[i] * travel.z;
      root_delta_.yaw += weights_[i] * travel.yaw;
    }
  }

  // Pose: the clips that weigh, sampled and blended (one clip alone is a copy).
  layers_.clear();
  for (size_t i = 0; i < samples_.size(); ++i) {
    Sample& s = samples_[i];
    if (weights_[i] <= 0) continue;
    if (SampleJob{&asset_->clips[s.clip], s.playhead.time(), &s.cache, s.pose}.run())
      layers_.push_back(BlendLayer{s.pose, weights_[i], {}});
  }
  BlendJob{layers_, {}, asset_->skeleton.rest_pose(), locals_}.run();
}

}  // namespace ossa
