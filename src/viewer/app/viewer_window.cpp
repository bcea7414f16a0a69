// The viewer: Dear ImGui draws the panels, a CharacterRenderer draws the character into its own frame, which
// is copied into the middle of the window (window.h: GLFW + OpenGL on Linux, Win32 + Direct3D 11 on
// Windows). Every control calls the plain classes (Playback, NotifyDocument, TimelineView, OrbitCamera);
// scripts inject the same pointer input the user would give, so the scripted tests drive the real window.

#include "viewer/app/viewer_window.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "ossa/core/file_io.h"
#include "ossa/render/baked_animation.h"
#include "ossa/render/image.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/skinning_job.h"
#include "ossa/serialize/gltf_export.h"
#include "ossa/serialize/load.h"
#include "render/draw_plan.h"
#include "viewer/app/window.h"
#include "viewer/dope_sheet.h"
#include "viewer/file_browser.h"
#include "viewer/graph_document.h"
#include "viewer/key_input.h"
#include "viewer/notify_document.h"
#include "viewer/orbit_camera.h"
#include "viewer/playback.h"
#include "viewer/recovery.h"
#include "viewer/retarget_session.h"
#include "viewer/script.h"
#include "viewer/settings.h"
#include "viewer/text.h"
#include "viewer/timeline.h"

namespace ossa::viewer {

namespace {

constexpr float kScriptStep = 1.f / 60;
constexpr int kMaxCrowd = 1000;

// Panel sizes in window coordinates (scaled by the monitor's content scale).
struct Layout {
  float left = 300, right = 330, bottom = 250, menu = 0;
  float scene_x = 0, scene_y = 0, scene_w = 1, scene_h = 1;
};

// The time axis the timeline, the dope sheet and the curve view share (one TimelineView: zooming one zooms
// all): names on the left, then the track, which keeps a margin of half a marker each side so that a key or
// notify at the clip's start or end is drawn whole; what lies outside it (zoomed in) is clipped, never over
// the names.
struct Track {
  ImVec2 origin, avail;
  float name_w = 0, ruler = 0, pad = 0;
  float track_x = 0, track_end = 0, x0 = 0, width = 0;
  float x_of(const TimelineView& view, float time) const { return x0 + view.time_to_x(time); }
};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A moving average over the last 60 samples.
class Average {
 public:
  void add(double v) {
    samples_[next_++ % samples_.size()] = v;
    count_ = std::min(count_ + 1, samples_.size());
  }
  double mean() const {
    double sum = 0;
    for (size_t i = 0; i < count_; ++i) sum += samples_[i];
    return count_ ? sum / static_cast<double>(count_) : 0;
  }

 private:
  std::array<double, 60> samples_{};
  size_t next_ = 0, count_ = 0;
};

const char* const kLightingNames[] = {"phong", "blinn-phong", "lambert", "unlit", "texture-only"};
const char* const kSkinningNames[] = {"gpu", "cpu", "baked"};
const char* const kLoopNames[] = {"once", "repeat", "pingpong"};
const char* const kGroundNames[] = {"flat", "slope"};  // Playback::Ground

// A file's name without its folder: what the window shows (the full path is in the recent-files menu).
std::string display_name(const std::string& path) {
  return utf8_from_path(path_from_utf8(path).filename());
}

// A titled separator (ImGui 1.86 has no SeparatorText).
void section(const char* title) {
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("%s", title);
}

template <size_t N>
int index_of(const char* const (&names)[N], const std::string& name) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<int>(i);
  return -1;
}

// What is open: the character, its renderer, its playback and the notifies being authored.
struct Document {
  std::string path, sidecar;
  bool sidecar_read = false;  // the character's notifies came from `sidecar`
  std::shared_ptr<const LoadedCharacter> character;
  std::unique_ptr<CharacterRenderer> renderer;
  std::unique_ptr<Playback> playback;
  NotifyDocument notifies;
  bool baked_ready = false;  // the bake of playback->animated_asset() is on the GPU
  bool baked_in_place = false;
  std::string baked_error;
  std::vector<BakedInstance> crowd;
  float crowd_time = 0;
  Vec3 lo{-1, 0, -1}, hi{1, 2, 1};  // the character's bounds at rest (framing)
  std::vector<int> depth;           // joint tree: depth of each joint
  std::vector<char> expanded;       // joint tree: children shown
  // Blend space being set up: per clip, whether it is a sample and where.
  struct BlendRow {
    bool use = false;
    float x = 0, y = 0;
  };
  std::vector<BlendRow> blend_rows;
  int blend_dimensions = 1;
  std::string blend_markers = "FootL,FootR";
};

// A second character beside the open one, playing its clip through a bone map (Inspect > Retarget).
struct RetargetView {
  std::string path;
  viewer::RetargetSession session;
  std::unique_ptr<CharacterRenderer> renderer;
  std::vector<Mat4> model;  // the target's pose this frame
  std::string map_path = "bone_map.json";
  int selected = -1;  // the target joint whose row is selected
};

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

class App {
 public:
  explicit App(const ViewerOptions& options) : options_(options) {}
  ~App();
  int run();

 private:
  bool create_window();
  void open(const std::string& path);
  void frame(float dt);
  void edited(const std::string& refusal);  // after a notify edit: the Animator fires the new set
  void select_clip(int clip);
  void save_notifies(const std::string& path);
  bool prepare_bake();

  // Script
  void run_script_actions();
  bool run_action(const ScriptAction& a);
  bool fail(const ScriptAction& a, const std::string& message);
  const EditableNotify* notify_named(const std::string& name) const;

  // Drawing
  void compute_layout();
  // The panels' inner edges dragged (a few pixels on the 3D view's side of each): sizes kept in the settings.
  enum class Edge { kNone, kLeft, kRight, kBottom } resizing_ = Edge::kNone;
  void resize_panels();
  void draw_menu();
  void draw_left_panel();
  void draw_right_panel();
  void draw_bottom_panel();
  void draw_timeline();
  void go_to_frame(int frame);                // the base clip's frame, clamped into the clip; pauses
  void set_loop_in_out(float in, float out);  // out < 0: the clip's end
  void draw_dope_sheet();
  void draw_curves();
  Track begin_track(float name_w, float marker_half);  // lays out the region left in the window
  void draw_ruler(ImDrawList* draw, const Track& track);
  // Scrub on the ruler (left drag), zoom (wheel) and pan (middle drag) over the track's region; true while
  // the ruler is being dragged.
  void track_input(const Track& track, bool hovered);
  enum class BottomTab { kNotifies, kDopeSheet, kCurves } bottom_tab_ = BottomTab::kNotifies;
  bool select_bottom_tab_ = false;  // a script (or a pick) chose the tab
  // Dope sheet and curves, made when the clip (or the asset: root motion makes its own) changes.
  DopeSheet dope_;
  const CharacterAsset* dope_asset_ = nullptr;
  int dope_clip_ = -2;
  int dope_row_ = -1;  // the selected row
  ChannelKind curve_kind_ = ChannelKind::kRotation;
  bool curve_euler_ = true;
  std::vector<CurveSample> curve_;
  std::tuple<const CharacterAsset*, int, int, int> curve_for_{nullptr, -2, -1, -1};  // asset, clip, row, kind
  bool scrubbing_track_ = false;
  void refresh_dope_sheet();
  void draw_event_log();
  void draw_notify_editor();
  void draw_joint_tree();
  void draw_blend_space();
  void draw_foot_placement();
  void draw_morphs();
  void draw_retarget();
  void draw_graph();
  void draw_graph_diagram(int layer);
  void open_graph(const std::string& path);
  std::span<const Mat4> shown_model() const;  // the graph's pose when one drives the character
  float on_frame(float time) const;           // `time` snapped to the current clip's nearest frame
  void open_retarget(const std::string& path, const std::string& map_path);
  void save_bone_map(const std::string& path);
  void retarget_edit(int target_joint, int source_joint);
  std::string apply_blend_space();  // the Document's rows to the Playback; "" or why not
  void draw_error();
  void scene_input();
  void render_scene();
  void draw_scene_overlay();
  bool project(Vec3 world, ImVec2& out) const;
  bool screenshot(const std::string& path);

