#include "viewer/app/view_state.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ossa/core/file_io.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/skinning_job.h"
#include "viewer/app/window.h"

namespace ossa::viewer {

std::string display_name(const std::string& path) {
  return utf8_from_path(path_from_utf8(path).filename());
}

void section(const char* title) {
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("%s", title);
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

namespace {

// Bounds of the skinned meshes in the first clip's first frame (or the joints when there are no meshes).
void character_bounds(const CharacterAsset& asset, Vec3& lo, Vec3& hi) {
  lo = {1e30f, 1e30f, 1e30f};
  hi = {-1e30f, -1e30f, -1e30f};
  auto grow = [&](Vec3 p) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) return;
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  };
  Animator animator(asset);
  if (!asset.clips.empty()) static_cast<void>(animator.play(0));
  animator.update(0);
  for (const Mat4& m : animator.model()) grow(m.translation());
  std::vector<float> positions;
  for (int m = 0; m < static_cast<int>(asset.meshes.size()); ++m) {
    const SkinnedMesh& mesh = asset.meshes[m];
    positions.resize(mesh.positions().size());
    SkinningJob job = SkinningJob::for_mesh(mesh, animator.mesh_palette(m));
    job.out_positions = positions;
    if (!job.run()) continue;
    for (size_t i = 0; i + 2 < positions.size(); i += 3)
      grow({positions[i], positions[i + 1], positions[i + 2]});
  }
  if (lo.x > hi.x) lo = {-1, 0, -1}, hi = {1, 2, 1};
}

}  // namespace

void ViewState::open(const std::string& path) {
  const std::string shown = path.empty() ? "(no path)" : path;
  if (!options.load) {
    error = "cannot open " + shown + ": this build reads no files";
    return;
  }
  // The sidecar authored: --notifies for the file given on the command line, else MODEL.notifies.json.
  std::string sidecar = options.notifies.empty() || path != options.file
                            ? utf8_from_path(path_from_utf8(path).replace_extension(".notifies.json"))
                            : options.notifies;
  std::error_code ec;
  const bool sidecar_exists = std::filesystem::is_regular_file(path_from_utf8(sidecar), ec);
  auto loaded = options.load(path, sidecar_exists ? sidecar : std::string());
  if (!loaded) {
    error = "cannot open " + shown + ":\n" + loaded.error();
    return;
  }
  auto next = std::make_unique<Document>();
  next->path = path;
  next->sidecar = sidecar;
  next->sidecar_read = sidecar_exists;
  next->character = std::move(loaded).value();
  const LoadedCharacter& c = *next->character;
  auto renderer = window->create_renderer(c);
  if (!renderer) {
    error = "cannot draw " + shown + ":\n" + renderer.error();
    return;
  }
  next->renderer = std::move(renderer).value();
  next->playback = std::make_unique<Playback>(next->character);
  std::vector<ClipTiming> timings;
  for (const Clip& clip : c.asset.clips) timings.push_back({clip.name(), clip.duration()});
  next->notifies = NotifyDocument(c.notifies, std::move(timings));
  if (sidecar_exists) {  // saving keeps what this export does not own (the sidecar may serve several)
    std::ifstream in(path_from_utf8(sidecar), std::ios::binary);
    next->notifies.keep_source(std::string(std::istreambuf_iterator<char>(in), {}));
  }
  character_bounds(c.asset, next->lo, next->hi);
  const int joints = c.asset.skeleton.joint_count();
  next->depth.assign(joints, 0);
  next->expanded.assign(joints, 1);
  const auto parents = c.asset.skeleton.parents();
  for (int j = 0; j < joints; ++j) next->depth[j] = parents[j] >= 0 ? next->depth[parents[j]] + 1 : 0;
  next->blend_rows.resize(c.asset.clips.size());
  for (size_t i = 0; i < next->blend_rows.size(); ++i) next->blend_rows[i].x = static_cast<float>(i);
  for (const Mat4& inverse_bind : c.asset.skeleton.inverse_binds())
    next->bind_model.push_back(inverse(inverse_bind));
  doc = std::move(next);
  retarget.reset();  // its source was the previous document
  graph.reset();
  matching.reset();
  matching_on = false;
  scripted_stick.reset();
  if (doc->character->motion_database) {
    auto session = MotionMatchingSession::make(doc->character);
    if (session) matching = std::move(session).value();
  }
  error.clear();
  selected_joint = hovered_joint = -1;
  selected_notify = 0;
  axis.clip = -2;
  channel.asset = nullptr;  // the dope sheet is made again (a new asset may reuse the old one's address)
  camera.frame(doc->lo, doc->hi, layout.scene_w / std::max(layout.scene_h, 1.f));
  // Absolute, so that File > Recent finds it from any working folder.
  std::error_code absolute_error;
  const std::filesystem::path absolute = std::filesystem::absolute(path_from_utf8(path), absolute_error);
  settings.add_recent(absolute_error ? path : utf8_from_path(absolute.lexically_normal()));
  status_message = "opened " + display_name(path);
  recovery_file = recovery_path(settings_path, path);
  recovery_written.clear();
  recovery_clock = 0;
  offered_recovery = read_recovery(recovery_file, path);
  ask_recovery = offered_recovery.has_value();
  if (offered_recovery) recovery_written = offered_recovery->notifies_json;
  if (!c.notifies.warnings.empty())  // a shared sidecar naming another export's clips: said, not fatal
    status_message += " (" + std::to_string(c.notifies.warnings.size()) +
                      " sidecar clips are not in this model: their notifies are left off)";
  if (on_opened) on_opened();
}

