#include "ossa/runtime/motion_matcher.h"

#include <algorithm>
#include <cmath>

#include "ossa/runtime/blend_job.h"
#include "ossa/runtime/ik_job.h"
#include "ossa/runtime/sample_job.h"

namespace ossa {
namespace {

using DB = MotionDatabase;
constexpr float kPi = 3.14159265f;

Vec3 rotate_yaw(float yaw, Vec3 v) {  // about +Y, as RootDelta composes
  const float c = std::cos(yaw), s = std::sin(yaw);
  return {c * v.x + s * v.z, v.y, -s * v.x + c * v.z};
}
float wrap(float angle) {  // into [-pi, pi]
  return std::remainder(angle, 2 * kPi);
}
// Holden's half-life parametrisation of a critically damped spring: the time for the distance to halve.
float damping(float halflife) {
  return 4 * 0.69314718f / (halflife + 1e-5f);
}

}  // namespace

MotionMatcher::MotionMatcher(const CharacterAsset& character, const MotionDatabase& database,
                             const MotionSearchIndex& index, const MotionMatcherSettings& settings)
    : character_(&character),
      database_(&database),
      index_(&index),
      settings_(settings),
      pose_(character.skeleton.joint_count()),
      before_(character.skeleton.joint_count()),
      shown_(character.skeleton.joint_count()),
      inertializer_(character.skeleton.joint_count()) {
  // Start on the first frame that may be matched, facing +Z at the origin.
  for (int f = 0; f < database.frame_count(); ++f)
    if (!(database.tags[f] & DB::kExcludedTag)) {
      frame_ = f;
      break;
    }
  range_ = std::max(database.range_of(frame_), 0);
  const int foot[2] = {database.left_foot, database.right_foot};
  const std::span<const int> parents = character.skeleton.parents();
  for (int k = 0; k < 2; ++k) {
    FootLock& f = feet_[k];
    f.foot = foot[k];
    f.knee = f.foot >= 0 && f.foot < character.skeleton.joint_count() ? parents[f.foot] : -1;
    f.thigh = f.knee >= 0 ? parents[f.knee] : -1;
  }
  if (!database.ranges.empty()) {
    const DB::Range& r = database.ranges[range_];
    time_ = r.start + static_cast<float>(frame_ - r.first) / database.frame_rate;
  }
}

int MotionMatcher::clip() const {
  return database_->ranges.empty() ? -1 : database_->ranges[range_].clip;
}

RootDelta MotionMatcher::root_at(int range, float time) const {
  const DB::Range& r = database_->ranges[range];
  const float f = std::clamp((time - r.start) * database_->frame_rate, 0.f, static_cast<float>(r.count - 1));
  const int i = std::min(static_cast<int>(f), r.count - 2 >= 0 ? r.count - 2 : 0);
  const float a = r.count > 1 ? f - static_cast<float>(i) : 0;
  const RootDelta &p = database_->roots[r.first + i],
                  &q = database_->roots[r.first + std::min(i + 1, r.count - 1)];
  return {p.x + (q.x - p.x) * a, p.z + (q.z - p.z) * a, p.yaw + (q.yaw - p.yaw) * a};
}

// The clip's pose at `time`, in place: the hips' model transform moved into the frame of the simulation root
// there, held by the hips themselves, and the joints above them set to the identity. So the hips' local
// translation is their offset from the simulation root (centimetres between two clips, where a BVH's origin
// joint can lie metres away), which is what inertialization offsets and a jump compares.
void MotionMatcher::sample(int range, float time, std::span<JointPose> out) {
  const Clip& clip = character_->clips[database_->ranges[range].clip];
  SampleJob{.clip = &clip, .time = time, .cache = &cache_, .output = out}.run();
  const RootDelta root = root_at(range, time);
  const int hips = database_->hips;
  Mat4 hips_model = to_transform(out[hips]).to_matrix();
  for (int j = character_->skeleton.parents()[hips]; j >= 0; j = character_->skeleton.parents()[j]) {
    hips_model = to_transform(out[j]).to_matrix() * hips_model;
    out[j] = JointPose{};
  }
  const Mat4 unroot =
      rotation_matrix(quat_from_axis_angle({0, 1, 0}, -root.yaw)) * translation_matrix({-root.x, 0, -root.z});
  out[hips] = to_joint_pose(decompose(unroot * hips_model));
}

// The simulated root `horizon` seconds ahead, from the springs' closed forms.
void MotionMatcher::predict(float horizon, Vec3& position, float& yaw) const {
  const float y = damping(settings_.velocity_halflife) / 2, e = std::exp(-y * horizon);
  const Vec3 j0 = sim_velocity_ - goal_velocity_, j1 = sim_acceleration_ + j0 * y;
  position = (j1 * (-1 / (y * y)) + (j0 * -1 - j1 * horizon) * (1 / y)) * e + j1 * (1 / (y * y)) +
             j0 * (1 / y) + goal_velocity_ * horizon + sim_position_;
  const float yr = damping(settings_.facing_halflife) / 2, er = std::exp(-yr * horizon);
  const float k0 = sim_yaw_ - goal_yaw_, k1 = sim_yaw_rate_ + k0 * yr;
  yaw = er * (k0 + k1 * horizon) + goal_yaw_;
}

void MotionMatcher::build_query(float* query) const {
  const DB& db = *database_;
  std::copy_n(db.frame_features(frame_), DB::kStride, query);  // the pose features of what plays
  float raw[DB::kFeatures] = {};
  for (int i = 0; i < 3; ++i) {
    const Vec3 p = rotate_yaw(-root_.yaw, Vec3{desired_[i].x - root_.x, 0, desired_[i].z - root_.z});
    const Vec3 d = rotate_yaw(-root_.yaw, Vec3{std::sin(desired_[i].yaw), 0, std::cos(desired_[i].yaw)});
    raw[DB::kGroupFirst[DB::kTrajectoryPositions] + 2 * i] = p.x;
    raw[DB::kGroupFirst[DB::kTrajectoryPositions] + 2 * i + 1] = p.z;
    raw[DB::kGroupFirst[DB::kTrajectoryDirections] + 2 * i] = d.x;
    raw[DB::kGroupFirst[DB::kTrajectoryDirections] + 2 * i + 1] = d.z;
  }
  for (int d = DB::kGroupFirst[DB::kTrajectoryPositions]; d < DB::kFeatures; ++d)
    query[d] = (raw[d] - db.offset[d]) * db.scale[d];
}

void MotionMatcher::jump_to(int frame) {
  const DB& db = *database_;
  const int range = db.range_of(frame);
  const DB::Range& r = db.ranges[range];
  const float time = r.start + static_cast<float>(frame - r.first) / db.frame_rate, h = 1 / db.frame_rate;
  sample(range, time, pose_);
  sample(range, std::max(time - h, r.start), before_);
  ++stats_.jumps;
  if (settings_.transition == MotionTransition::kCrossfade && settings_.transition_duration > 0) {
    fade_range_ = range_, fade_time_ = time_, fade_elapsed_ = 0;
  } else {
    // Refused only before the first update, which never jumps.
    static_cast<void>(
        inertializer_.start(pose_, before_, time - h >= r.start ? h : 1e-3f, settings_.transition_duration));
  }
  range_ = range, frame_ = frame, time_ = time;
}

void MotionMatcher::update(Vec2 stick, bool run, float dt) {
  const DB& db = *database_;
  if (db.ranges.empty() || !(dt >= 0) || !std::isfinite(dt)) return;
  // 1. The simulation: the stick's goal, then the springs over dt.
  const float stick_length = std::hypot(stick.x, stick.y);
  const Vec2 s = stick_length > 1 ? Vec2{stick.x / stick_length, stick.y / stick_length} : stick;
  const Vec3 previous_goal = goal_velocity_;
  goal_velocity_ = Vec3{-s.x, 0, s.y} * (run ? settings_.run_speed : settings_.walk_speed);
  if (stick_length > 0.1f) goal_yaw_ = sim_yaw_ + wrap(std::atan2(-s.x, s.y) - sim_yaw_);
  {
    const float y = damping(settings_.velocity_halflife) / 2, e = std::exp(-y * dt);
    const Vec3 j0 = sim_velocity_ - goal_velocity_, j1 = sim_acceleration_ + j0 * y;
    Vec3 p;
    float unused;
    predict(dt, p, unused);
    sim_position_ = p;
    sim_velocity_ = (j0 + j1 * dt) * e + goal_velocity_;
    sim_acceleration_ = (sim_acceleration_ - j1 * (y * dt)) * e;
    const float yr = damping(settings_.facing_halflife) / 2, er = std::exp(-yr * dt);
    const float k0 = sim_yaw_ - goal_yaw_, k1 = sim_yaw_rate_ + k0 * yr;
    sim_yaw_ = er * (k0 + k1 * dt) + goal_yaw_;
    sim_yaw_rate_ = er * (sim_yaw_rate_ - k1 * yr * dt);
  }
  for (int i = 0; i < 3; ++i) {
    Vec3 p;
    float yaw;
    predict(static_cast<float>(db.trajectory_frames[i]) / db.frame_rate, p, yaw);
    desired_[i] = {p.x, p.z, yaw};
  }

  // 2. Playback on, with root motion.
  const float previous_time = time_;
  const DB::Range* r = &db.ranges[range_];
  const float end = r->start + static_cast<float>(r->count - 1) / db.frame_rate;
  time_ = std::min(time_ + dt, end);
  root_ = root_.then(root_at(range_, previous_time).inverse().then(root_at(range_, time_)));
  frame_ = r->first +
           std::clamp(static_cast<int>(std::lround((time_ - r->start) * db.frame_rate)), 0, r->count - 1);
  since_search_ += dt;

  // 3. The search, and a jump when it finds better motion elsewhere.
  const bool stale = (db.tags[frame_] & DB::kExcludedTag) != 0;
  if (!started_ || stale || since_search_ >= settings_.search_interval ||
      length(goal_velocity_ - previous_goal) > settings_.retrigger_speed) {
    since_search_ = 0;
    float query[DB::kStride];
    build_query(query);
    MotionMatch best;
    // Near its clip's end the current motion cannot go on: what leads back into that end is not matched.
    const int current = stale ? -1 : frame_;
    const int skip_first = std::max(r->first, frame_ - 2 * settings_.min_jump_frames - 30);
    MotionSearchJob{.database = &db,
                    .index = index_,
                    .query = query,
                    .current_frame = current,
                    .skip_first = skip_first,
                    .skip_count = stale ? r->first + r->count - skip_first : 0,
                    .output = &best}
        .run();
    ++stats_.searches;
    stats_.last_cost = best.cost;
    const bool near =
        best.frame >= 0 && !stale &&
        ((db.range_of(best.frame) == range_ && std::abs(best.frame - frame_) < settings_.min_jump_frames) ||
         best.cost > (1 - settings_.jump_gain) * motion_cost(db, query, frame_));
    if (best.frame >= 0 && best.frame != frame_ && !near && started_) jump_to(best.frame);
    if (!started_ && best.frame >= 0) {
      range_ = db.range_of(best.frame), frame_ = best.frame;
      time_ =
          db.ranges[range_].start + static_cast<float>(best.frame - db.ranges[range_].first) / db.frame_rate;
    }
  }
  sample(range_, time_, shown_);
  inertializer_.update(shown_, started_ ? dt : 0.f);
  if (fade_range_ >= 0) crossfade(dt);
  started_ = true;

  // 4. The root pulled towards the simulation, within the bound.
  const Vec3 gap{sim_position_.x - root_.x, 0, sim_position_.z - root_.z};
  const float distance = length(gap), step = settings_.max_correction_speed * dt;
  if (distance > 0) {
    const float k = std::min(1.f, step / distance);
    root_.x += gap.x * k, root_.z += gap.z * k;
  }
  const float turn = wrap(sim_yaw_ - root_.yaw), max_turn = settings_.max_correction_turn * dt;
  root_.yaw += std::clamp(turn, -max_turn, max_turn);

  if (settings_.foot_locking && !db.contacts.empty()) lock_feet(started_ ? dt : 0.f);
}

// The old motion, played on, blended into the new one by a smoothstep of the time since the jump.
void MotionMatcher::crossfade(float dt) {
  fade_elapsed_ += dt;
  const float x = fade_elapsed_ / settings_.transition_duration;
  if (!(x < 1)) {
    fade_range_ = -1;
    return;
  }
  const DB::Range& r = database_->ranges[fade_range_];
  fade_time_ = std::min(fade_time_ + dt, r.start + static_cast<float>(r.count - 1) / database_->frame_rate);
  sample(fade_range_, fade_time_, before_);
  const float w = x * x * (3 - 2 * x);  // the new motion's weight
  const BlendLayer layers[2] = {{.pose = before_, .weight = 1 - w, .joint_weights = {}},
                                {.pose = shown_, .weight = w, .joint_weights = {}}};
  BlendJob{
      .layers = layers, .additive_layers = {}, .rest_pose = character_->skeleton.rest_pose(), .output = pose_}
      .run();
  shown_.swap(pose_);  // pose_ is scratch between jumps
}

// Holds planted feet in the world by two-bone IK on the in-place pose (step 5 of the header).
void MotionMatcher::lock_feet(float dt) {
  const std::span<const int> parents = character_->skeleton.parents();
  // A joint's in-place model transform: the product of the locals up the chain (the joints above the hips
  // hold the identity).
  auto model_of = [&](int joint) {
    Mat4 m = to_transform(shown_[joint]).to_matrix();
    for (int j = parents[joint]; j >= 0; j = parents[j]) m = to_transform(shown_[j]).to_matrix() * m;
    return m;
  };
  const Vec3 root_position{root_.x, 0, root_.z};
  const float y = damping(settings_.unlock_halflife) / 2;
  for (int side = 0; side < 2; ++side) {
    FootLock& f = feet_[side];
    if (f.thigh < 0) continue;
    const Mat4 thigh = model_of(f.thigh), knee = thigh * to_transform(shown_[f.knee]).to_matrix(),
               foot = knee * to_transform(shown_[f.foot]).to_matrix();
    const Vec3 animated = rotate_yaw(root_.yaw, transform_point(foot, {})) + root_position;
    const bool planted = (database_->contacts[frame_] >> side) & 1;
    if (f.locked && (!planted || length(f.lock - animated) > settings_.unlock_distance)) {
      // Released: the shown foot (at the lock, still) becomes the animation's plus an offset that fades, its
      // rate set so that the shown foot starts from rest. A foot let go early is locked again once its offset
      // has faded under 1 cm (or at its next plant), not at once where it was.
      f.let_go_early = planted;
      stats_.early_unlocks += planted;
      f.locked = false;
      f.offset = f.lock - animated;
      f.offset_velocity = dt > 0 ? (f.animated - animated) * (1 / dt) : Vec3{};
    } else if (!f.locked) {
      const Vec3 j1 = f.offset_velocity + f.offset * y;
      const float e = std::exp(-y * dt);
      f.offset = (f.offset + j1 * dt) * e;
      f.offset_velocity = (f.offset_velocity - j1 * (y * dt)) * e;
      f.let_go_early = f.let_go_early && planted;
      if (planted && (!f.let_go_early || length(f.offset) < 0.01f)) {
        f.locked = true;
        f.lock = animated + f.offset;  // where the foot is shown now: no pop
        f.offset = f.offset_velocity = {};
        ++stats_.locks;
      }
    }
    f.animated = animated;
    const Vec3 target = f.locked ? f.lock : animated + f.offset;
    if (length(target - animated) < 1e-5f) continue;
    // The knee's hinge from the leg's bend (its left axis, +X in place, when the leg is straight), and the
    // pole the knee's side of the hip-ankle line.
    const Vec3 hip_p = transform_point(thigh, {}), knee_p = transform_point(knee, {}),
               foot_p = transform_point(foot, {});
    Vec3 hinge = cross(knee_p - hip_p, foot_p - knee_p);
    if (length(hinge) < 1e-3f * length(knee_p - hip_p) * length(foot_p - knee_p)) hinge = {1, 0, 0};
    Mat4 knee_inverse;  // a direction: the linear part's inverse is enough
    invert_linear(knee, knee_inverse);
    const Vec3 mid_axis = normalize(transform_vector(knee_inverse, normalize(hinge)));
    const Vec3 line = normalize(foot_p - hip_p);
    const Vec3 pole = knee_p - hip_p - line * dot(knee_p - hip_p, line);
    Quat fix[2];
    const TwoBoneIkJob ik{.start_joint = &thigh,
                          .mid_joint = &knee,
                          .end_joint = &foot,
                          .target = rotate_yaw(-root_.yaw, target - root_position),
                          .pole_vector = length(pole) > 1e-4f ? pole : cross(hinge, line),
                          .mid_axis = mid_axis,
                          .start_correction = &fix[0],
                          .mid_correction = &fix[1]};
    if (!ik.run()) continue;
    // The foot keeps its model rotation: what the thigh and knee turned, it turns back.
    auto rotation = [&](int j) { return to_transform(shown_[j]).rotation; };
    auto set_rotation = [&](int j, Quat q) {
      q = normalize(q);
      shown_[j].rotation[0] = q.x, shown_[j].rotation[1] = q.y, shown_[j].rotation[2] = q.z,
      shown_[j].rotation[3] = q.w;
    };
    const Quat before = rotation(f.thigh) * rotation(f.knee);
    set_rotation(f.thigh, rotation(f.thigh) * fix[0]);
    set_rotation(f.knee, rotation(f.knee) * fix[1]);
    set_rotation(f.foot, conjugate(rotation(f.thigh) * rotation(f.knee)) * before * rotation(f.foot));
  }
}

}  // namespace ossa