  ViewerOptions options_;
  ViewerSettings settings_;
  std::string settings_path_;
  std::unique_ptr<Window> window_;
  bool imgui_ready_ = false;  // the ImGui context is made
  float ui_scale_ = 1;
  Layout layout_;
  std::unique_ptr<Document> doc_;
  std::unique_ptr<RetargetView> retarget_;  // needs doc_ (its character is the source)
  std::string retarget_path_;               // the Retarget tab's path field
  std::unique_ptr<GraphDocument> graph_;    // an animation graph drives the character (Inspect > Graph)
  std::string graph_path_;                  // the Graph tab's path field
  bool show_graph_tab_ = false;
  double graph_checked_ = 0;        // seconds since the graph file was last looked at
  bool show_retarget_tab_ = false;  // bring the tab forward (a target was just opened)
  std::string error_;               // shown until dismissed
  std::string status_message_;      // last save, etc.
  OrbitCamera camera_;
  TimelineView timeline_;
  int timeline_clip_ = -2;
  FrameSettings frame_;
  Mat4 view_proj_;
  LightingMode lighting_ = LightingMode::kBlinnPhong;
  int skinning_ = 0;  // kSkinningNames
  bool grid_ = true, skeleton_ = false;
  bool joint_names_ = false;  // names beside the joints
  bool joint_axes_ = false;   // each joint's x, y and z axes
  bool bind_pose_ = false;    // the character in the pose its meshes were bound in, not animated
  std::vector<Mat4> bind_model_;
  bool onion_ = false;  // ghost skeletons 3 and 6 frames before (blue) and after (green) the playhead
  bool trail_ = false;  // the selected joint's path over the whole clip
  std::vector<Vec3> trail_points_;  // that path in model space, for trail_for_ (asset, clip, joint)
  std::tuple<const CharacterAsset*, int, int> trail_for_{nullptr, -2, -1};
  SamplingCache ghost_cache_;
  std::vector<JointPose> ghost_locals_;
  std::vector<Mat4> ghost_model_;
  bool follow_ = false;  // the camera's target moves with the character (root motion)
  Vec3 followed_{};      // where the character was at the last frame followed
  int crowd_count_ = 0;
  int selected_joint_ = -1, hovered_joint_ = -1;
  int reveal_joint_ = -1;          // picked in the view: the Joints tab opens on it, its parents expanded
  std::vector<int> joints_shown_;  // the joint tree's rows on screen last frame
  uint32_t selected_notify_ = 0;
  std::string new_notify_name_ = "Event";
  float new_notify_duration_ = 0;
  // The notify editor's text fields: what each shows, loaded from the document when the selection or the
  // document's value changes (undo, redo, a script) and not while the user types in it.
  std::string payload_text_, payload_loaded_;
  uint32_t payload_for_ = 0;
  std::string rename_text_, rename_loaded_;
  uint32_t rename_for_ = 0;
  bool rename_active_ = false;
  std::unordered_map<std::string, std::pair<ImVec2, ImVec2>>
      field_rects_;  // script: the last frame's named fields
  void remember_field(const char* label);
  int crossfade_target_ = 0;
  float crossfade_duration_ = 0.3f;
  bool crossfade_sync_ = false;
  int layer_clip_ = 0;
  float layer_weight_ = 1;
  bool layer_on_ = false;
  int ground_ = 1;  // kGroundNames
  bool show_export_ = false;
  bool show_export_view_ = false;
  std::string export_view_path_;
  // The clip as the 3D view shows it (camera, lighting, grid, size), from its start to its end at up to 30
  // frames per second: OUT.gif, or OUT.png as OUT_0000.png, OUT_0001.png, ...
  void export_view(const std::string& path);
  std::string export_path_;
  void export_gltf(const std::string& path);
  bool show_open_ = false;
  // File > Open: a browser over the folders (made when first shown, at the open model's folder).
  std::optional<FileBrowser> browser_;
  std::string browser_field_, browser_selected_;
  bool close_browser_ = false;
  void browse_pick(const std::string& name);  // a double-click: into a folder, or open a file
  // Unsaved edits are never thrown away: opening another file or quitting asks first (save, discard,
  // cancel), and a recovery copy is kept beside the settings while they are unsaved (viewer/recovery.h).
  enum class Pending { kNone, kOpen, kQuit } pending_ = Pending::kNone;
  std::string pending_path_;
  bool ask_unsaved_ = false;                      // the prompt is to be opened
  std::optional<RecoveryCopy> offered_recovery_;  // a copy found when the model was opened, not yet answered
  bool ask_recovery_ = false;
  std::string recovery_file_;     // the open document's copy ("" when none is kept)
  std::string recovery_written_;  // what that copy holds ("" when there is none)
  float recovery_clock_ = 0;
  static constexpr float kRecoveryInterval = 2;  // seconds between copies while edits are unsaved
  void request_open(const std::string& path);
  void request_quit();
  enum class Answer { kSave, kDiscard, kCancel, kRecover };
  void answer(Answer choice);
  void keep_recovery(float dt, bool now = false);
  void draw_prompts();
  bool unsaved() const { return doc_ && doc_->notifies.dirty(); }
  std::string title_ = "Ossa viewer";  // the window's title: the file, '*' while edits are unsaved
  std::vector<int> visible_joints_;    // scratch: the joint tree's rows
  // Timeline interaction
  enum class Drag { kNone, kScrub, kMove, kResize, kPan } drag_ = Drag::kNone;
  float drag_offset_ = 0;
  std::vector<std::string> drag_lanes_;  // the lane order when a notify drag began (kept until it ends)
  bool scene_dragging_ = false;
  ImVec2 scene_press_{}, scene_last_{};
  // Timings
  Average frame_ms_, update_ms_, scene_ms_, ui_ms_, swap_ms_;
  Clock::time_point last_frame_ = Clock::now();
  long long frames_ = 0;
  // Script
  std::vector<ScriptAction> script_;
  size_t next_action_ = 0;
  int wait_frames_ = 0;
  int status_ = 0;
  bool quit_ = false;
  ImVec2 script_mouse_{-FLT_MAX, -FLT_MAX};
  bool script_down_ = false;
  std::vector<std::pair<ImVec2, bool>> script_pointer_;  // queued (position, button down), one per frame
  // Keyboard: GLFW's callbacks (or a script) queue events; each frame takes its share (viewer/key_input.h).
  KeyInput keys_;
  std::vector<int> held_keys_;  // script: `hold`, auto-repeating for held_frames_ more frames
  int held_frames_ = 0;
  void feed_keys();
  std::vector<std::string> pending_drops_;
};

App::~App() {
  // Renderers first: they draw on the window's device.
  retarget_.reset();
  doc_.reset();
  window_.reset();
  if (imgui_ready_) ImGui::DestroyContext();
}

bool App::create_window() {
  const int width = options_.width > 0 ? options_.width : settings_.window_width;
  const int height = options_.height > 0 ? options_.height : settings_.window_height;
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  imgui_ready_ = true;
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // panel layout is fixed; settings live in viewer.json
  WindowEvents events;
  events.close_requested = [this] {
    if (!unsaved()) return true;
    request_quit();  // asked first
    return false;
  };
  events.dropped = [this](const std::string& path) { pending_drops_.push_back(path); };
  // Keys and characters go through our queue instead of straight into Dear ImGui (see feed_keys()); a
  // scripted run sees only its script's keys, as it sees only its pointer.
  events.key = [this](int key, KeyAction action) {
    if (script_.empty()) keys_.push_key(key, action);
  };
  events.character = [this](uint32_t codepoint) {
    if (script_.empty()) keys_.push_character(codepoint);
  };
  std::string error;
  window_ = Window::open(width, height, script_.empty(), std::move(events), error);  // scripts: no vsync
  if (!window_) {
    std::fprintf(stderr, "ossa view: %s\n", error.c_str());
    return false;
  }
  ui_scale_ = std::clamp(window_->content_scale(), 1.f, 4.f);
  ImGui::StyleColorsDark();
  ImGui::GetStyle().ScaleAllSizes(ui_scale_);
  io.FontGlobalScale = ui_scale_;
  return true;
}

void App::open(const std::string& path) {
  const std::string shown = path.empty() ? "(no path)" : path;
  if (!options_.load) {
    error_ = "cannot open " + shown + ": this build reads no files";
    return;
  }
  // The sidecar authored: --notifies for the file given on the command line, else MODEL.notifies.json.
  std::string sidecar = options_.notifies.empty() || path != options_.file
                            ? utf8_from_path(path_from_utf8(path).replace_extension(".notifies.json"))
                            : options_.notifies;
  std::error_code ec;
  const bool sidecar_exists = std::filesystem::is_regular_file(path_from_utf8(sidecar), ec);
  auto loaded = options_.load(path, sidecar_exists ? sidecar : std::string());
  if (!loaded) {
    error_ = "cannot open " + shown + ":\n" + loaded.error();
    return;
  }
  auto doc = std::make_unique<Document>();
  doc->path = path;
  doc->sidecar = sidecar;
  doc->sidecar_read = sidecar_exists;
  doc->character = std::move(loaded).value();
  const LoadedCharacter& c = *doc->character;
  auto renderer = window_->create_renderer(c);
  if (!renderer) {
    error_ = "cannot draw " + shown + ":\n" + renderer.error();
    return;
  }
  doc->renderer = std::move(renderer).value();
  doc->playback = std::make_unique<Playback>(doc->character);
  std::vector<ClipTiming> timings;
  for (const Clip& clip : c.asset.clips) timings.push_back({clip.name(), clip.duration()});
  doc->notifies = NotifyDocument(c.notifies, std::move(timings));
  if (sidecar_exists) {  // saving keeps what this export does not own (the sidecar may serve several)
    std::ifstream in(path_from_utf8(sidecar), std::ios::binary);
    doc->notifies.keep_source(std::string(std::istreambuf_iterator<char>(in), {}));
  }
  character_bounds(c.asset, doc->lo, doc->hi);
  const int joints = c.asset.skeleton.joint_count();
  doc->depth.assign(joints, 0);
  doc->expanded.assign(joints, 1);
  const auto parents = c.asset.skeleton.parents();
  for (int j = 0; j < joints; ++j) doc->depth[j] = parents[j] >= 0 ? doc->depth[parents[j]] + 1 : 0;
  doc->blend_rows.resize(c.asset.clips.size());
  for (size_t i = 0; i < doc->blend_rows.size(); ++i) doc->blend_rows[i].x = static_cast<float>(i);
  doc_ = std::move(doc);
  bind_model_.clear();  // the pose the meshes were bound in: each joint's inverse bind, inverted
  for (const Mat4& inverse_bind : doc_->character->asset.skeleton.inverse_binds())
    bind_model_.push_back(inverse(inverse_bind));
  retarget_.reset();  // its source was the previous document
  graph_.reset();
  error_.clear();
  selected_joint_ = hovered_joint_ = -1;
  selected_notify_ = 0;
  timeline_clip_ = -2;
  layer_on_ = false;
  crossfade_target_ = layer_clip_ = 0;
  camera_.frame(doc_->lo, doc_->hi, layout_.scene_w / std::max(layout_.scene_h, 1.f));
  // Absolute, so that File > Recent finds it from any working folder.
  std::error_code absolute_error;
  const std::filesystem::path absolute = std::filesystem::absolute(path_from_utf8(path), absolute_error);
  settings_.add_recent(absolute_error ? path : utf8_from_path(absolute.lexically_normal()));
  status_message_ = "opened " + display_name(path);
  recovery_file_ = recovery_path(settings_path_, path);
  recovery_written_.clear();
  recovery_clock_ = 0;
  offered_recovery_ = read_recovery(recovery_file_, path);
  ask_recovery_ = offered_recovery_.has_value();
  if (offered_recovery_) recovery_written_ = offered_recovery_->notifies_json;
  if (!c.notifies.warnings.empty())  // a shared sidecar naming another export's clips: said, not fatal
    status_message_ += " (" + std::to_string(c.notifies.warnings.size()) +
                       " sidecar clips are not in this model: their notifies are left off)";
}

bool App::prepare_bake() {
  const bool in_place = doc_->playback->root_motion();
  if (doc_->baked_ready && doc_->baked_in_place == in_place) return true;
  doc_->baked_ready = false;
  auto baked = bake_animation(doc_->playback->animated_asset());
  if (!baked) {
    doc_->baked_error = baked.error();
    return false;
  }
  if (auto ok = doc_->renderer->set_baked(*baked); !ok) {
    doc_->baked_error = ok.error();
    return false;
  }
  doc_->baked_ready = true;
  doc_->baked_in_place = in_place;
  doc_->baked_error.clear();
  return true;
}

void App::edited(const std::string& refusal) {
  if (!refusal.empty()) {
    status_message_ = refusal;
    return;
  }
  auto set = doc_->notifies.to_notify_set(doc_->character->asset);
  if (!set) {
    error_ = "the edited notifies do not load: " + set.error();
    return;
  }
  doc_->playback->set_notifies(std::move(set).value());
}

void App::select_clip(int clip) {
  if (!doc_) return;
  doc_->playback->play(clip);
  selected_notify_ = 0;
}

// The character as it plays here, with the notifies as edited (saved or not), as glTF
// (ossa/serialize/gltf_export.h).
void App::export_gltf(const std::string& path) {
  LoadedCharacter character = *doc_->character;
  if (auto set = doc_->notifies.to_notify_set(character.asset)) character.notifies = std::move(set).value();
  auto written = write_gltf(character, path);
  if (!written) {
    error_ = "cannot export: " + written.error();
    return;
  }
  status_message_ = "exported " + display_name(path);
  if (!written->dropped.empty())
    status_message_ += "; not in the glTF: " + written->dropped[0] +
                       (written->dropped.size() > 1 ? " (and " + std::to_string(written->dropped.size() - 1) +
                                                          " more: `ossa convert` lists them)"
                                                    : "");
}

void App::save_notifies(const std::string& path) {
  const std::string target = path.empty() ? doc_->sidecar : path;
  // The sidecar that was read may be written back (that is what authoring is); no other input may.
  for (const std::string& input : doc_->character->source_files) {
    if (same_file(target, input) && !(doc_->sidecar_read && same_file(input, doc_->sidecar))) {
      error_ = "cannot save the notifies to " + target + ": it is an input of this character (" + input + ")";
      return;
    }
  }
  if (auto ok = doc_->notifies.save(target); !ok) {
    error_ = "cannot save the notifies: " + ok.error();
    return;
  }
  status_message_ = "saved " + display_name(target);
  if (!doc_->notifies.dirty()) keep_recovery(0, true);  // saved: no copy left
}

const EditableNotify* App::notify_named(const std::string& name) const {
  if (!doc_) return nullptr;
  for (const EditableNotify& n : doc_->notifies.notifies(doc_->playback->clip()))
    if (n.name == name) return &n;
  return nullptr;
}

// ------------------------------------------------------------------------------------------------ script

bool App::fail(const ScriptAction& a, const std::string& message) {
  std::fprintf(stderr, "ossa view: %s:%d: %s: %s\n", options_.script.c_str(), a.line, a.action.c_str(),
               message.c_str());
  status_ = 1;
  quit_ = true;
  return false;
}

bool App::run_action(const ScriptAction& a) {
  const auto& w = a.words;
  const std::string& verb = a.action;
  auto number = [&](size_t i) { return i < a.numbers.size() ? a.numbers[i] : 0.0; };
  auto on = [&](size_t i) { return i < w.size() && w[i] == "on"; };
  if (verb == "open") {  // as File > Open: asks first when edits are unsaved
    request_open(w[0]);
    return true;
  }
  if (verb == "browse") {  // File > Open at FOLDER
    browser_.emplace(w[0]);
    if (!browser_->error().empty()) return fail(a, browser_->error());
    show_open_ = true;
    return true;
  }
  if (verb == "browse-pick" || verb == "expect-browser-entry") {
    if (!browser_) return fail(a, "no file browser is open");
    const auto& entries = browser_->entries();
    const bool listed =
        std::any_of(entries.begin(), entries.end(), [&](const BrowserEntry& e) { return e.name == w[0]; });
    if (!listed) return fail(a, "the browser does not list '" + w[0] + "' in " + browser_->folder());
    if (verb == "browse-pick") browse_pick(w[0]);
    return true;
  }
  if (verb == "close") {  // the window's close button (or Ctrl+Q)
    request_quit();
    return true;
  }
  if (verb == "answer") {
    const bool about_recovery = w[0] == "recover" || (w[0] == "discard" && offered_recovery_);
    if (about_recovery ? !offered_recovery_ : pending_ == Pending::kNone)
      return fail(a, "nothing is being asked");
    answer(w[0] == "save"      ? Answer::kSave
           : w[0] == "discard" ? Answer::kDiscard
           : w[0] == "recover" ? Answer::kRecover
                               : Answer::kCancel);
    return error_.empty() || fail(a, error_);
  }
  if (verb == "expect-recovery") {
    std::error_code ec;
    const bool kept = !recovery_file_.empty() && std::filesystem::exists(path_from_utf8(recovery_file_), ec);
    return kept == (w[0] == "yes") || fail(a, kept ? "a recovery copy is kept" : "no recovery copy is kept");
  }
  if (verb == "expect-title") return title_ == w[0] || fail(a, "the window's title is '" + title_ + "'");
  if (verb == "expect-prompt") {
    const std::string asked = offered_recovery_            ? "recovery"
                              : pending_ != Pending::kNone ? "unsaved"
                                                           : "none";
    return asked == w[0] || fail(a, "the prompt shown is: " + asked);
  }
  if (verb == "wait") {
    wait_frames_ = static_cast<int>(number(0));
    return true;
  }
  if (verb == "quit") {
    if (!a.numbers.empty()) status_ = static_cast<int>(number(0));
    quit_ = true;
    return true;
  }
  if (verb == "screenshot") return screenshot(w[0]) || fail(a, "cannot write " + w[0]);
  if (verb == "click" || verb == "drag" || verb == "tap") {
    const ImVec2 from(static_cast<float>(number(0)), static_cast<float>(number(1)));
    if (verb != "tap") script_pointer_.push_back({from, false});  // tap: arrives and presses in one poll
    script_pointer_.push_back({from, true});
    if (verb == "drag") {
      const ImVec2 to(static_cast<float>(number(2)), static_cast<float>(number(3)));
      for (int i = 1; i <= 6; ++i) {
        const float t = static_cast<float>(i) / 6;
        script_pointer_.push_back({ImVec2(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t), true});
      }
      script_pointer_.push_back({to, false});
    } else {
      script_pointer_.push_back({from, false});
    }
    return true;
  }
  if (verb == "key" || verb == "hold") {
    // All in one poll, as at a low frame rate: modifiers, the key, then (key) the releases.
    const std::vector<int> combo = parse_key_combo(w[0]);
    for (int key : combo) keys_.push_key(key, KeyAction::kPress);
    if (verb == "hold") {
      held_keys_ = combo;
      held_frames_ = static_cast<int>(number(0));
    } else {
      for (auto key = combo.rbegin(); key != combo.rend(); ++key) keys_.push_key(*key, KeyAction::kRelease);
    }
    return true;
  }
  if (verb == "type") {
    for (char32_t c : utf8_code_points(w[0])) keys_.push_character(static_cast<uint32_t>(c));
    return true;
  }
  if (verb == "click-field") {
    const auto field = field_rects_.find(w[0]);
    if (field == field_rects_.end()) return fail(a, "no field '" + w[0] + "' was drawn");
    const ImVec2 center((field->second.first.x + field->second.second.x) / 2,
                        (field->second.first.y + field->second.second.y) / 2);
    script_pointer_.push_back({center, false});
    script_pointer_.push_back({center, true});
    script_pointer_.push_back({center, false});
    return true;
  }
  if (verb == "expect-text") {
    const std::string* shown = w[0] == "payload"  ? &payload_text_
                               : w[0] == "rename" ? &rename_text_
                               : w[0] == "name"   ? &new_notify_name_
                                                  : nullptr;
    if (!shown) return fail(a, "no text field '" + w[0] + "' (payload, rename, name)");
    return *shown == w[1] || fail(a, "the field '" + w[0] + "' shows '" + *shown + "'");
  }
  if (verb == "lighting") {
    parse_lighting_mode(w[0], lighting_);
    return true;
  }
  if (verb == "skeleton") return skeleton_ = on(0), true;
  if (verb == "expect-error") {
    if (error_.empty()) return fail(a, "no error is shown");
    if (!w.empty() && error_.find(w[0]) == std::string::npos) return fail(a, "the error shown is: " + error_);
    std::printf("ossa view: error shown as expected: %s\n", error_.c_str());
    return true;
  }
  if (!doc_) return fail(a, "no file is open" + (error_.empty() ? "" : " (" + error_ + ")"));
  Playback& p = *doc_->playback;
  const CharacterAsset& asset = doc_->character->asset;
  const int clip = p.clip();
  auto find_clip = [&](const std::string& name) {
    const int c = asset.find_clip(name);
    if (c < 0) fail(a, "no clip '" + name + "'");
    return c;
  };
  auto edit = [&](const std::string& refusal) {
    edited(refusal);
    return refusal.empty() || fail(a, refusal);
  };
  if (verb == "play") {
    const int c = find_clip(w[0]);
    if (c < 0) return false;
    select_clip(c);
    p.set_paused(false);
    return true;
  }
  if (verb == "pause") return p.set_paused(true), true;
  if (verb == "resume") return p.set_paused(false), true;
  if (verb == "seek") return p.seek(static_cast<float>(number(0))), true;
  if (verb == "speed") return p.set_speed(static_cast<float>(number(0))), true;
  if (verb == "step") return p.step_frames(static_cast<int>(number(0))), true;
  if (verb == "loop") return p.set_loop_mode(static_cast<LoopMode>(index_of(kLoopNames, w[0]))), true;
  if (verb == "crossfade") {
    const int c = find_clip(w[0]);
    return c >= 0 && p.crossfade(c, static_cast<float>(number(0)), w.size() > 2 && w[2] == "sync");
  }
  if (verb == "root-motion") {
    const std::string refusal = p.set_root_motion(on(0));
    return refusal.empty() || fail(a, refusal);
  }
  if (verb == "blend-sample") {
    const int c = find_clip(w[0]);
    if (c < 0) return false;
    doc_->blend_rows[c] = {true, static_cast<float>(number(0)), static_cast<float>(number(1))};
    return true;
  }
  if (verb == "blend") {
    if (w[0] == "off") {
      for (auto& row : doc_->blend_rows) row.use = false;
      return p.set_blend_space({}, {}, 1), true;
    }
    doc_->blend_dimensions = w[0] == "2d" ? 2 : 1;
    if (w.size() > 1) doc_->blend_markers = w[1];
    const std::string refusal = apply_blend_space();
    return refusal.empty() || fail(a, refusal);
  }
  if (verb == "blend-param") {
    p.set_blend_parameter(static_cast<float>(number(0)), static_cast<float>(number(1)));
    return true;
  }
  if (verb == "morph" || verb == "morph-off") {
    for (int m = 0; m < static_cast<int>(asset.meshes.size()); ++m) {
      const auto names = asset.meshes[m].morph_targets().names();
      for (int t = 0; t < static_cast<int>(names.size()); ++t)
        if (names[t] == w[0])
          return p.set_morph_override(m, t,
                                      verb == "morph-off" ? std::numeric_limits<float>::quiet_NaN()
                                                          : static_cast<float>(number(0))),
                 true;
    }
    return fail(a, "no morph target '" + w[0] + "'");
  }
  if (verb == "feet") {
    if (w.size() > 1) ground_ = index_of(kGroundNames, w[1]);
    const std::string refusal = p.set_foot_placement(on(0), static_cast<Playback::Ground>(ground_));
    return refusal.empty() || fail(a, refusal);
  }
  if (verb == "skinning") return skinning_ = index_of(kSkinningNames, w[0]), true;
  if (verb == "crowd") return crowd_count_ = std::clamp(static_cast<int>(number(0)), 0, kMaxCrowd), true;
  if (verb == "layer") {
    if (w[0] == "off") return layer_on_ = false, p.set_layer(-1, 0, -1);
    const int c = find_clip(w[0]);
    if (c < 0) return false;
    int joint = -1;
    if (w.size() > 2 && (joint = asset.skeleton.find_joint(w[2])) < 0)
      return fail(a, "no joint '" + w[2] + "'");
    layer_on_ = true;
    layer_clip_ = c;
    layer_weight_ = static_cast<float>(number(0));
    return p.set_layer(c, layer_weight_, joint) || fail(a, "the layer was refused");
  }
  if (verb == "graph") {
    open_graph(w[0]);
    return graph_ || fail(a, error_);
  }
  if (verb == "graph-set" || verb == "expect-state") {
    if (!graph_) return fail(a, "no graph drives the character (graph PATH first)");
    if (verb == "graph-set") {
      const std::string refusal = graph_->set(w[0], w[1]);
      return refusal.empty() || fail(a, refusal);
    }
    const AnimGraph& graph = graph_->graph();
    int layer = -1;
    for (size_t l = 0; l < graph.layers().size(); ++l)
      if (graph.layers()[l].name == w[0]) layer = static_cast<int>(l);
    if (layer < 0) return fail(a, "the graph has no layer '" + w[0] + "'");
    const int current = graph_->instance().current_state(layer);
    return graph.layers()[layer].states[current].name == w[1] ||
           fail(a, "layer '" + w[0] + "' is in '" + graph.layers()[layer].states[current].name + "'");
  }
  if (verb == "retarget") {
    open_retarget(w[0], w.size() > 1 ? w[1] : "");
    return retarget_ || fail(a, error_);
  }
  if (verb == "map-bone" || verb == "save-map") {
    if (!retarget_) return fail(a, "nothing is retargeted (retarget PATH first)");
    if (verb == "save-map") {
      save_bone_map(w.empty() ? "" : w[0]);
      return error_.empty() || fail(a, error_);
    }
    const Skeleton& source = retarget_->session.source().asset.skeleton;
    const Skeleton& target = retarget_->session.target().asset.skeleton;
    const int t = target.find_joint(w[0]), j = w[1] == "none" ? -1 : source.find_joint(w[1]);
    if (t < 0) return fail(a, "the target has no joint '" + w[0] + "'");
    if (j < 0 && w[1] != "none") return fail(a, "the source has no joint '" + w[1] + "'");
    const std::string refusal = retarget_->session.set_source(t, j);
    return refusal.empty() || fail(a, refusal);
  }
  if (verb == "select-joint") {  // as a pick in the view
    selected_joint_ = reveal_joint_ = asset.skeleton.find_joint(w[0]);
    return selected_joint_ >= 0 || fail(a, "no joint '" + w[0] + "'");
  }
  if (verb == "expect-joint-shown") {
    const int j = asset.skeleton.find_joint(w[0]);
    return std::find(joints_shown_.begin(), joints_shown_.end(), j) != joints_shown_.end() ||
           fail(a, "the joint tree does not show '" + w[0] + "'");
  }
  if (verb == "add-notify") {
    uint32_t id = 0;
    const std::string refusal = doc_->notifies.add(
        clip, w[0], on_frame(p.time()), a.numbers.empty() ? 0.f : static_cast<float>(number(0)), &id);
    if (refusal.empty()) selected_notify_ = id;
    return edit(refusal);
  }
  if (verb == "undo") return doc_->notifies.undo() ? (edited(""), true) : fail(a, "nothing to undo");
  if (verb == "redo") return doc_->notifies.redo() ? (edited(""), true) : fail(a, "nothing to redo");
  if (verb == "save") {
    save_notifies(w.empty() ? "" : w[0]);
    return error_.empty() || fail(a, error_);
  }
  if (verb == "export-view") {
    export_view(w[0]);
    return error_.empty() || fail(a, error_);
  }
  if (verb == "export") {
    export_gltf(w[0]);
    return error_.empty() || fail(a, error_);
  }
  if (verb == "expect-clip") {
    const int c = asset.find_clip(w[0]);
    return (c >= 0 && c == clip) ||
           fail(a,
                "the clip playing is '" + (clip >= 0 ? asset.clips[clip].name() : std::string("none")) + "'");
  }
  if (verb == "frame") return go_to_frame(static_cast<int>(number(0))), true;
  if (verb == "loop-range") {
    if (w[0] == "off") return p.clear_loop_range(), true;
    return p.set_loop_range(static_cast<float>(number(0)), static_cast<float>(number(1))) ||
           fail(a, "not a range inside the clip");
  }
  if (verb == "expect-time") {
    return std::abs(p.time() - number(0)) <= 1e-4 ||
           fail(a, "the playhead is at " + std::to_string(p.time()) + " s");
  }
  if (verb == "expect-layout") {
    const bool same = std::lround(layout_.left / ui_scale_) == std::lround(number(0)) &&
                      std::lround(layout_.right / ui_scale_) == std::lround(number(1)) &&
                      std::lround(layout_.bottom / ui_scale_) == std::lround(number(2));
    return same || fail(a, "the panels are " + std::to_string(std::lround(layout_.left / ui_scale_)) + " " +
                               std::to_string(std::lround(layout_.right / ui_scale_)) + " " +
                               std::to_string(std::lround(layout_.bottom / ui_scale_)));
  }
  if (verb == "font-scale") return settings_.font_scale = number(0), true;
  if (verb == "view") {
    camera_.look_from(w[0] == "side"  ? OrbitCamera::View::kSide
                      : w[0] == "top" ? OrbitCamera::View::kTop
                                      : OrbitCamera::View::kFront);
    return true;
  }
  if (verb == "follow") return follow_ = on(0), true;
  if (verb == "onion") return onion_ = on(0), true;
  if (verb == "trail") return trail_ = on(0), true;
  if (verb == "joint-names") return joint_names_ = on(0), true;
  if (verb == "joint-axes") return joint_axes_ = on(0), true;
  if (verb == "bind-pose") return bind_pose_ = on(0), true;
  if (verb == "bottom-tab") {
    bottom_tab_ = w[0] == "dope"     ? BottomTab::kDopeSheet
                  : w[0] == "curves" ? BottomTab::kCurves
                                     : BottomTab::kNotifies;
    select_bottom_tab_ = true;
    return true;
  }
  if (verb == "dope-row" || verb == "expect-dope-rows") {
    refresh_dope_sheet();
    if (verb == "expect-dope-rows")
      return dope_.rows.size() == static_cast<size_t>(number(0)) ||
             fail(a, "the dope sheet has " + std::to_string(dope_.rows.size()) + " rows");
    for (size_t r = 0; r < dope_.rows.size(); ++r)
      if (dope_.rows[r].name == w[0]) {
        dope_row_ = static_cast<int>(r);
        if (dope_.rows[r].joint >= 0) selected_joint_ = dope_.rows[r].joint;
        curve_kind_ = dope_.rows[r].joint >= 0 ? ChannelKind::kRotation : ChannelKind::kMorphWeight;
        return true;
      }
    return fail(a, "the dope sheet has no row '" + w[0] + "'");
  }
  if (verb == "curve") {
    curve_kind_ = w[0] == "t"   ? ChannelKind::kTranslation
                  : w[0] == "s" ? ChannelKind::kScale
                                : ChannelKind::kRotation;
    if (w.size() > 1) curve_euler_ = w[1] == "euler";
    return true;
  }
  if (verb == "zoom") {  // the timeline, about the playhead (as the wheel does about the pointer)
    timeline_.zoom(static_cast<float>(number(0)), timeline_.time_to_x(p.time()));
    return true;
  }
  if (verb == "expect-paused") {
    return p.paused() == (w[0] == "yes") || fail(a, p.paused() ? "paused" : "playing");
  }
  if (verb == "expect-notifies") {
    const auto want = static_cast<size_t>(number(0));
    const size_t have = doc_->notifies.notifies(clip).size();
    return have == want ||
           fail(a, "the clip has " + std::to_string(have) + " notifies, expected " + std::to_string(want));
  }
  if (verb == "expect-notify") return notify_named(w[0]) || fail(a, "the clip has no notify '" + w[0] + "'");
  if (verb == "expect-events") {
    const auto want = static_cast<size_t>(number(0));
    return p.events().size() == want ||
           fail(a, std::to_string(p.events().size()) + " events fired, expected " + std::to_string(want));
  }
  // The notify actions name a notify of the clip playing.
  const EditableNotify* n = notify_named(w[0]);
  if (!n) return fail(a, "the clip playing has no notify '" + w[0] + "'");
  const uint32_t id = n->id;
  selected_notify_ = id;
  if (verb == "move-notify") return edit(doc_->notifies.move(clip, id, static_cast<float>(number(0))));
  if (verb == "duration-notify")
    return edit(doc_->notifies.set_duration(clip, id, static_cast<float>(number(0))));
  if (verb == "rename-notify") return edit(doc_->notifies.rename(clip, id, w[1]));
  if (verb == "payload-notify") return edit(doc_->notifies.set_payload(clip, id, w[1]));
  if (verb == "delete-notify") {
    selected_notify_ = 0;
    return edit(doc_->notifies.remove(clip, id));
  }
  return fail(a, "not available in the viewer");
}

void App::run_script_actions() {
  if (wait_frames_ > 0) {
    --wait_frames_;
    return;
  }
  // A screenshot waits for the frame to be drawn (run() takes it after drawing, before the swap).
  // Input a script gave is taken first (a key's press and release arrive in separate frames).
  auto input_done = [&] { return script_pointer_.empty() && keys_.pending() == 0 && held_frames_ == 0; };
  while (!quit_ && wait_frames_ == 0 && next_action_ < script_.size() && input_done() &&
         script_[next_action_].action != "screenshot")
    run_action(script_[next_action_++]);
  if (next_action_ >= script_.size() && wait_frames_ == 0 && input_done()) quit_ = true;
}

bool App::screenshot(const std::string& path) {
  auto written = write_png(window_->read_back(), path);
  if (!written) std::fprintf(stderr, "ossa view: %s\n", written.error().c_str());
  return static_cast<bool>(written);
}

// ------------------------------------------------------------------------------------------------ frame

void App::resize_panels() {
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 m = io.MousePos;
  int w = 0, h = 0;
  window_->size(w, h);
  const float grab = 5 * ui_scale_, right_edge = static_cast<float>(w) - layout_.right,
              bottom_edge = static_cast<float>(h) - layout_.bottom;
  const bool beside_scene = m.y > layout_.menu && m.y < bottom_edge - grab;
  Edge near = Edge::kNone;
  if (beside_scene && m.x >= layout_.left && m.x <= layout_.left + grab)
    near = Edge::kLeft;
  else if (beside_scene && m.x <= right_edge && m.x >= right_edge - grab)
    near = Edge::kRight;
  else if (m.x > layout_.left && m.x < right_edge && m.y <= bottom_edge && m.y >= bottom_edge - grab)
    near = Edge::kBottom;
  if (resizing_ == Edge::kNone && near != Edge::kNone && ImGui::IsMouseClicked(0) &&
      !ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId))
    resizing_ = near;
  const Edge shown = resizing_ != Edge::kNone ? resizing_ : near;
  if (shown != Edge::kNone)
    ImGui::SetMouseCursor(shown == Edge::kBottom ? ImGuiMouseCursor_ResizeNS : ImGuiMouseCursor_ResizeEW);
  if (resizing_ == Edge::kNone) return;
  if (!io.MouseDown[0]) {
    resizing_ = Edge::kNone;
    return;
  }
  auto points = [&](float pixels) {
    return std::clamp(static_cast<int>(std::lround(pixels / ui_scale_)), ViewerSettings::kMinPanel,
                      ViewerSettings::kMaxPanel);
  };
  if (resizing_ == Edge::kLeft) settings_.left_panel = points(m.x);
  if (resizing_ == Edge::kRight) settings_.right_panel = points(static_cast<float>(w) - m.x);
  if (resizing_ == Edge::kBottom) settings_.bottom_panel = points(static_cast<float>(h) - m.y);
  compute_layout();
}

