#include "ossa/runtime/motion_matcher.h"

#include <algorithm>
#include <cmath>

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
  if (inertializer_.start(pose_, before_, time - h >= r.start ? h : 1e-3f, settings_.inertialize_duration))
    ++stats_.jumps;
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
}

}  // namespace ossa
