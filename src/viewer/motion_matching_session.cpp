#include "viewer/motion_matching_session.h"

#include <cmath>

#include "ossa/runtime/local_to_model_job.h"

namespace ossa::viewer {
namespace {

// A feature in its units (MotionDatabase::normalize undone); a group weighted 0 keeps only its mean.
float raw_feature(const MotionDatabase& db, const float* features, int d) {
  return db.scale[d] != 0 ? features[d] / db.scale[d] + db.offset[d] : db.offset[d];
}

}  // namespace

Result<std::unique_ptr<MotionMatchingSession>> MotionMatchingSession::make(
    std::shared_ptr<const LoadedCharacter> character, const MotionMatcherSettings& settings) {
  using R = Result<std::unique_ptr<MotionMatchingSession>>;
  if (!character || !character->motion_database)
    return R::failure("no motion database in this file (make one with `ossa mm build`)");
  std::unique_ptr<MotionMatchingSession> session(new MotionMatchingSession);
  session->character_ = std::move(character);
  session->settings_ = settings;
  session->index_ = std::make_unique<MotionSearchIndex>(*session->character_->motion_database);
  session->model_.resize(session->character_->asset.skeleton.joint_count());
  session->restart();
  return session;
}

void MotionMatchingSession::restart() {
  matcher_ =
      std::make_unique<MotionMatcher>(character_->asset, *character_->motion_database, *index_, settings_);
  update({}, false, 0);
}

void MotionMatchingSession::set_settings(const MotionMatcherSettings& settings) {
  settings_ = settings;
  restart();
}

void MotionMatchingSession::update(Vec2 input, bool running, float dt) {
  stick = input, run = running;
  matcher_->update(input, running, dt);
  LocalToModelJob{.skeleton = &character_->asset.skeleton, .input = matcher_->locals(), .output = model_}
      .run();
  const RootDelta r = matcher_->root();
  world_ = translation_matrix({r.x, 0, r.z}) * rotation_matrix(quat_from_axis_angle({0, 1, 0}, r.yaw));
}

Vec3 MotionMatchingSession::to_world(Vec3 p) const {
  return transform_point(world_, p);
}

std::array<Vec3, 4> MotionMatchingSession::desired() const {
  std::array<Vec3, 4> out;
  out[0] = to_world({});
  for (int i = 0; i < 3; ++i)
    out[i + 1] = {matcher_->desired_trajectory()[i].x, 0, matcher_->desired_trajectory()[i].z};
  return out;
}

std::array<Vec3, 4> MotionMatchingSession::matched() const {
  const MotionDatabase& db = database();
  const int frame = matcher_->frame(), range = db.range_of(frame);
  std::array<Vec3, 4> out;
  out[0] = to_world({});
  if (range < 0) return out;
  const MotionDatabase::Range& r = db.ranges[range];
  const RootDelta now = db.roots[frame];
  for (int i = 0; i < 3; ++i) {
    const int ahead = std::min(frame + db.trajectory_frames[i], r.first + r.count - 1);
    const RootDelta there = matcher_->root().then(now.inverse().then(db.roots[ahead]));
    out[i + 1] = {there.x, 0, there.z};
  }
  return out;
}

std::array<Vec3, 2> MotionMatchingSession::feet() const {
  return {to_world(feature(MotionDatabase::kLeftFootPosition)),
          to_world(feature(MotionDatabase::kRightFootPosition))};
}

std::array<Vec3, 2> MotionMatchingSession::feet_velocities() const {
  return {transform_vector(world_, feature(MotionDatabase::kLeftFootVelocity)),
          transform_vector(world_, feature(MotionDatabase::kRightFootVelocity))};
}

Vec3 MotionMatchingSession::feature(MotionDatabase::Group group) const {
  const MotionDatabase& db = database();
  const float* f = db.frame_features(matcher_->frame());
  const int d = MotionDatabase::kGroupFirst[group];
  return {raw_feature(db, f, d), raw_feature(db, f, d + 1), raw_feature(db, f, d + 2)};
}

float MotionMatchingSession::travelled() const {
  const RootDelta r = matcher_->root();
  return std::hypot(r.x, r.z);
}

}  // namespace ossa::viewer