void App::compute_layout() {
  int w = 0, h = 0;
  window_->size(w, h);
  // The panels as the user sized them, shrunk where the window is too small to leave the 3D view its minimum.
  layout_.left = static_cast<float>(settings_.left_panel) * ui_scale_;
  layout_.right = static_cast<float>(settings_.right_panel) * ui_scale_;
  layout_.bottom = static_cast<float>(settings_.bottom_panel) * ui_scale_;
  layout_.menu = ImGui::GetFrameHeight();
  const float min_scene = ViewerSettings::kMinScene * ui_scale_;
  if (layout_.left + layout_.right + min_scene > static_cast<float>(w)) {
    const float k = std::max(0.f, static_cast<float>(w) - min_scene) / (layout_.left + layout_.right);
    layout_.left *= k, layout_.right *= k;
  }
  layout_.bottom = std::min(layout_.bottom, std::max(0.f, static_cast<float>(h) - layout_.menu - min_scene));
  layout_.scene_x = layout_.left;
  layout_.scene_y = layout_.menu;
  layout_.scene_w = std::max(16.f, static_cast<float>(w) - layout_.left - layout_.right);
  if (retarget_) layout_.scene_w = std::max(16.f, layout_.scene_w / 2);  // the target in the other half
  layout_.scene_h = std::max(16.f, static_cast<float>(h) - layout_.bottom - layout_.menu);
}

bool App::project(Vec3 world, ImVec2& out) const {
  const Mat4& m = view_proj_;
  const float x = m.m[0] * world.x + m.m[4] * world.y + m.m[8] * world.z + m.m[12];
  const float y = m.m[1] * world.x + m.m[5] * world.y + m.m[9] * world.z + m.m[13];
  const float w = m.m[3] * world.x + m.m[7] * world.y + m.m[11] * world.z + m.m[15];
  if (w <= 1e-6f) return false;
  out = ImVec2(layout_.scene_x + (x / w * 0.5f + 0.5f) * layout_.scene_w,
               layout_.scene_y + (0.5f - y / w * 0.5f) * layout_.scene_h);
  return true;
}

void App::render_scene() {
  int fb_w = 0, fb_h = 0, win_w = 0, win_h = 0;
  window_->framebuffer_size(fb_w, fb_h);
  window_->size(win_w, win_h);
  const float scale = win_w > 0 ? static_cast<float>(fb_w) / static_cast<float>(win_w) : 1;
  window_->clear();
  if (!doc_) return;
  const auto start = Clock::now();
  frame_.width = std::max(1, static_cast<int>(layout_.scene_w * scale));
  frame_.height = std::max(1, static_cast<int>(layout_.scene_h * scale));
  frame_.camera = camera_.camera();
  frame_.lighting = lighting_;
  frame_.grid = grid_;
  view_proj_ = detail::view_projection(frame_, detail::DepthRange::kMinusOneToOne);
  CharacterRenderer& r = *doc_->renderer;
  const Playback& p = *doc_->playback;
  r.begin_frame(frame_);
  const Mat4 world = p.world();
  if (skinning_ == 2 && !graph_ && prepare_bake()) {  // a graph's pose is no baked clip: palette skinning
    BakedInstance self;
    self.world = world;
    self.clip = std::max(p.clip(), 0);
    self.time = p.time();
    self.speed = 0;
    r.draw_baked({&self, 1}, 0);
  } else if (skinning_ == 1) {
    r.draw_cpu(world, shown_model(), p.animator().morph_weights());
  } else {
    r.draw_palette(world, shown_model(), p.animator().morph_weights());
  }
  if (crowd_count_ > 0 && prepare_bake()) {
    const CharacterAsset& animated = p.animated_asset();
    const float spacing = std::max(doc_->hi.x - doc_->lo.x, doc_->hi.z - doc_->lo.z) * 1.5f + 1e-3f;
    if (static_cast<int>(doc_->crowd.size()) != crowd_count_)
      doc_->crowd = crowd_grid(animated, crowd_count_, spacing);
    std::vector<BakedInstance> placed = doc_->crowd;
    for (BakedInstance& b : placed) b.world = translation_matrix({0, 0, -spacing}) * b.world;
    r.draw_baked(placed, doc_->crowd_time);
  }
  // The ground the feet are planted on (slope and step): a lattice around the character, depth-tested (the
  // legs in front of it hide it).
  if (p.foot_placement() && p.ground() == Playback::Ground::kSlopeAndStep) {
    const Vec3 c = world.translation();
    const float extent = std::max(doc_->hi.y - doc_->lo.y, 1e-3f) * 1.2f;
    const int lines = 13, pieces = 48;
    std::vector<Vec3> segments;
    segments.reserve(2 * lines * pieces * 2);
    for (int axis = 0; axis < 2; ++axis)
      for (int i = 0; i < lines; ++i) {
        const float across = -extent + 2 * extent * static_cast<float>(i) / (lines - 1);
        for (int k = 0; k < pieces; ++k)
          for (int end = 0; end < 2; ++end) {
            const float along = -extent + 2 * extent * static_cast<float>(k + end) / pieces;
            const float x = c.x + (axis == 0 ? across : along), z = c.z + (axis == 0 ? along : across);
            segments.push_back({x, p.ground_height(x, z), z});
          }
      }
    r.draw_world_lines(segments, {0.43f, 0.67f, 0.43f});
  }
  // The frame's top row: its bottom one is where the scene's bottom edge falls (the same pixels on every
  // platform, however the edges round).
  const int top = static_cast<int>((layout_.scene_y + layout_.scene_h) * scale) - frame_.height;
  window_->present(r, static_cast<int>(layout_.scene_x * scale), top, frame_.height);
  if (retarget_ &&
      retarget_->session.pose(graph_ ? graph_->instance().locals() : p.locals(), retarget_->model)) {
    CharacterRenderer& target = *retarget_->renderer;
    target.begin_frame(frame_);
    target.draw_palette(world, retarget_->model);
    window_->present(target, static_cast<int>((layout_.scene_x + layout_.scene_w) * scale), top,
                     frame_.height);
  }
  scene_ms_.add(ms_since(start));
}

void App::scene_input() {
  if (resizing_ != Edge::kNone) return;  // a panel's edge is being dragged
  if (!doc_) return;
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 mouse = io.MousePos;
  const bool inside = mouse.x >= layout_.scene_x && mouse.x < layout_.scene_x + layout_.scene_w &&
                      mouse.y >= layout_.scene_y && mouse.y < layout_.scene_y + layout_.scene_h;
  const bool over_ui = io.WantCaptureMouse;
  // Joint under the pointer (within 8 points), for the tooltip and picking.
  hovered_joint_ = -1;
  if (inside && !over_ui && skeleton_) {
    float best = 64 * ui_scale_ * ui_scale_;
    const auto model = shown_model();
    for (int j = 0; j < static_cast<int>(model.size()); ++j) {
      ImVec2 s;
      if (!project(transform_point(doc_->playback->world(), model[j].translation()), s)) continue;
      const float d = (s.x - mouse.x) * (s.x - mouse.x) + (s.y - mouse.y) * (s.y - mouse.y);
      if (d < best) best = d, hovered_joint_ = j;
    }
  }
  if (inside && !over_ui) {
    if (io.MouseWheel != 0) camera_.zoom(io.MouseWheel);
    if (ImGui::IsMouseClicked(0) || ImGui::IsMouseClicked(1) || ImGui::IsMouseClicked(2)) {
      scene_dragging_ = true;
      scene_press_ = scene_last_ = mouse;
    }
  }
  if (scene_dragging_) {
    // Travel since the press, not io.MouseDelta: at a low frame rate the pointer's way to where it was
    // pressed arrives in the same poll as the press, and would swing the camera on a plain click.
    const ImVec2 d(mouse.x - scene_last_.x, mouse.y - scene_last_.y);
    scene_last_ = mouse;
    if (io.MouseDown[0] && !io.KeyShift)
      camera_.orbit(d.x, d.y);
    else if (io.MouseDown[2] || io.MouseDown[1] || (io.MouseDown[0] && io.KeyShift))
      camera_.pan(d.x, d.y, layout_.scene_h);
    if (ImGui::IsMouseReleased(0)) {
      // A click (no drag) picks the joint under the pointer.
      const float moved = std::abs(mouse.x - scene_press_.x) + std::abs(mouse.y - scene_press_.y);
      if (moved < 3 && hovered_joint_ >= 0) selected_joint_ = reveal_joint_ = hovered_joint_;
    }
    if (!io.MouseDown[0] && !io.MouseDown[1] && !io.MouseDown[2]) scene_dragging_ = false;
  }
}

