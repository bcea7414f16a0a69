#include "viewer/playback.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "ossa/asset/root_motion.h"

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
  if (clip >= 0) animator_->play(clip, loop_mode_, 0, time);
  layer_slot_ = -1;
  if (layer_clip_ >= 0) layer_slot_ = animator_->add_layer(layer_clip_, layer_weight_, layer_mask_);
  if (paused_) animator_->pause();
}

void Playback::set_notifies(NotifySet notifies) {
  notifies_ = std::move(notifies);
  rebuild_animator();  // events point into the NotifySet: the old Animator must not outlive the old set
}

bool Playback::play(int clip, float start_time) {
  if (clip < 0 || clip >= static_cast<int>(asset().clips.size())) return false;
  animator_->play(clip, loop_mode_, 0, start_time);
  step_ = 0;
  return true;
}

bool Playback::crossfade(int clip, float duration, bool sync) {
  return animator_->crossfade(clip, duration, sync, loop_mode_);
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
}

void Playback::set_loop_mode(LoopMode mode) {
  loop_mode_ = mode;
  const int clip = animator_->clip();
  if (clip >= 0) animator_->play(clip, loop_mode_, 0, animator_->time());
}

void Playback::seek(float time) {
  const Clip* clip = current_clip();
  if (!clip || !std::isfinite(time)) return;
  animator_->seek(std::clamp(time, 0.f, clip->duration()));
  animator_->update(0);  // the pose at the new time (a zero step fires nothing new)
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
    in_place_.skeleton = asset().skeleton;  // no meshes: the renderer skins from the model matrices
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
  animator_->update(paused_ ? 0 : dt);
  last_update_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (paused_) return;
  log_events();
  ++step_;
  if (root_motion_) {
    const RootDelta d = animator_->root_delta();
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

void Playback::log_events() {
  for (const AnimEvent& e : animator_->events()) {
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
