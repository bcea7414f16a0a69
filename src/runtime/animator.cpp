#include "ossa/runtime/animator.h"

#include "anim_events.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ossa/runtime/blend_job.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/simd.h"

namespace ossa {
namespace {
constexpr size_t kEventCapacity = 512;
const std::string kNoPayload;
}  // namespace

Animator::Animator(const CharacterAsset& asset, const NotifySet* notifies,
                   std::span<const RootMotionTrack> root_motion)
    : asset_(&asset), notifies_(notifies), root_motion_(root_motion), scratch_(kEventCapacity) {
  const size_t n = static_cast<size_t>(asset.skeleton.joint_count());
  for (Track& t : base_) t.pose.resize(n);
  for (Layer& l : layers_) l.track.pose.resize(n);
  locals_.assign(asset.skeleton.rest_pose().begin(), asset.skeleton.rest_pose().end());
  blended_.resize(n);
  inertializer_ = Inertializer(static_cast<int>(n));
  for (std::vector<JointPose>& shown : shown_) shown.resize(n);
  inertia_before_.resize(n);
  mask_scratch_.resize(2 * n);
  model_.resize(n);
  palette_.resize(n);
  mesh_palette_offset_.push_back(0);
  for (const SkinnedMesh& mesh : asset.meshes)
    mesh_palette_offset_.push_back(mesh_palette_offset_.back() + mesh.inverse_binds().size());
  mesh_palettes_.resize(mesh_palette_offset_.back());
  morph_offset_.push_back(0);
  for (const SkinnedMesh& mesh : asset.meshes) {
    const auto defaults = mesh.morph_targets().default_weights();
    morph_defaults_.insert(morph_defaults_.end(), defaults.begin(), defaults.end());
    morph_offset_.push_back(morph_defaults_.size());
  }
  morph_weights_ = morph_defaults_;
  morph_override_.assign(morph_defaults_.size(), std::numeric_limits<float>::quiet_NaN());
  morph_add_.assign(morph_defaults_.size(), 0.f);
  for (Track& t : base_) t.morph.resize(morph_defaults_.size());
  for (Layer& l : layers_) l.track.morph.resize(morph_defaults_.size());
  events_.reserve(kEventCapacity);
  if (notifies_) handlers_.resize(notifies_->names.size());
  if (root_motion_.size() != asset.clips.size()) root_motion_ = {};
}

void Animator::start_track(Track& t, int clip, LoopMode mode, int passes, float time) {
  t.clip = clip;
  const ClipNotifies* n =
      notifies_ && clip < static_cast<int>(notifies_->clips.size()) ? &notifies_->clips[clip] : nullptr;
  t.playhead.start(asset_->clips[clip].duration(), mode, passes, time, n);
  t.cache.reset(&asset_->clips[clip]);
  t.notify_active = true;
}

void Animator::end_track_states(Track& t) {
  if (t.clip < 0) return;
  scratch_.clear();
  t.playhead.end_states(scratch_);
  collect(t);
}

namespace {
const NotifyField* find_field(std::span<const NotifyField> fields, std::string_view key) {
  for (const NotifyField& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}
}  // namespace

std::string_view AnimEvent::payload_string(std::string_view key, std::string_view fallback) const {
  const NotifyField* f = find_field(payload_fields, key);
  return f && f->is_string ? std::string_view(f->text) : fallback;
}

double AnimEvent::payload_number(std::string_view key, double fallback) const {
  const NotifyField* f = find_field(payload_fields, key);
  return f && f->is_number ? f->number : fallback;
}

std::span<const Mat4> Animator::mesh_palette(int mesh) const {
  if (mesh < 0 || mesh >= mesh_count()) return {};
  return std::span<const Mat4>(mesh_palettes_)
      .subspan(mesh_palette_offset_[mesh], mesh_palette_offset_[mesh + 1] - mesh_palette_offset_[mesh]);
}

std::span<const float> Animator::mesh_morph_weights(int mesh) const {
  if (mesh < 0 || mesh >= mesh_count()) return {};
  return std::span<const float>(morph_weights_)
      .subspan(morph_offset_[mesh], morph_offset_[mesh + 1] - morph_offset_[mesh]);
}

int Animator::morph_slot(int mesh, int target) const {
  if (mesh < 0 || mesh >= mesh_count() || target < 0) return -1;
  const size_t slot = morph_offset_[mesh] + static_cast<size_t>(target);
  return slot < morph_offset_[mesh + 1] ? static_cast<int>(slot) : -1;
}

bool Animator::set_morph_override(int mesh, int target, float weight) {
  const int slot = morph_slot(mesh, target);
  if (slot < 0 || std::isinf(weight)) return false;
  morph_override_[slot] = weight;
  return true;
}

bool Animator::set_morph_offset(int mesh, int target, float offset) {
  const int slot = morph_slot(mesh, target);
  if (slot < 0 || !std::isfinite(offset)) return false;
  morph_add_[slot] = offset;
  return true;
}

void Animator::clear_morph_overrides() {
  std::fill(morph_override_.begin(), morph_override_.end(), std::numeric_limits<float>::quiet_NaN());
  std::fill(morph_add_.begin(), morph_add_.end(), 0.f);
}

bool Animator::play(int clip, LoopMode mode, int passes, float start_time) {
  if (clip < 0 || clip >= static_cast<int>(asset_->clips.size())) return false;
  for (Track& t : base_) end_track_states(t), t.clip = -1;
  fading_ = false;
  current_ = 0;
  inertializer_.reset();  // the clip as it is: an inertialization running ends
  start_track(base_[0], clip, mode, passes, start_time);
  base_[0].weight = 1;
  return true;
}

bool Animator::crossfade(int clip, float duration, FadeSync fade_sync, LoopMode mode, int passes) {
  const bool sync = fade_sync == FadeSync::kPhase;
  if (clip < 0 || clip >= static_cast<int>(asset_->clips.size())) return false;
  Track& from = base_[current_];
  if (from.clip < 0 || !(duration > 0)) return play(clip, mode, passes);
  const int next = 1 - current_;
  end_track_states(base_[next]);  // a fade still running: its outgoing clip is dropped
  float start = 0;
  const float from_duration = asset_->clips[from.clip].duration();
  if (sync && from_duration > 0)
    start = from.playhead.time() / from_duration * asset_->clips[clip].duration();
  start_track(base_[next], clip, mode, passes, start);
  base_[next].weight = 0;
  current_ = next;
  fading_ = true;
  sync_ = sync;
  fade_time_ = 0;
  fade_duration_ = duration;
  return true;
}

bool Animator::inertialize(int clip, float duration, LoopMode mode, int passes) {
  if (clip < 0 || clip >= static_cast<int>(asset_->clips.size())) return false;
  if (!play(clip, mode, passes)) return false;
  if (shown_count_ == 0 || !(duration > 0) || !std::isfinite(duration)) return true;
  // The Inertializer is given the last two shown poses now, as if it had watched every frame: the same
  // pose and backward-difference velocity.
  const float h = last_step_ > 0 ? last_step_ : 1 / 60.f;
  if (shown_count_ > 1) inertializer_.update(shown_[1 - shown_last_], 0);
  inertializer_.update(shown_[shown_last_], shown_count_ > 1 ? last_step_ : 0);
  // The new clip at its start (the moment of the last update) and h seconds of play before it.
  Track& t = base_[0];
  const Clip& c = asset_->clips[clip];
  const float length = c.duration(), now = t.playhead.time();
  float before = now - h * (paused_ ? 0.f : speed_);
  if (!(length > 0))
    before = now;
  else if (mode == LoopMode::kRepeat)
    before -= std::floor(before / length) * length;
  else if (mode == LoopMode::kPingPong)  // reflected at the ends
    before = length - std::fabs(length - std::fmod(std::fabs(before), 2 * length));
  else
    before = std::clamp(before, 0.f, length);
  const auto rest = asset_->skeleton.rest_pose();
  auto base_pose = [&](float time, std::span<JointPose> out) {  // as update() makes the base of one clip
    SampleJob{&c, time, &t.cache, t.pose}.run();
    const BlendLayer layer{t.pose, 1.f, {}};
    BlendJob{std::span(&layer, 1), {}, rest, out}.run();
  };
  base_pose(before, inertia_before_);
  base_pose(now, blended_);
  (void)inertializer_.start(blended_, inertia_before_, h, duration);
  return true;
}

void Animator::stop() {
  inertializer_.reset();
  for (Track& t : base_) end_track_states(t), t.clip = -1;
  for (Layer& l : layers_) end_track_states(l.track), l.used = false, l.track.clip = -1;
  fading_ = false;
}

void Animator::seek(float seconds) {
  Track& t = base_[current_];
  if (t.clip < 0) return;
  end_track_states(t);
  t.playhead.seek(seconds);
}

void Animator::seek_ratio(float ratio) {
  if (base_[current_].clip >= 0) seek(ratio * asset_->clips[base_[current_].clip].duration());
}

int Animator::add_layer(int clip, float weight, std::span<const float> mask, bool additive, LoopMode mode) {
  if (clip < 0 || clip >= static_cast<int>(asset_->clips.size())) return -1;
  if (!mask.empty() && mask.size() < static_cast<size_t>(asset_->skeleton.joint_count())) return -1;
  for (int i = 0; i < kMaxLayers; ++i) {
    Layer& l = layers_[i];
    if (l.used) continue;
    l.used = true;
    l.mask = mask;
    l.additive = additive;
    start_track(l.track, clip, mode, 0, 0);
    l.track.weight = weight;
    return i;
  }
  return -1;
}

void Animator::set_layer_weight(int layer, float weight) {
  if (layer >= 0 && layer < kMaxLayers && layers_[layer].used) layers_[layer].track.weight = weight;
}

void Animator::remove_layer(int layer) {
  if (layer < 0 || layer >= kMaxLayers || !layers_[layer].used) return;
  end_track_states(layers_[layer].track);
  layers_[layer].used = false;
  layers_[layer].track.clip = -1;
}

bool Animator::on(std::string_view name, std::function<void(const AnimEvent&)> handler) {
  if (!notifies_) return false;
  int id = notifies_->find_notify(name);
  if (id < 0) return false;
  handlers_[id] = std::move(handler);
  return true;
}

void Animator::dispatch() const {
  for (const AnimEvent& e : events_)
    if (e.name_id >= 0 && handlers_[e.name_id]) handlers_[e.name_id](e);
}

namespace detail {
void collect_events(int clip, const NotifySet* notifies, EventBuffer& scratch, std::vector<AnimEvent>& out,
                    size_t& dropped) {
  const ClipNotifies* n =
      notifies && clip < static_cast<int>(notifies->clips.size()) ? &notifies->clips[clip] : nullptr;
  for (const PlaybackEvent& e : scratch.events()) {
    AnimEvent event;
    event.clip = clip;
    event.type = e.type;
    event.time = e.time;
    event.loop = e.loop;
    if (n && e.notify >= 0) {
      const Notify& notify = e.type == EventType::kInstant ? n->instants[e.notify] : n->states[e.notify];
      event.name_id = notify.name_id;
      event.name = &notifies->names[notify.name_id];
      event.payload = &notify.payload;
      event.payload_fields = notify.fields;
    }
    if (out.size() < out.capacity())
      out.push_back(event);
    else
      ++dropped;
  }
  dropped += scratch.dropped();
  scratch.clear();
}
}  // namespace detail

// Moves the playhead's events of this step into events_ (notify events only while the clip's weight counts).
void Animator::collect(const Track& t) {
  detail::collect_events(t.clip, notifies_, scratch_, events_, dropped_);
}

void Animator::advance_track(Track& t, double delta, float threshold) {
  if (t.clip < 0) return;
  const bool counts = t.weight > 0 && t.weight >= threshold;
  if (!counts && t.notify_active) end_track_states(t);  // blended out: its states end now
  t.notify_active = counts;
  scratch_.clear();
  t.playhead.advance(delta, scratch_);
  if (counts) {
    collect(t);
  } else {
    // Below the threshold: keep loop/finished (playback facts), drop notifies, leave no state open.
    std::vector<PlaybackEvent>& ev = scratch_.storage();
    ev.erase(std::remove_if(ev.begin(), ev.end(), [](const PlaybackEvent& e) { return e.notify >= 0; }),
             ev.end());
    collect(t);
    t.playhead.end_states(scratch_);  // states entered unreported are left silently
    scratch_.clear();
  }
}

bool Animator::sample_track(Track& t) {
  return t.clip >= 0 && SampleJob{&asset_->clips[t.clip], t.playhead.time(), &t.cache, t.pose}.run();
}

// The clip's morph weights at the track's time into t.morph; meshes it does not animate keep their defaults
// (`defaults_first`) or whatever t.morph held. Tracks that fit no mesh (a hand-assembled asset) are skipped.
void Animator::sample_morph(Track& t, bool defaults_first) {
  if (defaults_first) std::copy(morph_defaults_.begin(), morph_defaults_.end(), t.morph.begin());
  const MorphWeightTracks& weights = asset_->clips[t.clip].morph_weights();
  for (size_t i = 0; i < weights.tracks().size(); ++i) {
    const MorphWeightTracks::Track& track = weights.tracks()[i];
    if (track.mesh < 0 || track.mesh >= mesh_count() ||
        morph_offset_[track.mesh + 1] - morph_offset_[track.mesh] != static_cast<size_t>(track.targets))
      continue;
    weights.sample(static_cast<int>(i), t.playhead.time(),
                   std::span<float>(t.morph).subspan(morph_offset_[track.mesh], track.targets));
  }
}

void Animator::update_morph_weights(Track& old, Track& cur) {
  // Base: the crossfade's blend, with the joints' normalised weight.
  if (cur.clip >= 0 && fading_ && old.clip >= 0) {
    sample_morph(old, true);
    sample_morph(cur, true);
    const float w = cur.weight / (old.weight + cur.weight);
    for (size_t k = 0; k < morph_weights_.size(); ++k)
      morph_weights_[k] = old.morph[k] + (cur.morph[k] - old.morph[k]) * w;
  } else if (cur.clip >= 0) {
    sample_morph(cur, true);
    std::copy(cur.morph.begin(), cur.morph.end(), morph_weights_.begin());
  } else {
    std::copy(morph_defaults_.begin(), morph_defaults_.end(), morph_weights_.begin());
  }
  // Layers: only the meshes their clip animates.
  for (Layer& l : layers_) {
    if (!l.used || l.track.clip < 0) continue;
    sample_morph(l.track, false);
    const float w = l.additive ? l.track.weight : std::clamp(l.track.weight, 0.f, 1.f);
    for (const MorphWeightTracks::Track& track : asset_->clips[l.track.clip].morph_weights().tracks()) {
      if (track.mesh < 0 || track.mesh >= mesh_count() ||
          morph_offset_[track.mesh + 1] - morph_offset_[track.mesh] != static_cast<size_t>(track.targets))
        continue;
      for (size_t k = morph_offset_[track.mesh]; k < morph_offset_[track.mesh + 1]; ++k)
        morph_weights_[k] += l.additive ? w * (l.track.morph[k] - morph_defaults_[k])
                                        : w * (l.track.morph[k] - morph_weights_[k]);
    }
  }
  // The game's expression layer.
  for (size_t k = 0; k < morph_weights_.size(); ++k)
    morph_weights_[k] =
        (std::isnan(morph_override_[k]) ? morph_weights_[k] : morph_override_[k]) + morph_add_[k];
}

bool Animator::update(float dt) {
  FlushDenormalsScope flush;
  events_.clear();
  dropped_ = 0;
  root_delta_ = {};
  const double step = paused_ || !std::isfinite(dt) ? 0.0 : static_cast<double>(dt) * speed_;
  Track& cur = base_[current_];
  Track& old = base_[1 - current_];

  // Weights first (they decide whether notifies count this step).
  if (fading_) {
    fade_time_ += paused_ ? 0.f : std::fabs(dt);
    float w = std::min(1.f, fade_time_ / fade_duration_);
    cur.weight = w;
    old.weight = 1 - w;
  } else {
    cur.weight = 1;
  }

  // Advance: synchronised fades move both clips by the same ratio of a blended cycle length.
  double cur_delta = step, old_delta = step;
  if (fading_ && sync_ && old.clip >= 0) {
    double lc = asset_->clips[cur.clip].duration(), lo = asset_->clips[old.clip].duration();
    double cycle = lo + (lc - lo) * cur.weight;
    if (cycle > 0) cur_delta = step * lc / cycle, old_delta = step * lo / cycle;
  }
  if (fading_ && old.clip >= 0) advance_track(old, old_delta, notify_weight_threshold);
  advance_track(cur, cur_delta, fading_ ? notify_blend_in_threshold : notify_weight_threshold);
  for (Layer& l : layers_)
    if (l.used) advance_track(l.track, step, notify_weight_threshold);

  // Root motion of the base clips, weighted during a fade.
  if (!root_motion_.empty()) {
    auto travel = [&](const Track& t) {
      RootDelta total;
      const RootMotionTrack& track = root_motion_[t.clip];
      for (const PlayheadSegment& s : t.playhead.segments()) {
        RootDelta d = track.delta(s.from, s.to);
        for (int k = 0; k < s.count; ++k) total = total.then(d);
      }
      return total;
    };
    if (cur.clip >= 0) root_delta_ = travel(cur);
    if (fading_ && old.clip >= 0) {
      RootDelta a = travel(old), b = root_delta_;
      float w = cur.weight;
      root_delta_ = {a.x + (b.x - a.x) * w, a.z + (b.z - a.z) * w, a.yaw + (b.yaw - a.yaw) * w};
    }
  }

  if (fading_ && fade_time_ >= fade_duration_) {  // fade complete: the old clip is gone
    end_track_states(old);
    old.clip = -1;
    fading_ = false;
  }

  // Sample and blend the base: a crossfade of fixed-rate clips in one pass, anything else clip by clip.
  const auto rest = asset_->skeleton.rest_pose();
  const size_t n = rest.size();
  size_t base_count = 0;
  const bool one_pass = fading_ && old.clip >= 0 && cur.clip >= 0 &&
                        CrossfadeSampleJob{&asset_->clips[old.clip],
                                           old.playhead.time(),
                                           &asset_->clips[cur.clip],
                                           cur.playhead.time(),
                                           cur.weight / (old.weight + cur.weight),
                                           locals_}
                            .run();
  if (one_pass) {
    base_count = 2;
  } else {
    std::array<BlendLayer, 2> base_layers;
    for (Track* t : {&old, &cur})
      if (t->clip >= 0 && (t == &cur || fading_) && sample_track(*t))
        base_layers[base_count++] = BlendLayer{t->pose, t->weight, {}};
    BlendJob{std::span(base_layers.data(), base_count), {}, rest, locals_}.run();
  }

  // inertialize(): the base pose's offset, while a transition runs; then the base pose kept for the next.
  const float wall_step = paused_ || !std::isfinite(dt) ? 0.f : std::fabs(dt);
  if (inertializer_.active()) inertializer_.update(locals_, wall_step);
  if (wall_step > 0)
    shown_last_ = 1 - shown_last_, last_step_ = wall_step, shown_count_ = std::min(shown_count_ + 1, 2);
  else
    shown_count_ = std::max(shown_count_, 1);
  std::copy(locals_.begin(), locals_.end(), shown_[shown_last_].begin());

  // Layers in order: override layers replace the pose where their mask says, additive ones add on top.
  for (Layer& l : layers_) {
    if (!l.used || !sample_track(l.track)) continue;
    if (l.additive) {
      BlendLayer add{l.track.pose, l.track.weight, l.mask};
      BlendLayer base{locals_, 1.f, {}};
      BlendJob{std::span(&base, 1), std::span(&add, 1), rest, blended_}.run();
    } else {
      // result = lerp(pose, layer, w * mask[j]): two layers with complementary per-joint weights.
      float* keep = mask_scratch_.data();
      float* take = mask_scratch_.data() + n;
      for (size_t j = 0; j < n; ++j) {
        float w = std::clamp(l.track.weight * (l.mask.empty() ? 1.f : l.mask[j]), 0.f, 1.f);
        take[j] = w;
        keep[j] = 1 - w;
      }
      std::array<BlendLayer, 2> pair = {BlendLayer{locals_, 1.f, std::span<const float>(keep, n)},
                                        BlendLayer{l.track.pose, 1.f, std::span<const float>(take, n)}};
      BlendJob{pair, {}, rest, blended_}.run();
    }
    std::copy(blended_.begin(), blended_.end(), locals_.begin());
  }

  if (!morph_weights_.empty()) update_morph_weights(old, cur);

  finish_pose();
  return base_count > 0;
}

bool Animator::apply_pose(std::span<const JointPose> locals) {
  if (locals.size() != locals_.size()) return false;
  std::copy(locals.begin(), locals.end(), locals_.begin());
  finish_pose();
  return true;
}

void Animator::finish_pose() {
  LocalToModelJob{&asset_->skeleton, locals_, model_}.run();
  PaletteJob{model_, asset_->skeleton.inverse_binds(), {}, palette_, {}}.run();
  for (int m = 0; m < mesh_count(); ++m) {
    const SkinnedMesh& mesh = asset_->meshes[m];
    const std::span<Mat4> out(mesh_palettes_.data() + mesh_palette_offset_[m], mesh.inverse_binds().size());
    PaletteJob{model_, mesh.inverse_binds(), mesh.joint_remap(), out, {}}.run();
  }
}

}  // namespace ossa