void App::draw_scene_overlay() {
  if (!doc_) return;
  ImDrawList* draw = ImGui::GetBackgroundDrawList();
  draw->PushClipRect(ImVec2(layout_.scene_x, layout_.scene_y),
                     ImVec2(layout_.scene_x + layout_.scene_w, layout_.scene_y + layout_.scene_h));
  const Playback& p = *doc_->playback;
  // The travelled path on the ground (root motion).
  if (p.root_motion() && p.path().size() > 1) {
    ImVec2 previous;
    bool have_previous = false;
    for (const Vec3& at : p.path()) {
      ImVec2 s;
      const bool visible = project(at, s);
      if (visible && have_previous) draw->AddLine(previous, s, IM_COL32(80, 200, 255, 255), 2 * ui_scale_);
      previous = s;
      have_previous = visible;
    }
  }
  if (skeleton_) {
    const auto model = shown_model();
    const auto parents = p.animated_asset().skeleton.parents();
    const std::vector<float> selected =
        selected_joint_ >= 0 ? Playback::subtree_mask(p.animated_asset().skeleton, selected_joint_)
                             : std::vector<float>(model.size(), 0.f);
    for (int j = 0; j < static_cast<int>(model.size()); ++j) {
      ImVec2 a, b;
      if (!project(transform_point(p.world(), model[j].translation()), a)) continue;
      const ImU32 color = selected[j] > 0 ? IM_COL32(255, 170, 40, 255) : IM_COL32(235, 235, 120, 255);
      if (parents[j] >= 0 && project(transform_point(p.world(), model[parents[j]].translation()), b))
        draw->AddLine(a, b, color, 2 * ui_scale_);
      draw->AddCircleFilled(a, (j == selected_joint_ ? 5.f : 3.f) * ui_scale_,
                            j == selected_joint_ ? IM_COL32(255, 90, 40, 255) : color);
    }
    if (hovered_joint_ >= 0)
      ImGui::SetTooltip("%s", p.animated_asset().skeleton.name(hovered_joint_).c_str());
  }
  // Onion skin and motion trail: poses of the clip sampled at other times (the playhead does not move).
  const CharacterAsset& animated = p.animated_asset();
  const Clip* clip = p.current_clip();
  if ((onion_ || (trail_ && selected_joint_ >= 0)) && clip && !graph_ && !p.blend_space_on()) {
    const float frame = 1 / (clip->frame_rate() > 0 ? clip->frame_rate() : 30.f);
    const auto parents = animated.skeleton.parents();
    auto draw_pose = [&](ImU32 color) {
      for (int j = 0; j < static_cast<int>(ghost_model_.size()); ++j) {
        ImVec2 a, b;
        if (parents[j] >= 0 && project(transform_point(p.world(), ghost_model_[j].translation()), a) &&
            project(transform_point(p.world(), ghost_model_[parents[j]].translation()), b))
          draw->AddLine(a, b, color, 1.5f * ui_scale_);
      }
    };
    if (onion_)
      for (int k : {-6, -3, 3, 6}) {
        const float t = p.time() + static_cast<float>(k) * frame;
        if (t < 0 || t > clip->duration()) continue;
        if (!Playback::pose_at(animated, p.clip(), t, ghost_cache_, ghost_locals_, ghost_model_)) break;
        const int alpha = std::abs(k) == 3 ? 170 : 90;
        draw_pose(k < 0 ? IM_COL32(110, 160, 255, alpha) : IM_COL32(110, 230, 140, alpha));
      }
    if (trail_ && selected_joint_ >= 0 && selected_joint_ < animated.skeleton.joint_count()) {
      // The joint's path in model space, sampled once per clip and joint (not every frame).
      const auto key = std::make_tuple(&animated, p.clip(), selected_joint_);
      if (key != trail_for_) {
        trail_points_.clear();
        const int steps = std::min(static_cast<int>(clip->duration() / frame) + 1, 2000);
        for (int i = 0; i <= steps; ++i) {
          const float t = std::min(static_cast<float>(i) * frame, clip->duration());
          if (!Playback::pose_at(animated, p.clip(), t, ghost_cache_, ghost_locals_, ghost_model_)) break;
          trail_points_.push_back(ghost_model_[selected_joint_].translation());
        }
        trail_for_ = key;
      }
      ImVec2 previous;
      bool have_previous = false;
      for (const Vec3& position : trail_points_) {
        ImVec2 at;
        const bool visible = project(transform_point(p.world(), position), at);
        if (visible && have_previous)
          draw->AddLine(previous, at, IM_COL32(255, 150, 60, 220), 1.5f * ui_scale_);
        if (visible) draw->AddCircleFilled(at, 1.5f * ui_scale_, IM_COL32(255, 150, 60, 220));
        previous = at;
        have_previous = visible;
      }
    }
  }
  if (joint_axes_ || joint_names_) {
    const auto model = shown_model();
    const Skeleton& skeleton = p.animated_asset().skeleton;
    const float axis = std::max(doc_->hi.y - doc_->lo.y, 1e-3f) * 0.04f;
    for (int j = 0; j < static_cast<int>(model.size()); ++j) {
      const Mat4 joint = p.world() * model[j];
      ImVec2 at;
      if (!project(joint.translation(), at)) continue;
      if (joint_axes_) {  // x red, y green, z blue, each 4 % of the character's height
        const ImU32 colors[3] = {IM_COL32(255, 80, 70, 255), IM_COL32(80, 230, 80, 255),
                                 IM_COL32(90, 140, 255, 255)};
        for (int k = 0; k < 3; ++k) {
          const Vec3 direction = normalize(Vec3{joint.at(0, k), joint.at(1, k), joint.at(2, k)});
          ImVec2 tip;
          if (project(joint.translation() + direction * axis, tip))
            draw->AddLine(at, tip, colors[k], 1.5f * ui_scale_);
        }
      }
      if (joint_names_)
        draw->AddText(ImVec2(at.x + 4 * ui_scale_, at.y - 6 * ui_scale_),
                      j == selected_joint_ ? IM_COL32(255, 170, 60, 255) : IM_COL32(230, 230, 230, 220),
                      skeleton.name(j).c_str());
    }
  }
  draw->PopClipRect();
  if (!doc_->baked_error.empty() && (skinning_ == 2 || crowd_count_ > 0))
    draw->AddText(ImVec2(layout_.scene_x + 8, layout_.scene_y + 8), IM_COL32(255, 120, 100, 255),
                  ("baked path unavailable: " + doc_->baked_error).c_str());
}

// ------------------------------------------------------------------------------------------------ panels

void App::draw_menu() {
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open...", "Ctrl+O")) show_open_ = true;
    if (ImGui::BeginMenu("Recent", !settings_.recent_files.empty())) {
      for (const std::string& recent : settings_.recent_files)
        if (ImGui::MenuItem(recent.c_str())) pending_drops_.push_back(recent);
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Save notifies", "Ctrl+S", false, doc_ != nullptr)) save_notifies("");
    if (ImGui::MenuItem("Export glTF...", nullptr, false, doc_ != nullptr)) {
      // Beside the model, named after it; a name that is an input gets ".export" (write_gltf refuses inputs).
      std::filesystem::path out = std::filesystem::path(doc_->path).replace_extension(".glb");
      for (const std::string& input : doc_->character->source_files)
        if (same_file(out.string(), input))
          out = std::filesystem::path(doc_->path).replace_extension(".export.glb");
      export_path_ = out.string();
      show_export_ = true;
    }
    if (ImGui::MenuItem("Export view as GIF or PNGs...", nullptr, false, doc_ != nullptr)) {
      export_view_path_ = utf8_from_path(path_from_utf8(doc_->path).replace_extension(".gif"));
      show_export_view_ = true;
    }
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) request_quit();
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Edit")) {
    if (ImGui::MenuItem("Undo", "Ctrl+Z", false, doc_ && doc_->notifies.can_undo())) {
      doc_->notifies.undo();
      edited("");
    }
    if (ImGui::MenuItem("Redo", "Ctrl+Y", false, doc_ && doc_->notifies.can_redo())) {
      doc_->notifies.redo();
      edited("");
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    ImGui::MenuItem("Grid", "G", &grid_);
    ImGui::MenuItem("Skeleton", "K", &skeleton_);
    ImGui::MenuItem("Joint names", nullptr, &joint_names_);
    ImGui::MenuItem("Joint axes", nullptr, &joint_axes_);
    ImGui::MenuItem("Bind pose", nullptr, &bind_pose_);
    ImGui::MenuItem("Onion skin", nullptr, &onion_);
    ImGui::MenuItem("Motion trail (selected joint)", nullptr, &trail_);
    if (ImGui::MenuItem("Frame character", "F") && doc_)
      camera_.refit(doc_->lo, doc_->hi, layout_.scene_w / layout_.scene_h);
    ImGui::Separator();
    if (ImGui::MenuItem("Front")) camera_.look_from(OrbitCamera::View::kFront);
    if (ImGui::MenuItem("Side")) camera_.look_from(OrbitCamera::View::kSide);
    if (ImGui::MenuItem("Top")) camera_.look_from(OrbitCamera::View::kTop);
    ImGui::MenuItem("Follow the character", nullptr, &follow_);
    ImGui::Separator();
    float font = static_cast<float>(settings_.font_scale);
    ImGui::SetNextItemWidth(120 * ui_scale_);
    if (ImGui::SliderFloat("text size", &font, static_cast<float>(ViewerSettings::kMinFontScale),
                           static_cast<float>(ViewerSettings::kMaxFontScale), "%.2fx"))
      settings_.font_scale = font;
    if (ImGui::MenuItem("Reset panel sizes")) {
      const ViewerSettings defaults;
      settings_.left_panel = defaults.left_panel, settings_.right_panel = defaults.right_panel;
      settings_.bottom_panel = defaults.bottom_panel, settings_.font_scale = defaults.font_scale;
    }
    ImGui::EndMenu();
  }
  if (doc_) {
    ImGui::TextDisabled("  %s%s", display_name(doc_->path).c_str(),
                        doc_->notifies.dirty() ? "  (notifies edited)" : "");
  }
  ImGui::EndMainMenuBar();
}