void ViewState::request_open(const std::string& path) {
  if (!unsaved()) return open(path);
  pending = Pending::kOpen, pending_path = path, ask_unsaved = true;
}

void ViewState::request_quit() {
  if (!unsaved()) {
    quit = true;
    return;
  }
  pending = Pending::kQuit, ask_unsaved = true;
}

void ViewState::keep_recovery(float dt, bool now) {
  if (!doc || recovery_file.empty() || offered_recovery) return;  // an offered copy waits for its answer
  recovery_clock += dt;
  if (!now && recovery_clock < kRecoveryInterval) return;
  recovery_clock = 0;
  if (!doc->notifies.dirty()) {
    if (!recovery_written.empty()) remove_recovery(recovery_file), recovery_written.clear();
    return;
  }
  std::string json = doc->notifies.to_json();
  if (json == recovery_written) return;
  if (auto written = write_recovery(recovery_file, {recovery_model_key(doc->path), "", json}); !written)
    status_message = "cannot keep a recovery copy: " + written.error();
  else
    recovery_written = std::move(json);
}

bool ViewState::prepare_bake() {
  const bool in_place = doc->playback->root_motion();
  if (doc->baked_ready && doc->baked_in_place == in_place) return true;
  doc->baked_ready = false;
  auto baked = bake_animation(doc->playback->animated_asset());
  if (!baked) {
    doc->baked_error = baked.error();
    return false;
  }
  if (auto ok = doc->renderer->set_baked(*baked); !ok) {
    doc->baked_error = ok.error();
    return false;
  }
  doc->baked_ready = true;
  doc->baked_in_place = in_place;
  doc->baked_error.clear();
  return true;
}

void ViewState::edited(const std::string& refusal) {
  if (!refusal.empty()) {
    status_message = refusal;
    return;
  }
  auto set = doc->notifies.to_notify_set(doc->character->asset);
  if (!set) {
    error = "the edited notifies do not load: " + set.error();
    return;
  }
  doc->edited_notifies = std::make_shared<const NotifySet>(*set);
  if (graph) graph->set_notifies(doc->edited_notifies);  // the graph fires them too (from its entry states)
  doc->playback->set_notifies(std::move(set).value());
}

void ViewState::select_clip(int clip) {
  if (!doc) return;
  doc->playback->play(clip);
  selected_notify = 0;
}

void ViewState::save_notifies(const std::string& path) {
  const std::string target = path.empty() ? doc->sidecar : path;
  // The sidecar that was read may be written back (that is what authoring is); no other input may.
  for (const std::string& input : doc->character->source_files) {
    if (same_file(target, input) && !(doc->sidecar_read && same_file(input, doc->sidecar))) {
      error = "cannot save the notifies to " + target + ": it is an input of this character (" + input + ")";
      return;
    }
  }
  if (auto ok = doc->notifies.save(target); !ok) {
    error = "cannot save the notifies: " + ok.error();
    return;
  }
  status_message = "saved " + display_name(target);
  if (!doc->notifies.dirty()) keep_recovery(0, true);  // saved: no copy left
}

