#include "viewer/playback.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "ossa/offline/root_motion.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/sample_job.h"

namespace ossa::viewer {

Playback::Playback(std::shared_ptr<const LoadedCharacter> character) : character_(std::move(character)) {
  notifies_ = character_->notifies;
  animator_ = std::make_unique<Animator>(asset(), &notifies_);
  if (!asset().clips.empty()) play(0);
}

void Playback::rebuild_animator() {
  const int clip = animator_->clip();
  const float time = animator_->time();
  const NotifySet* notifies = notifies_.names.empty() ? nullptr : &notifies_;
  if (root_motion_)
    animator_ = std::make_unique<Animator>(in_place_, notifies, tracks_);
  else
    animator_ = std::make_unique<Animator>(asset(), notifies);
  animator_->set_speed(speed_);
  if (clip >= 0) static_cast<void>(animator_->play(clip, loop_mode_, 0, time));  // the same asset: valid
  layer_slot_ = -1;
  if (layer_clip_ >= 0) layer_slot_ = animator_->add_layer(layer_clip_, layer_weight_, layer_mask_);
  if (paused_) animator_->pause();
  for (size_t m = 0; m < morph_overrides_.size(); ++m)
    for (size_t t = 0; t < morph_overrides_[m].size(); ++t)
      if (!std::isnan(morph_overrides_[m][t]))
        animator_->set_morph_override(static_cast<int>(m), static_cast<int>(t), morph_overrides_[m][t]);
  rebuild_blend();
  finish_pose();
}

void Playback::set_notifies(NotifySet notifies) {
  notifies_ = std::move(notifies);
  rebuild_animator();  // events point into the NotifySet: the old Animator must not outlive the old set
}

bool Playback::play(int clip, float start_time) {
  if (!animator_->play(clip, loop_mode_, 0, start_time)) return false;
  step_ = 0;
  clear_loop_range();
  return true;
}

bool Playback::crossfade(int clip, float duration, bool sync) {
  clear_loop_range();
  return animator_->crossfade(clip, duration, sync ? FadeSync::kPhase : FadeSync::kNone, loop_mode_);
}

const Clip* Playback::current_clip() const {
  const int c = animator_->clip();
  return c >= 0 && c < static_cast<int>(asset().clips.size()) ? &asset().clips[c] : nullptr;
}

void Playback::set_paused(bool paused) {
  paused_ = paused;
  if (paused)
    animator_->pause();
  else
    animator_->resume();
}

void Playback::set_speed(float speed) {
  if (!std::isfinite(speed)) return;
  speed_ = std::clamp(speed, -100.f, 100.f);
  animator_->set_speed(speed_);
  if (blend_) blend_->player->set_speed(speed_);
}

void Playback::set_loop_mode(LoopMode mode) {
  loop_mode_ = mode;
  const int clip = animator_->clip();
  if (clip >= 0) static_cast<void>(animator_->play(clip, loop_mode_, 0, animator_->time()));  // valid
}

void Playback::seek(float time) {
  const Clip* clip = current_clip();
  if (!clip || !std::isfinite(time)) return;
  animator_->seek(std::clamp(time, 0.f, clip->duration()));
  animator_->update(0);  // the pose at the new time (a zero step fires nothing new)
  finish_pose();
}

void Playback::step_frames(int frames) {
  const Clip* clip = current_clip();
  if (!clip || frames == 0) return;
  const float rate = clip->frame_rate() > 0 ? clip->frame_rate() : 30.f;
  if (frames < 0) {
    seek(animator_->time() + static_cast<float>(frames) / rate);
    return;
  }
  const bool was_paused = paused_;
  set_paused(false);
  const float saved_speed = speed_;
  set_speed(1);
  for (int i = 0; i < frames; ++i) update(1 / rate);
  set_speed(saved_speed);
  set_paused(was_paused);
}

std::string Playback::set_root_motion(bool on) {
  if (on == root_motion_) return "";
  if (on && tracks_.empty()) {
    auto extracted = extract_root_motion(asset().clips, asset().skeleton);
    if (!extracted) return extracted.error();
    in_place_ = CharacterAsset{};
    in_place_.skeleton = asset().skeleton;
    in_place_.meshes = asset().meshes;  // the Animator's morph weights are per mesh
    in_place_.clips = std::move(extracted->clips);
    tracks_ = std::move(extracted->tracks);
  }
  root_motion_ = on;
  reset_travel();
  rebuild_animator();
  return "";
}

void Playback::reset_travel() {
  world_ = Mat4{};
  path_.clear();
}

std::vector<float> Playback::subtree_mask(const Skeleton& skeleton, int joint) {
  const int n = skeleton.joint_count();
  std::vector<float> mask(n, joint < 0 ? 1.f : 0.f);
  if (joint < 0 || joint >= n) return mask;
  std::fill(mask.begin() + joint, mask.begin() + skeleton.subtree_end(joint), 1.f);
  return mask;
}

bool Playback::set_layer(int clip, float weight, int mask_joint) {
  const int clips = static_cast<int>(asset().clips.size());
  if (clip >= clips || mask_joint >= asset().skeleton.joint_count() || !std::isfinite(weight)) return false;
  if (layer_slot_ >= 0) animator_->remove_layer(layer_slot_);
  layer_slot_ = -1;
  layer_clip_ = clip < 0 ? -1 : clip;
  layer_weight_ = std::clamp(weight, 0.f, 1.f);
  layer_joint_ = mask_joint;
  if (layer_clip_ < 0) return true;
  layer_mask_ = subtree_mask(asset().skeleton, mask_joint);
  layer_slot_ = animator_->add_layer(layer_clip_, layer_weight_, layer_mask_);
  return layer_slot_ >= 0;
}

void Playback::update(float dt) {
  const auto start = std::chrono::steady_clock::now();
  if (paused_ || !has_loop_range() || blend_ || speed_ == 0 || !std::isfinite(dt) || dt <= 0) {
    advance(paused_ ? 0 : dt);
  } else {
    // Within the loop range: up to its end, then on from its other end (a few passes at most per update).
    const bool forward = speed_ > 0;
    const float from = forward ? range_in_ : range_out_, to = forward ? range_out_ : range_in_;
    if (time() < range_in_ || time() > range_out_ || (forward ? time() >= to : time() <= to)) seek(from);
    float left = dt;
    for (int pass = 0; pass < 64 && left > 0; ++pass) {
      const float step = std::min(left, std::max((to - time()) / speed_, 0.f));
      advance(step);
      left -= step;
      if (forward ? time() >= to : time() <= to) seek(from);
      if (step <= 0) break;
    }
  }
  last_update_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

bool Playback::pose_at(const CharacterAsset& asset, int clip, float time, SamplingCache& cache,
                       std::vector<JointPose>& locals, std::vector<Mat4>& model) {
  if (clip < 0 || clip >= static_cast<int>(asset.clips.size()) || !std::isfinite(time)) return false;
  const int joints = asset.skeleton.joint_count();
  locals.resize(joints);
  model.resize(joints);
  return SampleJob{.clip = &asset.clips[clip], .time = time, .cache = &cache, .output = locals}.run() &&
         LocalToModelJob{.skeleton = &asset.skeleton, .input = locals, .output = model}.run();
}

bool Playback::set_loop_range(float in, float out) {
  const Clip* clip = current_clip();
  if (!clip || !std::isfinite(in) || !std::isfinite(out) || in < 0 || out <= in || out > clip->duration())
    return false;
  range_in_ = in, range_out_ = out;
  if (time() < in || time() >= out) seek(in);
  return true;
}

void Playback::advance(float step) {
  if (blend_)
    blend_->player->update(step);
  else
    animator_->update(step);
  finish_pose();
  if (paused_) return;
  log_events(blend_ ? blend_->player->events() : animator_->events());
  ++step_;
  if (root_motion_) {
    const RootDelta d = blend_ ? blend_->player->root_delta() : animator_->root_delta();
    if (d.x != 0 || d.z != 0 || d.yaw != 0) {
      // The delta is in the character's frame: move, then turn (RootDelta::then's composition).
      world_ = world_ * translation_matrix({d.x, 0, d.z}) *
               rotation_matrix(quat_from_axis_angle({0, 1, 0}, d.yaw));
      const Vec3 at = world_.translation();
      if (path_.empty() || length(at - path_.back()) > 0.01f) path_.push_back({at.x, 0, at.z});
      if (path_.size() > 20000) path_.erase(path_.begin(), path_.begin() + 10000);
    }
  }
}

std::string Playback::set_blend_space(std::vector<int> clips, std::vector<BlendPoint> points, int dimensions,
                                      std::vector<std::string> sync_markers) {
  if (clips.empty()) {
    blend_.reset();
    blend_clips_.clear();
    finish_pose();
    return "";
  }
  if (clips.size() != points.size() || (dimensions != 1 && dimensions != 2))
    return "blend space: bad sample list";
  for (int c : clips)
    if (c < 0 || c >= static_cast<int>(asset().clips.size())) return "blend space: no such clip";
  blend_clips_ = std::move(clips);
  blend_points_ = std::move(points);
  blend_dimensions_ = dimensions;
  blend_markers_ = std::move(sync_markers);
  rebuild_blend();
  if (!blend_) return blend_error_;
  finish_pose();
  return "";
}

void Playback::rebuild_blend() {
  blend_error_.clear();
  if (blend_clips_.empty()) return;
  std::vector<float> xs;
  for (const BlendPoint& p : blend_points_) xs.push_back(p.x);
  auto space = blend_dimensions_ == 1 ? BlendSpace::build_1d(xs) : BlendSpace::build_2d(blend_points_);
  if (!space) {
    blend_.reset(), blend_clips_.clear();
    blend_error_ = "blend space: " + space.error();
    return;
  }
  auto blend = std::make_unique<Blend>();
  blend->space = std::move(space).value();
  const NotifySet* notifies = notifies_.names.empty() ? nullptr : &notifies_;
  auto player = BlendSpacePlayer::create(
      animated_asset(), blend->space, blend_clips_, notifies,
      root_motion_ ? std::span<const RootMotionTrack>(tracks_) : std::span<const RootMotionTrack>(),
      blend_markers_);
  if (!player) {
    blend_.reset(), blend_clips_.clear();
    blend_error_ = "blend space: " + player.error();
    return;
  }
  blend->player.emplace(std::move(player).value());
  blend->player->set_speed(speed_);
  blend->player->set_parameter(blend_parameter_.x, blend_parameter_.y);
  blend->player->update(0);
  blend_ = std::move(blend);
}

std::span<const float> Playback::blend_weights() const {
  return blend_ ? blend_->player->weights() : std::span<const float>();
}

void Playback::set_blend_parameter(float x, float y) {
  if (!std::isfinite(x) || !std::isfinite(y)) return;
  blend_parameter_ = {x, y};
  if (blend_) blend_->player->set_parameter(x, y);
}

bool Playback::set_morph_override(int mesh, int target, float weight) {
  const auto& meshes = asset().meshes;
  if (mesh < 0 || mesh >= static_cast<int>(meshes.size()) || target < 0 ||
      target >= meshes[mesh].morph_targets().count() || std::isinf(weight))
    return false;
  if (morph_overrides_.size() != meshes.size()) {
    morph_overrides_.resize(meshes.size());
    for (size_t m = 0; m < meshes.size(); ++m)
      morph_overrides_[m].assign(meshes[m].morph_targets().count(), std::numeric_limits<float>::quiet_NaN());
  }
  morph_overrides_[mesh][target] = weight;
  return animator_->set_morph_override(mesh, target, weight);
}

float Playback::morph_override(int mesh, int target) const {
  if (mesh < 0 || mesh >= static_cast<int>(morph_overrides_.size()) || target < 0 ||
      target >= static_cast<int>(morph_overrides_[mesh].size()))
    return std::numeric_limits<float>::quiet_NaN();
  return morph_overrides_[mesh][target];
}

std::vector<LegJoints> Playback::find_legs(const Skeleton& skeleton, int& pelvis) {
  const std::span<const int> parents = skeleton.parents();
  std::vector<LegJoints> legs;
  for (int j = 0; j < skeleton.joint_count() && legs.size() < FootPlacementJob::kMaxLegs; ++j) {
    std::string name = skeleton.name(j);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    if (name.find("foot") == std::string::npos) continue;
    bool helper = false;
    for (const char* word : {"toe", "ball", "end", "socket", "ik", "pole", "target", "roll"})
      helper |= name.find(word) != std::string::npos;
    const int calf = parents[j], thigh = calf >= 0 ? parents[calf] : -1;
    if (helper || thigh < 0) continue;
    LegJoints leg{thigh, calf, j, -1};
    for (int k = j + 1; k < skeleton.joint_count() && leg.toe < 0; ++k)
      if (parents[k] == j) leg.toe = k;
    legs.push_back(leg);
  }
  // The pelvis: the lowest joint above every thigh.
  pelvis = legs.empty() ? -1 : parents[legs[0].thigh];
  auto above_all = [&](int candidate) {
    for (const LegJoints& leg : legs) {
      int j = parents[leg.thigh];
      while (j >= 0 && j != candidate) j = parents[j];
      if (j != candidate) return false;
    }
    return true;
  };
  while (pelvis >= 0 && !above_all(pelvis)) pelvis = parents[pelvis];
  return legs;
}

std::string Playback::set_foot_placement(bool on, Ground ground) {
  ground_ = ground;
  if (on && !feet_on_) {
    const Skeleton& skeleton = asset().skeleton;
    legs_ = find_legs(skeleton, pelvis_);
    if (legs_.empty())
      return "foot placement: no legs found (joints named ...foot... under a two-joint chain)";
    std::vector<Mat4> rest(skeleton.joint_count());
    LocalToModelJob{&skeleton, skeleton.rest_pose(), rest}.run();
    float lo = 0, hi = 0;
    for (const Mat4& m : rest) lo = std::min(lo, m.m[13]), hi = std::max(hi, m.m[13]);
    ground_scale_ = std::max(hi - lo, 1e-6f) / 1.8f;
    forward_ = {0, 0, 1};
    for (const LegJoints& leg : legs_) {
      if (leg.toe < 0) continue;
      const Vec3 d = rest[leg.toe].translation() - rest[leg.foot].translation();
      if (std::hypot(d.x, d.z) > 1e-6f * ground_scale_) {
        forward_ = normalize(Vec3{d.x, 0, d.z});
        break;
      }
    }
  }
  feet_on_ = on;
  finish_pose();
  return "";
}

float Playback::ground_height(float x, float z) const {
  if (ground_ == Ground::kFlat) return 0;
  return 0.1f * z + 0.05f * x + (z > 1.5f * ground_scale_ ? 0.12f * ground_scale_ : 0.f);
}

float Playback::ground_for_job(const void* playback, float x, float z) {
  return static_cast<const Playback*>(playback)->ground_height(x, z);
}

void Playback::finish_pose() {
  own_pose_ = false;
  if (!animator_ || (!blend_ && !feet_on_)) return;
  const std::span<const JointPose> source = blend_ ? blend_->player->locals() : animator_->locals();
  const Skeleton& skeleton = animated_asset().skeleton;
  locals_.assign(source.begin(), source.end());
  model_.resize(locals_.size());
  if (!feet_on_) {
    LocalToModelJob{&skeleton, locals_, model_}.run();
    own_pose_ = true;
    return;
  }
  const Vec3 at = world_.translation();
  placed_world_ = translation_matrix({0, ground_height(at.x, at.z), 0}) * world_;
  LocalToModelJob{&skeleton, locals_, model_, &placed_world_}.run();
  FootPlacementJob feet;
  feet.skeleton = &skeleton, feet.locals = locals_, feet.model = model_, feet.root = &placed_world_;
  feet.pelvis = pelvis_, feet.legs = legs_, feet.ground = {ground_for_job, this};
  feet.forward = transform_vector(placed_world_, forward_);
  feet.run();  // validated by construction; a refusal leaves the animated pose
  const Mat4 back = inverse(placed_world_);
  for (Mat4& m : model_) m = back * m;
  own_pose_ = true;
}

std::span<const Mat4> Playback::model() const {
  return own_pose_ ? std::span<const Mat4>(model_) : animator_->model();
}

std::span<const JointPose> Playback::locals() const {
  return own_pose_ ? std::span<const JointPose>(locals_) : animator_->locals();
}

void Playback::log_events(std::span<const AnimEvent> events) {
  for (const AnimEvent& e : events) {
    LoggedEvent logged;
    logged.step = step_;
    logged.clip =
        e.clip >= 0 && e.clip < static_cast<int>(asset().clips.size()) ? asset().clips[e.clip].name() : "";
    logged.name = e.name ? *e.name : "";
    logged.type = e.type;
    logged.time = e.time;
    logged.loop = e.loop;
    logged.payload = e.payload ? *e.payload : "";
    events_.push_back(std::move(logged));
    if (events_.size() > kMaxLoggedEvents) events_.pop_front();
  }
}

}  // namespace ossa::viewer