void App::draw_left_panel() {
  const ImGuiWindowFlags fixed =
      ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse;
  int win_w = 0, win_h = 0;
  window_->size(win_w, win_h);
  ImGui::SetNextWindowPos(ImVec2(0, layout_.menu));
  ImGui::SetNextWindowSize(ImVec2(layout_.left, static_cast<float>(win_h) - layout_.menu - layout_.bottom));
  ImGui::Begin("Playback", nullptr, fixed);
  if (!doc_) {
    ImGui::TextWrapped(
        "Drop a model file (.fbx .glb .gltf .dae) or a .ossa on the window, or use File > Open.");
    ImGui::End();
    return;
  }
  Playback& p = *doc_->playback;
  const CharacterAsset& asset = doc_->character->asset;
  if (ImGui::BeginTable("clips", 4,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV,
                        ImVec2(0, ImGui::GetTextLineHeightWithSpacing() *
                                          static_cast<float>(std::min<size_t>(asset.clips.size(), 8) + 1) +
                                      4 * ui_scale_))) {
    ImGui::TableSetupColumn("clip", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("s", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("fps", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("layout", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableHeadersRow();
    for (int c = 0; c < static_cast<int>(asset.clips.size()); ++c) {
      const Clip& clip = asset.clips[c];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(c);
      if (ImGui::Selectable(clip.name().c_str(), c == p.clip(), ImGuiSelectableFlags_SpanAllColumns))
        select_clip(c);
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", clip.duration());
      ImGui::TableNextColumn();
      if (clip.frame_rate() > 0)
        ImGui::Text("%.0f", clip.frame_rate());
      else
        ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      const char* layouts[] = {"fixed", "keyed", "compressed"};
      ImGui::TextUnformatted(layouts[static_cast<int>(clip.layout())]);
    }
    ImGui::EndTable();
  }
  const Clip* clip = p.current_clip();
  if (clip) {
    const float rate = clip->frame_rate() > 0 ? clip->frame_rate() : 30;
    ImGui::Text("t %.3f / %.3f s", p.time(), clip->duration());
    ImGui::SameLine();
    // Type a frame to go there (Enter); the field shows the playhead's frame otherwise.
    int frame = static_cast<int>(std::floor(p.time() * rate + 0.5f));
    ImGui::SetNextItemWidth(90 * ui_scale_);
    if (ImGui::InputInt("frame", &frame, 1, 10, ImGuiInputTextFlags_EnterReturnsTrue)) go_to_frame(frame);
  }
  if (ImGui::Button(p.paused() ? "Play" : "Pause", ImVec2(70 * ui_scale_, 0))) p.set_paused(!p.paused());
  ImGui::SameLine();
  if (ImGui::Button("<|")) p.step_frames(-1);
  ImGui::SameLine();
  if (ImGui::Button("|>")) p.step_frames(1);
  ImGui::SameLine();
  if (ImGui::Button("|<<")) p.seek(0);
  float speed = p.speed();
  if (ImGui::SliderFloat("speed", &speed, -2, 2, "%.2fx")) p.set_speed(speed);
  for (float preset : {0.25f, 0.5f, 1.f, 2.f}) {  // 1x is also the reset
    char label[16];
    std::snprintf(label, sizeof label, "%gx", preset);
    if (ImGui::SmallButton(label)) p.set_speed(preset);
    ImGui::SameLine();
  }
  if (ImGui::SmallButton("-1x")) p.set_speed(-1);
  // The loop range: in and out at the playhead (snapped to frames), played over and over.
  if (ImGui::SmallButton("in")) set_loop_in_out(on_frame(p.time()), p.has_loop_range() ? p.loop_out() : -1);
  ImGui::SameLine();
  if (ImGui::SmallButton("out")) set_loop_in_out(p.has_loop_range() ? p.loop_in() : 0, on_frame(p.time()));
  ImGui::SameLine();
  if (p.has_loop_range()) {
    ImGui::Text("loop %.3f-%.3f s", p.loop_in(), p.loop_out());
    ImGui::SameLine();
    if (ImGui::SmallButton("x")) p.clear_loop_range();
  } else {
    ImGui::TextDisabled("loop range: none");
  }
  int loop = static_cast<int>(p.loop_mode());
  if (ImGui::Combo("loop", &loop, kLoopNames, 3)) p.set_loop_mode(static_cast<LoopMode>(loop));

  section("Crossfade");
  crossfade_target_ = std::clamp(crossfade_target_, 0, std::max(0, static_cast<int>(asset.clips.size()) - 1));
  if (ImGui::BeginCombo("to", asset.clips.empty() ? "" : asset.clips[crossfade_target_].name().c_str())) {
    for (int c = 0; c < static_cast<int>(asset.clips.size()); ++c)
      if (ImGui::Selectable(asset.clips[c].name().c_str(), c == crossfade_target_)) crossfade_target_ = c;
    ImGui::EndCombo();
  }
  ImGui::SliderFloat("seconds", &crossfade_duration_, 0, 2, "%.2f");
  ImGui::Checkbox("sync", &crossfade_sync_);
  ImGui::SameLine();
  if (ImGui::Button("Crossfade")) p.crossfade(crossfade_target_, crossfade_duration_, crossfade_sync_);

  section("Root motion");
  bool root = p.root_motion();
  if (ImGui::Checkbox("travel (root motion)", &root)) {
    const std::string refusal = p.set_root_motion(root);
    if (!refusal.empty()) error_ = refusal;
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("reset")) p.reset_travel();

  section("Override layer");
  bool layer = layer_on_;
  if (ImGui::Checkbox("on", &layer)) {
    layer_on_ = layer;
    if (!layer_on_)
      p.set_layer(-1, 0, -1);
    else
      p.set_layer(layer_clip_, layer_weight_, selected_joint_);
  }
  layer_clip_ = std::clamp(layer_clip_, 0, std::max(0, static_cast<int>(asset.clips.size()) - 1));
  bool changed = false;
  if (ImGui::BeginCombo("clip", asset.clips.empty() ? "" : asset.clips[layer_clip_].name().c_str())) {
    for (int c = 0; c < static_cast<int>(asset.clips.size()); ++c)
      if (ImGui::Selectable(asset.clips[c].name().c_str(), c == layer_clip_)) layer_clip_ = c, changed = true;
    ImGui::EndCombo();
  }
  changed |= ImGui::SliderFloat("weight", &layer_weight_, 0, 1);
  ImGui::TextWrapped("mask: %s",
                     p.layer_joint() >= 0 ? asset.skeleton.name(p.layer_joint()).c_str() : "every joint");
  if (ImGui::Button("Mask from selected joint")) changed = true;
  if (changed && layer_on_) p.set_layer(layer_clip_, layer_weight_, selected_joint_);

  draw_blend_space();
  draw_foot_placement();

  section("Display");
  int lighting = static_cast<int>(lighting_);
  if (ImGui::Combo("lighting", &lighting, kLightingNames, 5)) lighting_ = static_cast<LightingMode>(lighting);
  ImGui::Combo("skinning", &skinning_, "GPU palette\0CPU\0baked\0");
  ImGui::Checkbox("grid", &grid_);
  ImGui::SameLine();
  ImGui::Checkbox("skeleton", &skeleton_);
  // Logarithmic: one character at a time near 1, hundreds near the top (Ctrl+click types a number).
  ImGui::SliderInt("crowd", &crowd_count_, 0, kMaxCrowd, "%d", ImGuiSliderFlags_Logarithmic);
  ImGui::End();
}

std::string App::apply_blend_space() {
  std::vector<int> clips;
  std::vector<BlendPoint> points;
  for (size_t c = 0; c < doc_->blend_rows.size(); ++c) {
    const Document::BlendRow& row = doc_->blend_rows[c];
    if (!row.use) continue;
    clips.push_back(static_cast<int>(c));
    points.push_back({row.x, doc_->blend_dimensions == 2 ? row.y : 0.f});
  }
  if (clips.empty()) return "blend space: tick the clips to blend";
  std::vector<std::string> markers;
  for (size_t begin = 0; begin < doc_->blend_markers.size();) {
    const size_t comma = std::min(doc_->blend_markers.find(',', begin), doc_->blend_markers.size());
    if (comma > begin) markers.push_back(doc_->blend_markers.substr(begin, comma - begin));
    begin = comma + 1;
  }
  return doc_->playback->set_blend_space(std::move(clips), std::move(points), doc_->blend_dimensions,
                                         std::move(markers));
}

// The blend space: clips ticked as samples at (x, y), sync markers, and a pad that drives the parameter
// (drag in it); each sample's dot grows with its weight.
void App::draw_blend_space() {
  Playback& p = *doc_->playback;
  const CharacterAsset& asset = doc_->character->asset;
  section("Blend space");
  bool on = p.blend_space_on();
  bool changed = false;
  if (ImGui::Checkbox("drive the pose", &on)) {
    if (on) {
      if (std::string refusal = apply_blend_space(); !refusal.empty()) error_ = refusal;
    } else {
      p.set_blend_space({}, {}, 1);
    }
  }
  ImGui::SameLine();
  changed |= ImGui::RadioButton("1D", &doc_->blend_dimensions, 1);
  ImGui::SameLine();
  changed |= ImGui::RadioButton("2D", &doc_->blend_dimensions, 2);
  if (ImGui::BeginTable("blend", doc_->blend_dimensions == 2 ? 3 : 2, ImGuiTableFlags_ScrollY,
                        ImVec2(0, ImGui::GetFrameHeightWithSpacing() *
                                          static_cast<float>(std::min<size_t>(asset.clips.size(), 4)) +
                                      2 * ui_scale_))) {
    ImGui::TableSetupColumn("clip", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("x", ImGuiTableColumnFlags_WidthFixed, 60 * ui_scale_);
    if (doc_->blend_dimensions == 2)
      ImGui::TableSetupColumn("y", ImGuiTableColumnFlags_WidthFixed, 60 * ui_scale_);
    for (size_t c = 0; c < doc_->blend_rows.size(); ++c) {
      Document::BlendRow& row = doc_->blend_rows[c];
      ImGui::PushID(static_cast<int>(c));
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      changed |= ImGui::Checkbox(asset.clips[c].name().c_str(), &row.use);
      ImGui::TableNextColumn();
      ImGui::SetNextItemWidth(-FLT_MIN);
      changed |= ImGui::DragFloat("##x", &row.x, 0.05f, -1e6f, 1e6f, "%.2f");
      if (doc_->blend_dimensions == 2) {
        ImGui::TableNextColumn();
        ImGui::SetNextItemWidth(-FLT_MIN);
        changed |= ImGui::DragFloat("##y", &row.y, 0.05f, -1e6f, 1e6f, "%.2f");
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  char markers[128];
  std::snprintf(markers, sizeof markers, "%s", doc_->blend_markers.c_str());
  if (ImGui::InputText("sync markers", markers, sizeof markers)) {
    doc_->blend_markers = markers;
    changed = true;
  }
  if (changed && p.blend_space_on()) {
    if (std::string refusal = apply_blend_space(); !refusal.empty())
      error_ = refusal, p.set_blend_space({}, {}, 1);
  }
  const BlendSpace* space = p.blend_space();
  if (!space) return;

  // The pad: sample points mapped into a square (2D) or a strip (1D) with a margin; y up.
  const float width = ImGui::GetContentRegionAvail().x;
  const ImVec2 size(width, space->dimensions() == 2 ? std::min(width, 180 * ui_scale_) : 36 * ui_scale_);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("pad", size);
  BlendPoint lo = space->sample_point(0), hi = lo;
  for (int i = 1; i < space->sample_count(); ++i) {
    const BlendPoint q = space->sample_point(i);
    lo = {std::min(lo.x, q.x), std::min(lo.y, q.y)}, hi = {std::max(hi.x, q.x), std::max(hi.y, q.y)};
  }
  const float margin_x = std::max(hi.x - lo.x, 1e-3f) * 0.1f, margin_y = std::max(hi.y - lo.y, 1e-3f) * 0.1f;
  lo = {lo.x - margin_x, lo.y - margin_y}, hi = {hi.x + margin_x, hi.y + margin_y};
  auto to_screen = [&](BlendPoint q) {
    const float y = space->dimensions() == 2 ? (q.y - lo.y) / (hi.y - lo.y) : 0.5f;
    return ImVec2(origin.x + (q.x - lo.x) / (hi.x - lo.x) * size.x, origin.y + (1 - y) * size.y);
  };
  if (ImGui::IsItemActive()) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    p.set_blend_parameter(lo.x + std::clamp((m.x - origin.x) / size.x, 0.f, 1.f) * (hi.x - lo.x),
                          lo.y + std::clamp(1 - (m.y - origin.y) / size.y, 0.f, 1.f) * (hi.y - lo.y));
  }
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(30, 32, 38, 255));
  draw->AddRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(90, 90, 100, 255));
  const std::span<const float> weights = p.blend_weights();
  const std::span<const int> clips = p.blend_clips();
  for (int i = 0; i < space->sample_count(); ++i) {
    const ImVec2 at = to_screen(space->sample_point(i));
    const float w = i < static_cast<int>(weights.size()) ? weights[i] : 0.f;
    draw->AddCircleFilled(at, (3 + 6 * w) * ui_scale_,
                          i == p.blend_leader() ? IM_COL32(255, 170, 40, 255) : IM_COL32(200, 200, 210, 255));
    const std::string& name = asset.clips[clips[i]].name();
    const size_t bar = name.rfind('|');
    draw->AddText(ImVec2(at.x + 6 * ui_scale_, at.y - 14 * ui_scale_), IM_COL32(200, 200, 210, 255),
                  (bar == std::string::npos ? name : name.substr(bar + 1)).c_str());
  }
  const ImVec2 at = to_screen(p.blend_parameter());
  draw->AddLine(ImVec2(at.x - 6 * ui_scale_, at.y), ImVec2(at.x + 6 * ui_scale_, at.y),
                IM_COL32(80, 200, 255, 255), 2 * ui_scale_);
  draw->AddLine(ImVec2(at.x, at.y - 6 * ui_scale_), ImVec2(at.x, at.y + 6 * ui_scale_),
                IM_COL32(80, 200, 255, 255), 2 * ui_scale_);
  const BlendPoint q = p.blend_parameter();
  if (space->dimensions() == 2)
    ImGui::Text("parameter %.2f, %.2f", q.x, q.y);
  else
    ImGui::Text("parameter %.2f", q.x);
}

// Foot placement: the feet planted on flat ground or on the example's slope and step (drawn in the scene).
void App::draw_foot_placement() {
  Playback& p = *doc_->playback;
  section("Foot IK");
  bool on = p.foot_placement();
  bool changed = ImGui::Checkbox("plant feet", &on);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-FLT_MIN);
  changed |= ImGui::Combo("##ground", &ground_, "flat ground\0slope and step\0");
  if (changed) {
    const std::string refusal = p.set_foot_placement(on, static_cast<Playback::Ground>(ground_));
    if (!refusal.empty()) error_ = refusal;
  }
  if (p.foot_placement())
    ImGui::TextDisabled("%zu legs, pelvis %s", p.legs().size(),
                        p.pelvis() >= 0 ? p.animated_asset().skeleton.name(p.pelvis()).c_str() : "none");
}

// Morph targets per mesh: each weight as the clip drives it, and an override slider (the expression layer).
void App::draw_morphs() {
  Playback& p = *doc_->playback;
  const CharacterAsset& asset = doc_->character->asset;
  bool any = false;
  for (int m = 0; m < static_cast<int>(asset.meshes.size()); ++m) {
    const MorphTargets& targets = asset.meshes[m].morph_targets();
    if (targets.empty()) continue;
    any = true;
    ImGui::PushID(m);
    ImGui::TextUnformatted(asset.meshes[m].name().c_str());
    const std::span<const float> weights = p.morph_weights(m);
    for (int t = 0; t < targets.count(); ++t) {
      ImGui::PushID(t);
      const float current = t < static_cast<int>(weights.size()) ? weights[t] : 0.f;
      float value = p.morph_override(m, t);
      bool overridden = !std::isnan(value);
      if (ImGui::Checkbox("##override", &overridden))
        p.set_morph_override(m, t, overridden ? current : std::numeric_limits<float>::quiet_NaN());
      ImGui::SameLine();
      ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
      if (overridden) {
        if (ImGui::SliderFloat("##weight", &value, 0, 1, "%.3f")) p.set_morph_override(m, t, value);
      } else {
        ImGui::ProgressBar(std::clamp(current, 0.f, 1.f), ImVec2(ImGui::GetContentRegionAvail().x * 0.55f, 0),
                           std::to_string(current).substr(0, 5).c_str());
      }
      ImGui::SameLine();
      ImGui::TextUnformatted(targets.names()[t].c_str());
      ImGui::PopID();
    }
    ImGui::PopID();
  }
  if (!any) ImGui::TextDisabled("No morph targets.");
}

void App::draw_joint_tree() {
  const Skeleton& skeleton = doc_->playback->animated_asset().skeleton;
  const int joints = skeleton.joint_count();
  const auto parents = skeleton.parents();
  ImGui::BeginChild("joints", ImVec2(0, 220 * ui_scale_), true);
  const int reveal = reveal_joint_ >= 0 && reveal_joint_ < joints ? reveal_joint_ : -1;
  reveal_joint_ = -1;
  for (int p = reveal >= 0 ? parents[reveal] : -1; p >= 0; p = parents[p]) doc_->expanded[p] = 1;
  // A flat list indented by depth (no recursion: a hostile skeleton may be a chain of 65,535 joints), of the
  // joints not inside a collapsed node, drawn only where visible.
  visible_joints_.clear();
  int hidden_below = INT32_MAX;  // joints deeper than this are inside a collapsed node
  for (int j = 0; j < joints; ++j) {
    const int depth = doc_->depth[j];
    if (depth > hidden_below) continue;
    hidden_below = INT32_MAX;
    visible_joints_.push_back(j);
    if (!doc_->expanded[j]) hidden_below = depth;
  }
  if (reveal >= 0) {  // scrolled to the middle of the list (seen from the next frame)
    const auto row =
        std::find(visible_joints_.begin(), visible_joints_.end(), reveal) - visible_joints_.begin();
    ImGui::SetScrollY(std::max(0.f, static_cast<float>(row) * ImGui::GetTextLineHeightWithSpacing() -
                                        ImGui::GetWindowHeight() * 0.5f));
  }
  joints_shown_.clear();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(visible_joints_.size()));
  while (clipper.Step()) {
    for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
      const int j = visible_joints_[row];
      const bool has_children = j + 1 < joints && parents[j + 1] == j;
      ImGui::PushID(j);
      ImGui::SetCursorPosX(ImGui::GetCursorPosX() +
                           static_cast<float>(std::min(doc_->depth[j], 40)) * 10 * ui_scale_);
      if (has_children) {
        if (ImGui::SmallButton(doc_->expanded[j] ? "-" : "+")) doc_->expanded[j] = !doc_->expanded[j];
        ImGui::SameLine();
      }
      if (ImGui::Selectable(skeleton.name(j).c_str(), j == selected_joint_)) selected_joint_ = j;
      if (ImGui::IsItemVisible()) joints_shown_.push_back(j);
      ImGui::PopID();
    }
  }
  ImGui::EndChild();
  if (selected_joint_ >= 0 && selected_joint_ < joints) {
    const JointPose& local = doc_->playback->locals()[selected_joint_];
    const Transform model = decompose(doc_->playback->model()[selected_joint_]);
    ImGui::Text("%s", skeleton.name(selected_joint_).c_str());
    ImGui::Text("local  t %.4f %.4f %.4f", local.translation[0], local.translation[1], local.translation[2]);
    ImGui::Text("       r %.4f %.4f %.4f %.4f", local.rotation[0], local.rotation[1], local.rotation[2],
                local.rotation[3]);
    ImGui::Text("       s %.4f %.4f %.4f", local.scale[0], local.scale[1], local.scale[2]);
    ImGui::Text("model  t %.4f %.4f %.4f", model.translation.x, model.translation.y, model.translation.z);
    ImGui::Text("       r %.4f %.4f %.4f %.4f", model.rotation.x, model.rotation.y, model.rotation.z,
                model.rotation.w);
    ImGui::Text("       s %.4f %.4f %.4f", model.scale.x, model.scale.y, model.scale.z);
  }
}

void App::draw_notify_editor() {
  const int clip = doc_->playback->clip();
  NotifyDocument& notifies = doc_->notifies;
  ImGui::InputText("name", &new_notify_name_);
  remember_field("name");
  ImGui::SliderFloat("state s", &new_notify_duration_, 0, 2, new_notify_duration_ > 0 ? "%.2f" : "instant");
  if (ImGui::Button("Add at playhead (N)")) {
    uint32_t id = 0;
    const std::string refusal =
        notifies.add(clip, new_notify_name_, on_frame(doc_->playback->time()), new_notify_duration_, &id);
    if (refusal.empty()) selected_notify_ = id;
    edited(refusal);
  }
  ImGui::Separator();
  const EditableNotify* n = notifies.find(clip, selected_notify_);
  if (!n) {
    ImGui::TextDisabled("Select a notify on the timeline to edit it.");
    return;
  }
  EditableNotify edit = *n;
  const uint32_t id = edit.id;
  // A rename is made when the field is left (Enter, Tab or a click elsewhere), not only on Enter.
  if (rename_for_ != id || (!rename_active_ && rename_loaded_ != edit.name))
    rename_text_ = rename_loaded_ = edit.name, rename_for_ = id;
  ImGui::InputText("rename", &rename_text_);
  remember_field("rename");
  rename_active_ = ImGui::IsItemActive();
  if (ImGui::IsItemDeactivated() && rename_text_ != edit.name) {
    const std::string refusal = notifies.rename(clip, id, rename_text_);
    if (!refusal.empty()) rename_text_ = edit.name;  // an empty or bad name: the field shows the kept one
    edited(refusal);
  }
  // A drag of a field is one undo step, and the Animator gets the result when it ends.
  auto grouped = [&](bool changed, auto&& apply) {
    if (ImGui::IsItemActivated()) notifies.begin_group();
    if (changed) apply();
    if (ImGui::IsItemDeactivated()) {
      notifies.end_group();
      edited("");
    }
  };
  grouped(ImGui::DragFloat("time", &edit.time, 0.005f, 0, 1e7f, "%.3f s"),
          [&] { status_message_ = notifies.move(clip, id, edit.time); });
  grouped(ImGui::DragFloat("duration", &edit.duration, 0.005f, 0, 1e7f, "%.3f s"),
          [&] { status_message_ = notifies.set_duration(clip, id, edit.duration); });
  // The box follows the document (selection, undo, redo); text being typed is kept until it is applied.
  if (payload_for_ != id || payload_loaded_ != edit.payload)
    payload_text_ = payload_loaded_ = edit.payload, payload_for_ = id;
  ImGui::InputTextMultiline("payload", &payload_text_, ImVec2(-1, 70 * ui_scale_));
  remember_field("payload");
  const std::string payload_error = NotifyDocument::payload_error(payload_text_);
  if (!payload_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 110, 90, 255));
    ImGui::TextWrapped("%s", payload_error.c_str());
    ImGui::PopStyleColor();
  } else if (payload_text_ != edit.payload && ImGui::Button("Apply payload")) {
    edited(notifies.set_payload(clip, id, payload_text_));
    // The document keeps payloads canonical (compact, keys sorted: what a game receives): show that.
    if (const EditableNotify* applied = notifies.find(clip, id))
      payload_text_ = payload_loaded_ = applied->payload;
  }
  if (ImGui::Button("Delete (Del)")) {
    edited(notifies.remove(clip, id));
    selected_notify_ = 0;
  }
}

float App::on_frame(float time) const {
  const Clip* clip = doc_ ? doc_->playback->current_clip() : nullptr;
  if (!clip) return time;
  return TimelineView::snap_to_frame(time, clip->duration(),
                                     clip->frame_rate() > 0 ? clip->frame_rate() : 30.f);
}

std::span<const Mat4> App::shown_model() const {
  if (bind_pose_ && !bind_model_.empty()) return bind_model_;
  return graph_ ? graph_->instance().animator().model() : doc_->playback->model();
}

void App::open_graph(const std::string& path) {
  if (!doc_) return;
  auto graph = GraphDocument::open(path, doc_->character);
  if (!graph) {
    error_ = "cannot open the graph " + path + ":\n" + graph.error();
    return;
  }
  graph_ = std::make_unique<GraphDocument>(std::move(graph).value());
  graph_path_ = path;
  show_graph_tab_ = true;
  status_message_ = "graph " + display_name(path);
}

// Inspect > Graph: the parameters as widgets, each layer's states as a diagram (current state and blends
// lit).
void App::draw_graph() {
  if (!graph_) {
    ImGui::TextWrapped(
        "Drive the character with an animation graph (NAME.animgraph.json): states, transitions "
        "and layers the game steers with parameters.");
    ImGui::InputText("graph", &graph_path_);
    if (ImGui::Button("Open graph") && !graph_path_.empty()) open_graph(graph_path_);
    return;
  }
  AnimGraphInstance& anim = graph_->instance();
  const AnimGraph& graph = anim.graph();
  ImGui::TextWrapped("%s%s", display_name(graph_->path()).c_str(), "  (reloaded when the file changes)");
  if (!graph_->error().empty()) ImGui::TextColored(ImVec4(1, 0.5f, 0.4f, 1), "%s", graph_->error().c_str());
  if (ImGui::Button("Close graph")) {
    graph_.reset();
    return;
  }
  section("Parameters");
  for (size_t i = 0; i < graph.parameters().size(); ++i) {
    const AnimGraphParameter& param = graph.parameters()[i];
    const int handle = static_cast<int>(i);
    ImGui::PushID(handle);
    if (param.type == AnimGraphParameter::kFloat) {
      float v = anim.value(handle);
      if (ImGui::DragFloat(param.name.c_str(), &v, 0.02f, -1e6f, 1e6f, "%.2f")) anim.set_float(handle, v);
    } else if (param.type == AnimGraphParameter::kBool) {
      bool v = anim.value(handle) != 0;
      if (ImGui::Checkbox(param.name.c_str(), &v)) anim.set_bool(handle, v);
    } else {
      if (ImGui::Button(param.name.c_str())) anim.set_trigger(handle);
      ImGui::SameLine();
      ImGui::TextDisabled(anim.value(handle) != 0 ? "set" : "trigger");
    }
    ImGui::PopID();
  }
  for (int l = 0; l < static_cast<int>(graph.layers().size()); ++l) {
    const AnimGraphLayer& layer = graph.layers()[l];
    section(("Layer " + layer.name).c_str());
    ImGui::Text("%s at n=%.2f%s", layer.states[anim.current_state(l)].name.c_str(), anim.state_time(l),
                anim.blending(l) ? " (blending)" : "");
    draw_graph_diagram(l);
  }
}