void ViewState::open_graph(const std::string& path) {
  if (!doc) return;
  auto opened = GraphDocument::open(path, doc->character, doc->edited_notifies);
  if (!opened) {
    error = "cannot open the graph " + path + ":\n" + opened.error();
    return;
  }
  graph = std::make_unique<GraphDocument>(std::move(opened).value());
  show_graph_tab = true;
  status_message = "graph " + display_name(path);
}

void ViewState::remember_field(const char* label) {
  fields[label] = {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()};
}

std::span<const Mat4> ViewState::pose_model() const {
  if (matching && matching_on) return matching->model();
  return graph ? graph->instance().animator().model() : doc->playback->model();
}

std::span<const JointPose> ViewState::pose_locals() const {
  if (matching && matching_on) return matching->locals();
  return graph ? graph->instance().locals() : doc->playback->locals();
}

const Mat4& ViewState::pose_world() const {
  return matching && matching_on ? matching->world() : doc->playback->world();
}

const CharacterAsset& ViewState::pose_asset() const {
  return graph ? doc->character->asset : doc->playback->animated_asset();
}

std::span<const Mat4> ViewState::shown_model() const {
  if (display.bind_pose && !doc->bind_model.empty()) return doc->bind_model;
  return pose_model();
}

const Clip* ViewState::clip_at(int clip) const {
  if (!doc) return nullptr;
  const auto& clips = doc->character->asset.clips;
  return clip >= 0 && clip < static_cast<int>(clips.size()) ? &clips[clip] : nullptr;
}

ShownClip ViewState::shown_clip() const {
  ShownClip shown;
  if (!doc) return shown;
  const Playback& p = *doc->playback;
  if (!graph) {
    shown.clip = p.current_clip() ? p.clip() : -1;
    shown.time = p.time();
    return shown;
  }
  const AnimGraphInstance& anim = graph->instance();
  if (anim.graph().layers().empty()) return shown;
  const AnimGraphLayer& layer = anim.graph().layers()[0];
  const AnimGraphState& state = layer.states[anim.current_state(0)];
  shown.what = "graph: " + layer.name + " in " + state.name;
  if (const Clip* clip = state.kind == AnimGraphState::kClip ? clip_at(state.clip) : nullptr) {
    // The state's normalised time (unwrapped over loops) as the clip's time.
    const double n = anim.state_time(0), f = state.loop ? n - std::floor(n) : std::clamp(n, 0.0, 1.0);
    shown.clip = state.clip;
    shown.time = std::clamp(static_cast<float>(f * clip->duration()), 0.f, clip->duration());
    shown.what += ", " + clip->name();
  } else if (state.kind == AnimGraphState::kEmpty) {
    shown.what += " (empty: no clip plays)";
  } else {
    shown.what += state.kind == AnimGraphState::kBlend1D ? " (a 1D blend space of" : " (a 2D blend space of";
    for (size_t i = 0; i < state.clips.size(); ++i)
      if (const Clip* clip = clip_at(state.clips[i])) shown.what += (i ? ", " : " ") + clip->name();
    shown.what += ": no one clip plays)";
  }
  return shown;
}

float ViewState::on_frame(float time) const {
  const Clip* clip = clip_at(shown_clip().clip);
  if (!clip) return time;
  return TimelineView::snap_to_frame(time, clip->duration(),
                                     clip->frame_rate() > 0 ? clip->frame_rate() : 30.f);
}

std::string ViewState::baked_limit() const {
  if (!doc) return "";
  const Playback& p = *doc->playback;
  if (matching && matching_on) return "motion matching drives the pose";
  if (graph) return "an animation graph drives the pose";
  if (p.blend_space_on()) return "a blend space drives the pose";
  if (p.layer_clip() >= 0) return "the override layer is not baked";
  if (p.foot_placement()) return "planted feet are not baked";
  if (display.bind_pose) return "the bind pose is not a clip";
  return "";
}

}  // namespace ossa::viewer