// States on an ellipse, transitions as arrows ("*" ones from the centre); the current state filled, states
// fading out filled by their weight, the running transition drawn bright.
void App::draw_graph_diagram(int l) {
  const AnimGraphInstance& anim = graph_->instance();
  const AnimGraphLayer& layer = anim.graph().layers()[l];
  const int n = static_cast<int>(layer.states.size());
  const float width = ImGui::GetContentRegionAvail().x, height = std::min(220.f, 60.f + 28.f * n) * ui_scale_;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("diagram", ImVec2(std::max(width, 10.f), height));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), IM_COL32(24, 26, 32, 255), 4);
  const ImVec2 centre(origin.x + width / 2, origin.y + height / 2);
  const float rx = width / 2 - 48 * ui_scale_, ry = height / 2 - 16 * ui_scale_;
  std::vector<ImVec2> at(static_cast<size_t>(n));
  for (int s = 0; s < n; ++s) {
    const float a = n == 1 ? 0.f : 6.2831853f * static_cast<float>(s) / static_cast<float>(n) - 1.5707963f;
    at[s] =
        ImVec2(centre.x + (n == 1 ? 0.f : rx * std::cos(a)), centre.y + (n == 1 ? 0.f : ry * std::sin(a)));
  }
  const int current = anim.current_state(l);
  for (size_t t = 0; t < layer.transitions.size(); ++t) {
    const AnimGraphTransition& tr = layer.transitions[t];
    ImVec2 from = tr.from < 0 ? centre : at[tr.from], to = at[tr.to];
    {  // a pair of opposite transitions side by side: each moved to the right of its direction
      const float dx = to.x - from.x, dy = to.y - from.y, length = std::sqrt(dx * dx + dy * dy);
      if (length >= 1) {
        const float side = 4 * ui_scale_;
        from = ImVec2(from.x - dy / length * side, from.y + dx / length * side);
        to = ImVec2(to.x - dy / length * side, to.y + dx / length * side);
      }
    }
    const bool running = anim.blending(l) && tr.to == current && (tr.from < 0 || tr.from != current);
    const ImU32 colour = running ? IM_COL32(255, 200, 80, 255) : IM_COL32(110, 120, 140, 160);
    const float dx = to.x - from.x, dy = to.y - from.y, length = std::sqrt(dx * dx + dy * dy);
    if (length < 1) continue;
    const float ux = dx / length, uy = dy / length;
    const ImVec2 tip(to.x - ux * 14 * ui_scale_, to.y - uy * 14 * ui_scale_);
    draw->AddLine(from, tip, colour, running ? 2.5f : 1.2f);
    draw->AddTriangleFilled(tip, ImVec2(tip.x - ux * 8 - uy * 4, tip.y - uy * 8 + ux * 4),
                            ImVec2(tip.x - ux * 8 + uy * 4, tip.y - uy * 8 - ux * 4), colour);
  }
  for (int s = 0; s < n; ++s) {
    float weight = 0;
    for (int i = 0; i < anim.active_count(l); ++i)
      if (anim.active_state(l, i) == s) weight += anim.active_weight(l, i);
    const char* name = layer.states[s].name.c_str();
    const ImVec2 size = ImGui::CalcTextSize(name);
    const ImVec2 lo(at[s].x - size.x / 2 - 6, at[s].y - size.y / 2 - 3),
        hi(at[s].x + size.x / 2 + 6, at[s].y + size.y / 2 + 3);
    const int lit = static_cast<int>(std::clamp(weight, 0.f, 1.f) * 200);
    draw->AddRectFilled(lo, hi,
                        s == current ? IM_COL32(40 + lit / 2, 90 + lit / 2, 60 + lit, 255)
                                     : IM_COL32(45 + lit / 3, 48 + lit / 3, 56 + lit / 2, 255),
                        4);
    draw->AddRect(lo, hi, s == current ? IM_COL32(255, 200, 80, 255) : IM_COL32(120, 130, 150, 255), 4);
    draw->AddText(ImVec2(at[s].x - size.x / 2, at[s].y - size.y / 2), IM_COL32(235, 235, 240, 255), name);
  }
}

void App::open_retarget(const std::string& path, const std::string& map_path) {
  if (!doc_ || !options_.load) return;
  auto target = options_.load(path, "");
  if (!target) {
    error_ = "cannot open " + path + " to retarget onto:\n" + target.error();
    return;
  }
  std::string map_text;
  if (!map_path.empty()) {
    std::ifstream in(path_from_utf8(map_path), std::ios::binary);
    if (!in) {
      error_ = "cannot read the bone map " + map_path;
      return;
    }
    map_text.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto session = viewer::RetargetSession::create(doc_->character, std::move(target).value(), map_text);
  if (!session) {
    error_ = "cannot retarget onto " + path + ":\n" + session.error();
    return;
  }
  const LoadedCharacter& c = session->target();
  auto renderer = window_->create_renderer(c);
  if (!renderer) {
    error_ = "cannot draw " + path + ":\n" + renderer.error();
    return;
  }
  auto view =
      std::make_unique<RetargetView>(RetargetView{.path = path,
                                                  .session = std::move(session).value(),
                                                  .renderer = std::move(renderer).value(),
                                                  .model = {},
                                                  .map_path = map_path.empty() ? "bone_map.json" : map_path,
                                                  .selected = -1});
  view->model.resize(static_cast<size_t>(c.asset.skeleton.joint_count()));
  retarget_ = std::move(view);
  retarget_path_ = path;
  show_retarget_tab_ = true;
  status_message_ = "retargeting onto " + display_name(path);
}

void App::retarget_edit(int target_joint, int source_joint) {
  if (!retarget_) return;
  if (const std::string refusal = retarget_->session.set_source(target_joint, source_joint); !refusal.empty())
    error_ = "bone map: " + refusal;
}

void App::save_bone_map(const std::string& path) {
  if (!retarget_) return;
  const std::string where = path.empty() ? retarget_->map_path : path;
  if (auto saved = retarget_->session.save_map(where); !saved) {
    error_ = "bone map not saved:\n" + saved.error();
    return;
  }
  retarget_->map_path = where;
  status_message_ = "saved " + display_name(where);
}

// Inspect > Retarget: open a second character beside this one; list each of its joints with the source
// joint it follows (pick another, or none), save the map.
void App::draw_retarget() {
  if (!retarget_) {
    ImGui::TextWrapped("Play this character's clips on another skeleton, side by side, through a bone map.");
    ImGui::InputText("target", &retarget_path_);
    if (ImGui::Button("Open beside") && !retarget_path_.empty()) open_retarget(retarget_path_, "");
    return;
  }
  RetargetView& r = *retarget_;
  const BoneMap& map = r.session.map();
  const Skeleton& source = r.session.source().asset.skeleton;
  const Skeleton& target = r.session.target().asset.skeleton;
  ImGui::TextWrapped("%s: %d of %d joints follow %s (profiles: %s -> %s)%s", display_name(r.path).c_str(),
                     map.mapped(), target.joint_count(), display_name(doc_->path).c_str(),
                     map.source_profile.empty() ? "none" : map.source_profile.c_str(),
                     map.target_profile.empty() ? "none" : map.target_profile.c_str(),
                     r.session.edited() ? " (edited)" : "");
  ImGui::InputText("map", &r.map_path);
  ImGui::SameLine();
  if (ImGui::Button("Save")) save_bone_map("");
  ImGui::SameLine();
  if (ImGui::Button("Close")) {
    retarget_.reset();
    return;
  }
  if (ImGui::BeginTable("bone map", 2,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV,
                        ImVec2(0, ImGui::GetContentRegionAvail().y))) {
    ImGui::TableSetupColumn("target joint", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("follows", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (int t = 0; t < target.joint_count(); ++t) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(t);
      int depth = 0;
      for (int p = target.parents()[t]; p >= 0; p = target.parents()[p]) ++depth;
      const float indent = static_cast<float>(depth) * 6 * ui_scale_;  // Indent(0) would be the default
      if (depth > 0) ImGui::Indent(indent);
      if (ImGui::Selectable(target.name(t).c_str(), r.selected == t)) r.selected = t;
      if (depth > 0) ImGui::Unindent(indent);
      ImGui::TableNextColumn();
      const int s = map.source_of[t];
      ImGui::SetNextItemWidth(-1);
      if (ImGui::BeginCombo("##source", s >= 0 ? source.name(s).c_str() : "(rest)")) {
        if (ImGui::Selectable("(rest)", s < 0)) retarget_edit(t, -1);
        for (int j = 0; j < source.joint_count(); ++j)
          if (ImGui::Selectable(source.name(j).c_str(), j == s)) retarget_edit(t, j);
        ImGui::EndCombo();
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
}

void App::draw_right_panel() {
  const ImGuiWindowFlags fixed =
      ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse;
  int win_w = 0, win_h = 0;
  window_->size(win_w, win_h);
  ImGui::SetNextWindowPos(ImVec2(static_cast<float>(win_w) - layout_.right, layout_.menu));
  ImGui::SetNextWindowSize(ImVec2(layout_.right, static_cast<float>(win_h) - layout_.menu - layout_.bottom));
  ImGui::Begin("Inspect", nullptr, fixed);
  if (!doc_) {
    ImGui::End();
    return;
  }
  const CharacterAsset& asset = doc_->character->asset;
  if (ImGui::BeginTabBar("inspect")) {
    if (ImGui::BeginTabItem("Notify")) {
      draw_notify_editor();
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Joints", nullptr, reveal_joint_ >= 0 ? ImGuiTabItemFlags_SetSelected : 0)) {
      draw_joint_tree();
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Meshes")) {
      for (const SkinnedMesh& mesh : asset.meshes) {
        const auto& materials = doc_->character->materials;
        const int m = mesh.material();
        ImGui::BulletText("%s: %d vertices, %zu triangles, %d influences, %zu palette joints, material %s",
                          mesh.name().c_str(), mesh.vertex_count(), mesh.indices().size() / 3,
                          mesh.influences(), mesh.joint_remap().size(),
                          m >= 0 && m < static_cast<int>(materials.size()) ? materials[m].name.c_str() : "-");
      }
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Morphs")) {
      draw_morphs();
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Clip")) {
      if (const Clip* clip = doc_->playback->current_clip()) {
        const char* layouts[] = {"fixed rate", "keyed", "compressed"};
        ImGui::Text("%s", clip->name().c_str());
        ImGui::Text("duration %.3f s, %s", clip->duration(), layouts[static_cast<int>(clip->layout())]);
        if (clip->frame_rate() > 0)
          ImGui::Text("%d frames at %.2f fps", clip->frame_count(), clip->frame_rate());
        ImGui::Text("%d joints, %.1f KiB in memory", clip->joint_count(),
                    static_cast<double>(clip->memory_bytes()) / 1024);
        const auto& list = doc_->notifies.notifies(doc_->playback->clip());
        ImGui::Text("%zu notifies", list.size());
      }
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Graph", nullptr, show_graph_tab_ ? ImGuiTabItemFlags_SetSelected : 0)) {
      show_graph_tab_ = false;
      draw_graph();
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Retarget", nullptr, show_retarget_tab_ ? ImGuiTabItemFlags_SetSelected : 0)) {
      show_retarget_tab_ = false;
      draw_retarget();
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Timings")) {
      ImGui::Text("frame   %6.2f ms (%.0f Hz)", frame_ms_.mean(),
                  frame_ms_.mean() > 0 ? 1000 / frame_ms_.mean() : 0);
      ImGui::Text("update  %6.3f ms (Animator)", update_ms_.mean());
      ImGui::Text("draw    %6.2f ms (%s skinning)", scene_ms_.mean(), kSkinningNames[skinning_]);
      ImGui::Text("ui      %6.2f ms", ui_ms_.mean());
      ImGui::Text("swap    %6.2f ms (finish drawing, present)", swap_ms_.mean());
      ImGui::TextWrapped("%s", doc_->renderer->device_name().c_str());
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

void App::draw_timeline() {
  NotifyDocument& notifies = doc_->notifies;
  Playback& p = *doc_->playback;
  const int clip = p.clip();
  const Clip* c = p.current_clip();
  if (!c) return;
  if (ImGui::Button("Undo") && notifies.undo()) edited("");
  ImGui::SameLine();
  if (ImGui::Button("Redo") && notifies.redo()) edited("");
  ImGui::SameLine();
  if (ImGui::Button(notifies.dirty() ? "Save*" : "Save")) save_notifies("");
  ImGui::SameLine();
  if (ImGui::Button("Fit")) timeline_.show_all();
  ImGui::SameLine();
  ImGui::TextDisabled("%s", status_message_.c_str());

  const float lane_h = 22 * ui_scale_, marker_half = lane_h * 0.5f - 3;
  const Track track = begin_track(90 * ui_scale_, marker_half);
  const ImVec2 origin = track.origin, avail = track.avail;
  const float ruler = track.ruler, track_x = track.track_x, track_end = track.track_end, x0 = track.x0;
  ImGui::InvisibleButton("timeline", ImVec2(std::max(avail.x, 1.f), std::max(avail.y, 1.f)),
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonMiddle);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const std::vector<Lane> lanes = TimelineView::lanes(notifies, clip, drag_lanes_);
  const float lanes_y = origin.y + ruler;
  draw->PushClipRect(origin, ImVec2(origin.x + avail.x, origin.y + avail.y), true);
  for (size_t l = 0; l <= lanes.size(); ++l) {
    const float y = lanes_y + static_cast<float>(l) * lane_h;
    draw->AddRectFilled(ImVec2(origin.x, y), ImVec2(track_end, y + lane_h),
                        l % 2 ? IM_COL32(34, 36, 40, 255) : IM_COL32(28, 30, 34, 255));
  }
  draw->PushClipRect(origin, ImVec2(track_x, origin.y + avail.y), true);
  for (size_t l = 0; l < lanes.size(); ++l)
    draw->AddText(ImVec2(origin.x + 4, lanes_y + static_cast<float>(l) * lane_h + 3),
                  IM_COL32(210, 210, 220, 255), lanes[l].name.c_str());
  draw->PopClipRect();
  draw->PushClipRect(ImVec2(track_x, origin.y), ImVec2(track_end, origin.y + avail.y), true);
  draw_ruler(draw, track);
  for (size_t l = 0; l < lanes.size(); ++l) {
    const float y = lanes_y + static_cast<float>(l) * lane_h;
    for (uint32_t id : lanes[l].ids) {
      const EditableNotify* n = notifies.find(clip, id);
      if (!n) continue;
      const bool selected = id == selected_notify_;
      const ImU32 color = selected ? IM_COL32(255, 180, 60, 255) : IM_COL32(90, 170, 255, 255);
      const float x = x0 + timeline_.time_to_x(n->time);
      if (n->duration > 0) {
        const float x1 = x0 + timeline_.time_to_x(n->time + n->duration);
        draw->AddRectFilled(ImVec2(x, y + 4), ImVec2(std::max(x1, x + 2), y + lane_h - 4), color, 3);
        draw->AddRectFilled(ImVec2(std::max(x1 - 4 * ui_scale_, x), y + 4),
                            ImVec2(std::max(x1, x + 2), y + lane_h - 4), IM_COL32(255, 255, 255, 160));
      } else {
        const float h = marker_half;
        draw->AddQuadFilled(ImVec2(x, y + 3), ImVec2(x + h, y + lane_h * 0.5f), ImVec2(x, y + lane_h - 3),
                            ImVec2(x - h, y + lane_h * 0.5f), color);
      }
    }
  }
  // Playhead
  const float px = x0 + timeline_.time_to_x(p.time());
  draw->AddLine(ImVec2(px, origin.y), ImVec2(px, origin.y + avail.y), IM_COL32(255, 80, 80, 255), 2);
  draw->PopClipRect();
  draw->PopClipRect();

  // Interaction: scrub on the ruler, select / move / resize notifies, wheel zooms, middle drag pans.
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 m = io.MousePos;
  const bool hovered = ImGui::IsItemHovered();
  const float lx = m.x - x0, ly = m.y - lanes_y;
  const Hit hit =
      m.x >= track_x ? timeline_.hit_test(notifies, clip, lx, ly, lane_h, 5 * ui_scale_, drag_lanes_) : Hit{};
  if (hovered && io.MouseWheel != 0) timeline_.zoom(std::pow(1.25f, io.MouseWheel), lx);
  if (hovered && hit.part != HitPart::kNone && drag_ == Drag::kNone) {
    if (const EditableNotify* n = notifies.find(clip, hit.id)) {
      if (n->duration > 0)
        ImGui::SetTooltip("%s\n%.3f s for %.3f s\n%s", n->name.c_str(), n->time, n->duration,
                          n->payload.c_str());
      else
        ImGui::SetTooltip("%s\n%.3f s\n%s", n->name.c_str(), n->time, n->payload.c_str());
    }
  }
  if (ImGui::IsItemClicked(ImGuiMouseButton_Middle)) drag_ = Drag::kPan;
  if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) {
    if (m.y < lanes_y || m.x < track_x) {
      drag_ = Drag::kScrub;
    } else if (hit.part != HitPart::kNone) {
      selected_notify_ = hit.id;
      const EditableNotify* n = notifies.find(clip, hit.id);
      drag_ = hit.part == HitPart::kEnd ? Drag::kResize : Drag::kMove;
      drag_offset_ = n ? n->time - timeline_.x_to_time(lx) : 0;
      drag_lanes_.clear();
      for (const Lane& lane : lanes) drag_lanes_.push_back(lane.name);
      notifies.begin_group();
    } else {
      selected_notify_ = 0;
      drag_ = Drag::kScrub;
    }
  }
  switch (drag_) {
    case Drag::kScrub:
      p.set_paused(true);
      p.seek(std::clamp(timeline_.x_to_time(lx), 0.f, c->duration()));
      break;
    case Drag::kMove:
      notifies.move(clip, selected_notify_, on_frame(timeline_.x_to_time(lx) + drag_offset_));
      break;
    case Drag::kResize:
      if (const EditableNotify* n = notifies.find(clip, selected_notify_))
        notifies.set_duration(clip, selected_notify_,
                              std::max(on_frame(timeline_.x_to_time(lx)) - n->time, 0.f));
      break;
    case Drag::kPan:
      timeline_.pan(io.MouseDelta.x);
      break;
    case Drag::kNone:
      break;
  }
  if (drag_ != Drag::kNone && !io.MouseDown[0] && !io.MouseDown[2]) {
    if (drag_ == Drag::kMove || drag_ == Drag::kResize) {
      notifies.end_group();
      edited("");  // the Animator fires the moved notify from now on
    }
    drag_ = Drag::kNone;
    drag_lanes_.clear();
  }
}

void App::export_view(const std::string& path) {
  Playback& p = *doc_->playback;
  const Clip* clip = p.current_clip();
  const std::filesystem::path out = path_from_utf8(path);
  std::string ext = utf8_from_path(out.extension());
  for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (!clip || (ext != ".gif" && ext != ".png")) {
    error_ = "cannot export the view to " + path + ": name a .gif or a .png";
    return;
  }
  const float fps = std::min(clip->frame_rate() > 0 ? clip->frame_rate() : 30.f, 30.f);
  const int frames = std::clamp(static_cast<int>(std::floor(clip->duration() * fps + 1e-3f)) + 1, 1, 900);
  auto frame_path = [&](int i) {
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "_%04d.png", i);
    return utf8_from_path(out.parent_path() / path_from_utf8(utf8_from_path(out.stem()) + suffix));
  };
  for (const std::string& input : doc_->character->source_files)
    for (int i = 0; i < (ext == ".gif" ? 1 : frames); ++i)
      if (same_file(ext == ".gif" ? path : frame_path(i), input)) {
        error_ = "cannot export the view over " + input + ": it is an input of this character";
        return;
      }
  const CharacterAsset& animated = p.animated_asset();
  CharacterRenderer& r = *doc_->renderer;
  std::vector<Image> images;
  for (int i = 0; i < frames; ++i) {
    const float t = std::min(static_cast<float>(i) / fps, clip->duration());
    if (!Playback::pose_at(animated, p.clip(), t, ghost_cache_, ghost_locals_, ghost_model_)) break;
    r.begin_frame(frame_);
    r.draw_palette(p.world(), ghost_model_);
    images.push_back(r.end_frame());
  }
  if (ext == ".gif") {
    if (auto written = write_gif(images, std::max(1, static_cast<int>(std::lround(100 / fps))), path);
        !written) {
      error_ = "cannot export the view: " + written.error();
      return;
    }
  } else {
    for (size_t i = 0; i < images.size(); ++i)
      if (auto written = write_png(images[i], frame_path(static_cast<int>(i))); !written) {
        error_ = "cannot export the view: " + written.error();
        return;
      }
  }
  status_message_ = "exported " + std::to_string(images.size()) + " frames of " + display_name(path);
}

void App::browse_pick(const std::string& name) {
  const auto& entries = browser_->entries();
  const auto entry =
      std::find_if(entries.begin(), entries.end(), [&](const BrowserEntry& e) { return e.name == name; });
  if (entry == entries.end()) return;
  if (entry->folder) {
    browser_->enter(name);
    browser_field_ = browser_->folder();
    browser_selected_.clear();
    return;
  }
  request_open(browser_->path_of(name));
  close_browser_ = true;
}

void App::go_to_frame(int frame) {
  Playback& p = *doc_->playback;
  const Clip* clip = p.current_clip();
  if (!clip) return;
  const float rate = clip->frame_rate() > 0 ? clip->frame_rate() : 30;
  p.set_paused(true);
  p.seek(std::clamp(static_cast<float>(frame) / rate, 0.f, clip->duration()));
}

void App::set_loop_in_out(float in, float out) {
  Playback& p = *doc_->playback;
  const Clip* clip = p.current_clip();
  if (!clip) return;
  if (out < 0) out = clip->duration();
  if (!p.set_loop_range(in, out)) status_message_ = "the loop range needs its in before its out";
}

Track App::begin_track(float name_w, float marker_half) {
  const Playback& p = *doc_->playback;
  if (const Clip* c = p.current_clip(); c && timeline_clip_ != p.clip()) {
    timeline_.set_clip(c->duration(), c->frame_rate() > 0 ? c->frame_rate() : 30);
    timeline_clip_ = p.clip();
  }
  Track t;
  t.origin = ImGui::GetCursorScreenPos();
  t.avail = ImGui::GetContentRegionAvail();
  t.name_w = name_w;
  t.ruler = 22 * ui_scale_;
  t.pad = marker_half + 2;
  t.track_x = t.origin.x + name_w;
  t.track_end = t.origin.x + std::max(t.avail.x, name_w + 1);
  t.width = std::max(t.avail.x - name_w - 2 * t.pad, 32.f);
  t.x0 = t.track_x + t.pad;
  timeline_.set_width(t.width);
  return t;
}

void App::draw_ruler(ImDrawList* draw, const Track& t) {
  draw->AddRectFilled(ImVec2(t.track_x, t.origin.y), ImVec2(t.track_end, t.origin.y + t.ruler),
                      IM_COL32(40, 42, 48, 255));
  for (const Tick& tick : timeline_.ticks()) {
    const float x = t.x0 + tick.x;
    draw->AddLine(ImVec2(x, t.origin.y + (tick.major ? 4 : 12) * ui_scale_), ImVec2(x, t.origin.y + t.ruler),
                  IM_COL32(150, 150, 160, 255));
    if (tick.major) {  // right of the tick, or left of it at the track's end (the clip's last frame)
      const float label_w = ImGui::CalcTextSize(tick.label.c_str()).x;
      const float label_x = x + 2 + label_w <= t.track_end ? x + 2 : x - 2 - label_w;
      draw->AddText(ImVec2(label_x, t.origin.y), IM_COL32(200, 200, 210, 255), tick.label.c_str());
    }
  }
}

void App::track_input(const Track& t, bool hovered) {
  ImGuiIO& io = ImGui::GetIO();
  const float lx = io.MousePos.x - t.x0;
  if (hovered && io.MouseWheel != 0) timeline_.zoom(std::pow(1.25f, io.MouseWheel), lx);
  if (hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Middle)) drag_ = Drag::kPan;
  if (hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Left) && io.MousePos.y < t.origin.y + t.ruler &&
      io.MousePos.x >= t.track_x)
    drag_ = Drag::kScrub;
  Playback& p = *doc_->playback;
  if (drag_ == Drag::kScrub && p.current_clip()) {
    p.set_paused(true);
    p.seek(std::clamp(timeline_.x_to_time(lx), 0.f, p.current_clip()->duration()));
  }
  if (drag_ == Drag::kPan) timeline_.pan(io.MouseDelta.x);
  if ((drag_ == Drag::kScrub || drag_ == Drag::kPan) && !io.MouseDown[0] && !io.MouseDown[2])
    drag_ = Drag::kNone;
}

void App::refresh_dope_sheet() {
  const Playback& p = *doc_->playback;
  const CharacterAsset* asset = &p.animated_asset();
  if (asset == dope_asset_ && p.clip() == dope_clip_) return;
  dope_ = make_dope_sheet(*asset, p.clip());
  dope_asset_ = asset;
  dope_clip_ = p.clip();
  dope_row_ = -1;
  for (size_t r = 0; r < dope_.rows.size() && selected_joint_ >= 0; ++r)
    if (dope_.rows[r].joint == selected_joint_) dope_row_ = static_cast<int>(r);
}

// The clip's keys, one row per animated joint (translation, rotation and scale keys in three rows of
// diamonds) and per animated morph target; a click selects a row (and its joint) for the curve view.
void App::draw_dope_sheet() {
  refresh_dope_sheet();
  const Playback& p = *doc_->playback;
  ImGui::TextDisabled("%zu rows, %zu keys", dope_.rows.size(), dope_.key_count());
  ImGui::SameLine();
  ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "translation");
  ImGui::SameLine();
  ImGui::TextColored(ImVec4(0.45f, 0.9f, 0.45f, 1), "rotation");
  ImGui::SameLine();
  ImGui::TextColored(ImVec4(0.45f, 0.65f, 1, 1), "scale");
  ImGui::SameLine();
  ImGui::TextColored(ImVec4(0.85f, 0.55f, 1, 1), "morph weight");
  const float row_h = 18 * ui_scale_, marker_half = 3.5f * ui_scale_;
  const Track t = begin_track(120 * ui_scale_, marker_half);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->PushClipRect(t.origin, ImVec2(t.track_end, t.origin.y + t.avail.y), true);
  draw->PushClipRect(ImVec2(t.track_x, t.origin.y), ImVec2(t.track_end, t.origin.y + t.avail.y), true);
  draw_ruler(draw, t);
  draw->PopClipRect();
  draw->PopClipRect();
  ImGui::Dummy(ImVec2(1, t.ruler));
  const bool ruler_hovered = ImGui::IsItemHovered() ||
                             ImGui::IsMouseHoveringRect(t.origin, ImVec2(t.track_end, t.origin.y + t.ruler));
  ImGui::BeginChild("dope rows", ImVec2(0, 0), false);
  ImDrawList* rows = ImGui::GetWindowDrawList();
  const ImU32 colors[4] = {IM_COL32(255, 115, 100, 255), IM_COL32(115, 230, 115, 255),
                           IM_COL32(115, 165, 255, 255), IM_COL32(215, 140, 255, 255)};
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(dope_.rows.size()), row_h);
  while (clipper.Step()) {
    for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
      const DopeRow& row = dope_.rows[r];
      const ImVec2 at = ImGui::GetCursorScreenPos();
      ImGui::PushID(r);
      if (ImGui::InvisibleButton("row", ImVec2(std::max(t.avail.x, 1.f), row_h))) {
        dope_row_ = r;
        if (row.joint >= 0) selected_joint_ = row.joint;
        curve_kind_ = row.joint >= 0
                          ? (row.keys[1].empty()
                                 ? (row.keys[0].empty() ? ChannelKind::kScale : ChannelKind::kTranslation)
                                 : ChannelKind::kRotation)
                          : ChannelKind::kMorphWeight;
      }
      ImGui::PopID();
      const bool selected = r == dope_row_;
      rows->AddRectFilled(at, ImVec2(t.track_end, at.y + row_h),
                          selected ? IM_COL32(60, 62, 80, 255)
                          : r % 2  ? IM_COL32(34, 36, 40, 255)
                                   : IM_COL32(28, 30, 34, 255));
      rows->PushClipRect(at, ImVec2(t.track_x, at.y + row_h), true);
      rows->AddText(ImVec2(at.x + 4, at.y + 2), IM_COL32(210, 210, 220, 255), row.name.c_str());
      rows->PopClipRect();
      rows->PushClipRect(ImVec2(t.track_x, at.y), ImVec2(t.track_end, at.y + row_h), true);
      const int channels = row.joint >= 0 ? 3 : 1;
      for (int c = 0; c < channels; ++c) {
        const float y = at.y + row_h * (channels == 1 ? 0.5f : (static_cast<float>(c) + 0.5f) / 3);
        const float h = channels == 1 ? marker_half : std::min(marker_half, row_h / 6);
        for (float time : row.keys[c]) {
          const float x = t.x_of(timeline_, time);
          rows->AddQuadFilled(ImVec2(x, y - h), ImVec2(x + h, y), ImVec2(x, y + h), ImVec2(x - h, y),
                              colors[row.joint >= 0 ? c : 3]);
        }
      }
      rows->PopClipRect();
    }
  }
  const float px = t.x_of(timeline_, p.time());
  rows->PushClipRect(ImVec2(t.track_x, t.origin.y), ImVec2(t.track_end, t.origin.y + t.avail.y), true);
  rows->AddLine(ImVec2(px, ImGui::GetWindowPos().y),
                ImVec2(px, ImGui::GetWindowPos().y + ImGui::GetWindowHeight()), IM_COL32(255, 80, 80, 255),
                2);
  rows->PopClipRect();
  const bool rows_hovered = ImGui::IsWindowHovered();
  ImGui::EndChild();
  draw->PushClipRect(ImVec2(t.track_x, t.origin.y), ImVec2(t.track_end, t.origin.y + t.ruler), true);
  draw->AddLine(ImVec2(px, t.origin.y), ImVec2(px, t.origin.y + t.ruler), IM_COL32(255, 80, 80, 255), 2);
  draw->PopClipRect();
  track_input(t, ruler_hovered || rows_hovered);
}

// One channel over the clip: the selected dope-sheet row's (or the selected joint's rotation), as x y z (w)
// or Euler degrees, with its keys and the playhead. Values are what playback samples.
void App::draw_curves() {
  refresh_dope_sheet();
  const Playback& p = *doc_->playback;
  const CharacterAsset& asset = p.animated_asset();
  const DopeRow* row =
      dope_row_ >= 0 && dope_row_ < static_cast<int>(dope_.rows.size()) ? &dope_.rows[dope_row_] : nullptr;
  const int joint = row ? row->joint : selected_joint_;
  if (!row && joint < 0) {
    ImGui::TextDisabled("Select a row in the dope sheet, or a joint, to see its curves.");
    return;
  }
  const bool morph = row && row->joint < 0;
  if (!morph) {
    int kind =
        static_cast<int>(curve_kind_ == ChannelKind::kMorphWeight ? ChannelKind::kRotation : curve_kind_);
    ImGui::SetNextItemWidth(130 * ui_scale_);
    ImGui::Combo("##channel", &kind, "translation\0rotation\0scale\0");
    curve_kind_ =
        static_cast<ChannelKind>(kind);  // a joint row: a joint channel (a morph row's kind is kept)
    if (curve_kind_ == ChannelKind::kRotation) {
      ImGui::SameLine();
      ImGui::Checkbox("Euler degrees (XYZ)", &curve_euler_);
    }
    ImGui::SameLine();
  } else {
    curve_kind_ = ChannelKind::kMorphWeight;
  }
  ImGui::TextUnformatted(row ? row->name.c_str() : asset.skeleton.name(joint).c_str());
  const auto key =
      std::make_tuple(&asset, p.clip(), morph ? -2 - dope_row_ : joint, static_cast<int>(curve_kind_));
  if (key != curve_for_) {
    curve_ = channel_curve(asset, p.clip(), curve_kind_, joint, morph ? row->mesh : -1,
                           morph ? row->target : -1, 240);
    curve_for_ = key;
  }
  const bool euler = curve_kind_ == ChannelKind::kRotation && curve_euler_;
  const int components = morph ? 1 : euler ? 3 : curve_kind_ == ChannelKind::kRotation ? 4 : 3;
  auto value = [&](const CurveSample& s, int k) { return euler ? s.euler_degrees[k] : s.value[k]; };
  float lo = FLT_MAX, hi = -FLT_MAX;
  for (const CurveSample& s : curve_)
    for (int k = 0; k < components; ++k) lo = std::min(lo, value(s, k)), hi = std::max(hi, value(s, k));
  if (curve_.empty()) lo = 0, hi = 1;
  const float span = std::max(hi - lo, euler ? 1.f : 1e-4f);
  lo -= span * 0.08f, hi += span * 0.08f;

  const Track t = begin_track(70 * ui_scale_, 3 * ui_scale_);
  ImGui::InvisibleButton("curves", ImVec2(std::max(t.avail.x, 1.f), std::max(t.avail.y, 1.f)),
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonMiddle);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float top = t.origin.y + t.ruler + 4, bottom = t.origin.y + t.avail.y - 4;
  auto y_of = [&](float v) { return bottom - (v - lo) / (hi - lo) * (bottom - top); };
  draw->PushClipRect(t.origin, ImVec2(t.track_end, t.origin.y + t.avail.y), true);
  draw->AddRectFilled(ImVec2(t.origin.x, t.origin.y + t.ruler), ImVec2(t.track_end, t.origin.y + t.avail.y),
                      IM_COL32(28, 30, 34, 255));
  char label[32];
  for (int g = 0; g <= 4; ++g) {  // value grid with labels
    const float v = lo + (hi - lo) * static_cast<float>(g) / 4, y = y_of(v);
    draw->AddLine(ImVec2(t.track_x, y), ImVec2(t.track_end, y), IM_COL32(50, 52, 58, 255));
    std::snprintf(label, sizeof label, euler ? "%.1f" : "%.4g", v);
    draw->AddText(ImVec2(t.origin.x + 4, y - 7 * ui_scale_), IM_COL32(170, 170, 180, 255), label);
  }
  draw->PushClipRect(ImVec2(t.track_x, t.origin.y), ImVec2(t.track_end, t.origin.y + t.avail.y), true);
  draw_ruler(draw, t);
  const ImU32 colors[4] = {IM_COL32(255, 110, 100, 255), IM_COL32(110, 230, 110, 255),
                           IM_COL32(110, 160, 255, 255), IM_COL32(200, 200, 200, 255)};
  std::vector<float> keys;
  if (row) keys = row->keys[morph ? 0 : static_cast<int>(curve_kind_)];
  for (int k = 0; k < components; ++k) {
    for (size_t i = 1; i < curve_.size(); ++i)
      draw->AddLine(ImVec2(t.x_of(timeline_, curve_[i - 1].time), y_of(value(curve_[i - 1], k))),
                    ImVec2(t.x_of(timeline_, curve_[i].time), y_of(value(curve_[i], k))),
                    colors[morph ? 3 : k], 1.5f * ui_scale_);
    for (const CurveSample& s : curve_)
      if (std::binary_search(keys.begin(), keys.end(), s.time))
        draw->AddCircleFilled(ImVec2(t.x_of(timeline_, s.time), y_of(value(s, k))), 2.5f * ui_scale_,
                              colors[morph ? 3 : k]);
  }
  const float px = t.x_of(timeline_, p.time());
  draw->AddLine(ImVec2(px, t.origin.y), ImVec2(px, t.origin.y + t.avail.y), IM_COL32(255, 80, 80, 255), 2);
  draw->PopClipRect();
  draw->PopClipRect();
  track_input(t, hovered);
}

void App::draw_event_log() {
  const auto& events = doc_->playback->events();
  ImGui::Text("%zu events", events.size());
  ImGui::SameLine();
  if (ImGui::SmallButton("clear")) doc_->playback->clear_events();
  // In a crossfade both clips fire: each event names its clip (the part after "Armature|"; the whole name in
  // its tooltip).
  if (ImGui::BeginTable("events", 6,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("step");
    ImGui::TableSetupColumn("clip");
    ImGui::TableSetupColumn("type");
    ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("t");
    ImGui::TableSetupColumn("loop");
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(events.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const LoggedEvent& e = events[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%lld", e.step);
        ImGui::TableNextColumn();
        const size_t bar = e.clip.rfind('|');
        ImGui::TextUnformatted(bar == std::string::npos ? e.clip.c_str() : e.clip.c_str() + bar + 1);
        if (bar != std::string::npos && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", e.clip.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(to_string(e.type));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(e.name.empty() ? "-" : e.name.c_str());
        if (!e.payload.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", e.payload.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.4f", e.time);
        ImGui::TableNextColumn();
        ImGui::Text("%d", e.loop);
      }
    }
    if (ImGui::GetScrollY() >= ImGui::GetScrollMaxY() - 1) ImGui::SetScrollHereY(1.0f);
    ImGui::EndTable();
  }
}

void App::draw_bottom_panel() {
  const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoScrollbar |
                                 ImGuiWindowFlags_NoScrollWithMouse;
  int win_w = 0, win_h = 0;
  window_->size(win_w, win_h);
  const float w = static_cast<float>(win_w), h = static_cast<float>(win_h);
  const float log_w = std::min(380 * ui_scale_, w * 0.4f);
  ImGui::SetNextWindowPos(ImVec2(0, h - layout_.bottom));
  ImGui::SetNextWindowSize(ImVec2(w - log_w, layout_.bottom));
  ImGui::Begin("Timeline", nullptr, fixed);
  if (doc_ && ImGui::BeginTabBar("bottom")) {
    const auto tab = [&](const char* label, BottomTab which) {
      const bool chosen = select_bottom_tab_ && bottom_tab_ == which;
      if (!ImGui::BeginTabItem(label, nullptr, chosen ? ImGuiTabItemFlags_SetSelected : 0)) return false;
      if (!select_bottom_tab_) bottom_tab_ = which;
      return true;
    };
    if (tab("Notifies", BottomTab::kNotifies)) {
      draw_timeline();
      ImGui::EndTabItem();
    }
    if (tab("Dope sheet", BottomTab::kDopeSheet)) {
      draw_dope_sheet();
      ImGui::EndTabItem();
    }
    if (tab("Curves", BottomTab::kCurves)) {
      draw_curves();
      ImGui::EndTabItem();
    }
    select_bottom_tab_ = false;
    ImGui::EndTabBar();
  }
  ImGui::End();
  ImGui::SetNextWindowPos(ImVec2(w - log_w, h - layout_.bottom));
  ImGui::SetNextWindowSize(ImVec2(log_w, layout_.bottom));
  ImGui::Begin("Events", nullptr, fixed);
  if (doc_) draw_event_log();
  ImGui::End();
}

void App::draw_error() {
  if (show_open_) {
    ImGui::OpenPopup("Open file");
    show_open_ = false;
    if (!browser_) {
      std::error_code ec;
      const std::filesystem::path near =
          doc_ ? path_from_utf8(doc_->path).parent_path() : std::filesystem::path();
      browser_.emplace(!near.empty() && std::filesystem::is_directory(near, ec) ? utf8_from_path(near) : ".");
    }
    browser_->refresh();
    browser_field_ = browser_->folder();
    browser_selected_.clear();
  }
  if (ImGui::BeginPopupModal("Open file", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    // The folder field: type a folder (or a file's path) and Enter.
    ImGui::SetNextItemWidth(520 * ui_scale_);
    if (ImGui::InputText("##folder", &browser_field_, ImGuiInputTextFlags_EnterReturnsTrue)) {
      std::error_code ec;
      if (std::filesystem::is_regular_file(path_from_utf8(browser_field_), ec)) {
        request_open(browser_field_);
        close_browser_ = true;
      } else {
        browser_->go_to(browser_field_);
        browser_field_ = browser_->folder();
      }
    }
    bool all = browser_->show_all();
    if (ImGui::Checkbox("all files (not only .fbx .gltf .glb .dae .ossa)", &all)) browser_->set_show_all(all);
    ImGui::BeginChild("entries", ImVec2(520 * ui_scale_, 300 * ui_scale_), true);
    const auto& entries = browser_->entries();
    std::string picked;
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(entries.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const BrowserEntry& e = entries[i];
        char size[32] = "";
        if (!e.folder) std::snprintf(size, sizeof size, "%.1f KB", static_cast<double>(e.bytes) / 1024);
        const std::string label = e.folder ? e.name + "/" : e.name;
        ImGui::PushID(i);
        if (ImGui::Selectable(label.c_str(), e.name == browser_selected_,
                              ImGuiSelectableFlags_AllowDoubleClick)) {
          browser_selected_ = e.name;
          if (ImGui::IsMouseDoubleClicked(0)) picked = e.name;
        }
        if (!e.folder) {
          ImGui::SameLine(420 * ui_scale_);
          ImGui::TextDisabled("%s", size);
        }
        ImGui::PopID();
      }
    }
    if (browser_->truncated())
      ImGui::TextDisabled("(the first %zu entries: type a folder to narrow it)", FileBrowser::kMaxEntries);
    ImGui::EndChild();
    if (!picked.empty()) browse_pick(picked);
    if (!browser_->error().empty())
      ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", browser_->error().c_str());
    const bool file_selected = std::any_of(entries.begin(), entries.end(), [&](const BrowserEntry& e) {
      return !e.folder && e.name == browser_selected_;
    });
    ImGui::BeginDisabled(!file_selected);
    if (ImGui::Button("Open")) browse_pick(browser_selected_);
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) close_browser_ = true;
    ImGui::SameLine();
    ImGui::TextDisabled("or drop a file on the window");
    if (close_browser_) ImGui::CloseCurrentPopup(), close_browser_ = false;
    ImGui::EndPopup();
  }
  // The export prompts: a path to write, Export or Cancel.
  auto path_prompt = [&](const char* title, bool& show, const char* help, std::string& path, auto&& write) {
    if (show) ImGui::OpenPopup(title), show = false;
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
    ImGui::TextUnformatted(help);
    ImGui::SetNextItemWidth(420 * ui_scale_);
    const bool enter = ImGui::InputText("path", &path, ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::Button("Export") || enter) {
      if (doc_) write(path);
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  };
  path_prompt("Export glTF", show_export_,
              "OUT.glb (one file) or OUT.gltf (with its .bin and images beside it)", export_path_,
              [&](const std::string& path) { export_gltf(path); });
  path_prompt(
      "Export view", show_export_view_,
      "OUT.gif (one file) or OUT.png (OUT_0000.png, OUT_0001.png, ...): the clip as the view shows it,\n"
      "from start to end, at up to 30 frames per second",
      export_view_path_, [&](const std::string& path) { export_view(path); });
  if (error_.empty()) return;
  int win_w = 0, win_h = 0;
  window_->size(win_w, win_h);
  ImGui::SetNextWindowPos(ImVec2(static_cast<float>(win_w) * 0.5f, layout_.menu + 40 * ui_scale_),
                          ImGuiCond_Always, ImVec2(0.5f, 0));
  ImGui::SetNextWindowSize(ImVec2(std::min(560 * ui_scale_, static_cast<float>(win_w) - 20), 0));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(90, 24, 24, 240));
  ImGui::Begin("Error", nullptr,
               ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize);
  const ShownError shown = explain_error(error_);
  ImGui::TextWrapped("%s", shown.headline.c_str());
  if (!shown.details.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(230, 190, 190, 255));
    ImGui::TextWrapped("%s", shown.details.c_str());
    ImGui::PopStyleColor();
  }
  if (ImGui::Button("Dismiss")) error_.clear();
  ImGui::End();
  ImGui::PopStyleColor();
}

void App::request_open(const std::string& path) {
  if (!unsaved()) return open(path);
  pending_ = Pending::kOpen, pending_path_ = path, ask_unsaved_ = true;
}

void App::request_quit() {
  if (!unsaved()) {
    quit_ = true;
    return;
  }
  pending_ = Pending::kQuit, ask_unsaved_ = true;
}

void App::answer(Answer choice) {
  if (choice == Answer::kRecover || (choice == Answer::kDiscard && offered_recovery_)) {
    if (choice == Answer::kRecover) {
      auto set = parse_notifies_for(doc_->character->asset, offered_recovery_->notifies_json,
                                    "the recovery copy of " + display_name(doc_->path));
      if (!set) {
        error_ = "cannot recover the unsaved notifies: " + set.error();
      } else {
        doc_->notifies.restore(*set);  // one undo step; unsaved until the user saves
        edited("");
        status_message_ =
            "recovered the notify edits of " + offered_recovery_->written + " UTC (not saved yet)";
      }
    } else {
      remove_recovery(recovery_file_);
      recovery_written_.clear();
    }
    offered_recovery_.reset();
    return;
  }
  const Pending pending = pending_;
  pending_ = Pending::kNone;
  if (choice == Answer::kCancel) return;
  if (choice == Answer::kSave) {
    save_notifies("");
    if (unsaved()) return;  // not saved (the error says why): stay
  }
  remove_recovery(recovery_file_);
  recovery_written_.clear();
  if (pending == Pending::kOpen) open(pending_path_);
  if (pending == Pending::kQuit) quit_ = true;
}

void App::keep_recovery(float dt, bool now) {
  if (!doc_ || recovery_file_.empty() || offered_recovery_) return;  // an offered copy waits for its answer
  recovery_clock_ += dt;
  if (!now && recovery_clock_ < kRecoveryInterval) return;
  recovery_clock_ = 0;
  if (!doc_->notifies.dirty()) {
    if (!recovery_written_.empty()) remove_recovery(recovery_file_), recovery_written_.clear();
    return;
  }
  std::string json = doc_->notifies.to_json();
  if (json == recovery_written_) return;
  if (auto written = write_recovery(recovery_file_, {recovery_model_key(doc_->path), "", json}); !written)
    status_message_ = "cannot keep a recovery copy: " + written.error();
  else
    recovery_written_ = std::move(json);
}

void App::draw_prompts() {
  if (ask_unsaved_) ImGui::OpenPopup("Unsaved notify edits"), ask_unsaved_ = false;
  if (ask_recovery_) ImGui::OpenPopup("Recover unsaved edits"), ask_recovery_ = false;
  const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize;
  if (ImGui::BeginPopupModal("Unsaved notify edits", nullptr, flags)) {
    if (pending_ == Pending::kNone) {
      ImGui::CloseCurrentPopup();  // answered by a script
    } else {
      ImGui::Text("The notifies of %s have edits that are not saved.",
                  doc_ ? display_name(doc_->path).c_str() : "");
      ImGui::TextDisabled("Save writes %s.", doc_ ? display_name(doc_->sidecar).c_str() : "");
      std::optional<Answer> choice;
      if (ImGui::Button("Save")) choice = Answer::kSave;
      ImGui::SameLine();
      if (ImGui::Button("Discard")) choice = Answer::kDiscard;
      ImGui::SameLine();
      if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
        choice = Answer::kCancel;
      if (choice) {
        ImGui::CloseCurrentPopup();
        answer(*choice);
      }
    }
    ImGui::EndPopup();
  }
  if (ImGui::BeginPopupModal("Recover unsaved edits", nullptr, flags)) {
    if (!offered_recovery_) {
      ImGui::CloseCurrentPopup();
    } else {
      ImGui::Text("%s has notify edits from %s UTC that were never saved.", display_name(doc_->path).c_str(),
                  offered_recovery_->written.c_str());
      ImGui::TextDisabled("Recover takes them back as an edit (undo reverts it); Discard deletes the copy.");
      std::optional<Answer> choice;
      if (ImGui::Button("Recover")) choice = Answer::kRecover;
      ImGui::SameLine();
      if (ImGui::Button("Discard")) choice = Answer::kDiscard;
      if (choice) {
        ImGui::CloseCurrentPopup();
        answer(*choice);
      }
    }
    ImGui::EndPopup();
  }
}

void App::feed_keys() {
  if (held_frames_ > 0 && !held_keys_.empty()) {
    keys_.push_key(held_keys_.back(), KeyAction::kRepeat);
    if (--held_frames_ == 0) {
      for (auto key = held_keys_.rbegin(); key != held_keys_.rend(); ++key)
        keys_.push_key(*key, KeyAction::kRelease);
      held_keys_.clear();
    }
  }
  // Dear ImGui 1.86 reads key state once a frame: give it this frame's share.
  for (const InputEvent& event : keys_.next_frame()) {
    if (event.kind == InputEvent::Kind::kKey)
      window_->key_to_imgui(event.key, event.action);
    else
      window_->character_to_imgui(event.codepoint);
  }
}

void App::remember_field(const char* label) {
  field_rects_[label] = {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()};
}

void App::frame(float dt) {
  const auto start = Clock::now();
  if (!pending_drops_.empty()) request_open(pending_drops_.back());  // the last one asked for
  pending_drops_.clear();

  window_->new_imgui_frame();
  feed_keys();
  ImGuiIO& io = ImGui::GetIO();
  if (!script_.empty()) {
    // Scripted runs see only the script's pointer (deterministic, whatever the real pointer does).
    if (!script_pointer_.empty()) {
      script_mouse_ = script_pointer_.front().first;
      script_down_ = script_pointer_.front().second;
      script_pointer_.erase(script_pointer_.begin());
    }
    io.MousePos = script_mouse_;
    for (bool& down : io.MouseDown) down = false;
    io.MouseDown[0] = script_down_;
    io.MouseWheel = 0;
  }
  io.FontGlobalScale = ui_scale_ * static_cast<float>(settings_.font_scale);
  ImGui::NewFrame();
  compute_layout();
  resize_panels();

  // Keys (not while typing in a field).
  if (doc_ && !io.WantTextInput) {
    Playback& p = *doc_->playback;
    const bool ctrl = io.KeyCtrl;
    // An action runs once per press; stepping frames follows the key's auto-repeat.
    if (keys_.pressed(key::kSpace)) p.set_paused(!p.paused());
    if (keys_.pressed_or_repeated(key::kRight)) p.step_frames(1);
    if (keys_.pressed_or_repeated(key::kLeft)) p.step_frames(-1);
    if (keys_.pressed(key::kHome)) p.seek(0);
    if (keys_.pressed('F')) camera_.refit(doc_->lo, doc_->hi, layout_.scene_w / layout_.scene_h);
    if (keys_.pressed('G')) grid_ = !grid_;
    if (keys_.pressed('K')) skeleton_ = !skeleton_;
    for (int i = 0; i < 5; ++i)
      if (keys_.pressed('1' + i)) lighting_ = static_cast<LightingMode>(i);
    if (ctrl && keys_.pressed('Z') && doc_->notifies.undo()) edited("");
    if (ctrl && keys_.pressed('Y') && doc_->notifies.redo()) edited("");
    if (ctrl && keys_.pressed('S')) save_notifies("");
    if (!ctrl && keys_.pressed('N')) {
      uint32_t id = 0;
      const std::string refusal =
          doc_->notifies.add(p.clip(), new_notify_name_, on_frame(p.time()), new_notify_duration_, &id);
      if (refusal.empty()) selected_notify_ = id;
      edited(refusal);
    }
    if (keys_.pressed(key::kDelete) && selected_notify_) {
      edited(doc_->notifies.remove(p.clip(), selected_notify_));
      selected_notify_ = 0;
    }
  }
  if (!io.WantTextInput && io.KeyCtrl && keys_.pressed('O')) show_open_ = true;
  if (!io.WantTextInput && io.KeyCtrl && keys_.pressed('Q')) request_quit();

  draw_menu();
  draw_left_panel();
  draw_right_panel();
  draw_bottom_panel();
  draw_error();
  draw_prompts();
  scene_input();

  if (doc_) {
    const auto update_start = Clock::now();
    doc_->playback->update(dt);
    if (graph_) {
      if (!doc_->playback->paused()) graph_->instance().update(dt);
      graph_checked_ += dt;
      if (graph_checked_ >= 0.5) {  // a designer's edit on disk shows within half a second
        graph_checked_ = 0;
        if (graph_->reload_if_changed()) status_message_ = "reloaded " + display_name(graph_->path());
      }
    }
    doc_->crowd_time += dt;
    update_ms_.add(ms_since(update_start));
  }
  if (doc_) {  // the camera's target keeps up with a character travelling by root motion
    const Vec3 at = doc_->playback->world().translation();
    if (follow_) camera_.follow(followed_, at);
    followed_ = at;
  }
  keep_recovery(dt);
  std::string title =
      doc_ ? display_name(doc_->path) + (unsaved() ? "* - Ossa viewer" : " - Ossa viewer") : "Ossa viewer";
  if (title != title_) window_->set_title(title_ = std::move(title));
  render_scene();
  draw_scene_overlay();
  const auto ui_start = Clock::now();
  ImGui::Render();
  window_->render_imgui();
  ui_ms_.add(ms_since(ui_start));
  (void)start;
}

int App::run() {
  settings_path_ = options_.settings_path.empty()  ? default_settings_path()
                   : options_.settings_path == "-" ? std::string()
                                                   : options_.settings_path;
  std::string warning;
  if (!settings_path_.empty()) settings_ = load_settings(settings_path_, &warning);
  if (!warning.empty()) std::fprintf(stderr, "ossa view: %s (using defaults)\n", warning.c_str());
  parse_lighting_mode(settings_.lighting, lighting_);
  grid_ = settings_.grid;
  skeleton_ = settings_.skeleton;
  if (!options_.script.empty()) {
    auto script = load_script(options_.script);
    if (!script) {
      std::fprintf(stderr, "ossa view: %s\n", script.error().c_str());
      return 2;
    }
    script_ = std::move(script).value();
    if (script_.empty()) script_.push_back({"quit", {}, {}, 0});
  }
  if (!create_window()) return 4;
  {
    window_->new_imgui_frame();  // the first layout needs the font: one empty frame
    ImGui::NewFrame();
    compute_layout();
    ImGui::EndFrame();
  }
  if (!options_.file.empty()) open(options_.file);
  if (doc_ && !options_.graph.empty()) open_graph(options_.graph);
  if (!error_.empty()) std::fprintf(stderr, "ossa view: %s\n", error_.c_str());
  while (!window_->closing() && !quit_) {
    window_->poll();
    const auto now = Clock::now();
    const float real_dt = std::min(std::chrono::duration<float>(now - last_frame_).count(), 0.1f);
    if (frames_ > 0) frame_ms_.add(std::chrono::duration<double, std::milli>(now - last_frame_).count());
    last_frame_ = now;
    const bool scripted = !script_.empty();
    if (scripted) run_script_actions();
    frame(scripted ? kScriptStep : real_dt);
    // Screenshots are taken by the next frame's actions from the back buffer: take them here, after drawing.
    if (scripted) {
      while (!quit_ && wait_frames_ == 0 && next_action_ < script_.size() &&
             script_[next_action_].action == "screenshot" && script_pointer_.empty())
        run_action(script_[next_action_++]);
    }
    const auto swap_start = Clock::now();
    window_->swap();  // where a software rasteriser (llvmpipe) does most of the frame's drawing
    swap_ms_.add(ms_since(swap_start));
    ++frames_;
  }
  if (!script_.empty())
    std::printf(
        "ossa view: %lld frames, %.2f ms per frame (update %.3f ms, draw %.2f ms, ui %.2f ms, swap %.2f "
        "ms)\n",
        frames_, frame_ms_.mean(), update_ms_.mean(), scene_ms_.mean(), ui_ms_.mean(), swap_ms_.mean());
  keep_recovery(0, true);  // edits left unsaved (a script's quit) stay recoverable; saved ones leave no copy
  if (!settings_path_.empty()) {
    int w = 0, h = 0;
    window_->size(w, h);
    settings_.window_width = w;
    settings_.window_height = h;
    settings_.lighting = to_string(lighting_);
    settings_.grid = grid_;
    settings_.skeleton = skeleton_;
    if (auto saved = save_settings(settings_path_, settings_); !saved)
      std::fprintf(stderr, "ossa view: settings not saved: %s\n", saved.error().c_str());
  }
  return status_;
}

}  // namespace

int run_viewer(const ViewerOptions& options) {
  App app(options);
  return app.run();
}

}  // namespace ossa::viewer
