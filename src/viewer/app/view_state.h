// What the viewer's panels share: the document open (character, renderer, playback, notifies being authored),
// what drives the character's pose (its playback, an animation graph, and a second character retargeted from
// it), the selection, the camera and display switches, the time axis the bottom panels share, the messages
// shown, and the requests a panel makes of another (open the file browser, ask before quitting).
//
// Panels (panel.h) read and change this and nothing of each other's: what one panel does reaches another only
// through here. What a panel alone needs (a text field being typed, a cache, a drag) stays in the panel.
// Plain data with a few operations that several panels need (open a file, save the notifies, the pose shown);
// no drawing.
#pragma once

#include <imgui.h>

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ossa/render/baked_animation.h"
#include "ossa/render/renderer.h"
#include "ossa/serialize/load.h"
#include "viewer/app/viewer_window.h"
#include "viewer/dope_sheet.h"
#include "viewer/graph_document.h"
#include "viewer/motion_matching_session.h"
#include "viewer/notify_document.h"
#include "viewer/orbit_camera.h"
#include "viewer/playback.h"
#include "viewer/recovery.h"
#include "viewer/retarget_session.h"
#include "viewer/settings.h"
#include "viewer/timeline.h"

namespace ossa::viewer {

class Window;

inline constexpr int kMaxCrowd = 1000;
inline constexpr const char* kLightingNames[] = {"phong", "blinn-phong", "lambert", "unlit", "texture-only"};
inline constexpr const char* kSkinningNames[] = {"gpu", "cpu", "baked"};
inline constexpr const char* kLoopNames[] = {"once", "repeat", "pingpong"};
inline constexpr const char* kGroundNames[] = {"flat", "slope"};   // Playback::Ground
enum Skinning { kSkinPalette = 0, kSkinCpu = 1, kSkinBaked = 2 };  // kSkinningNames

template <size_t N>
int index_of(const char* const (&names)[N], const std::string& name) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<int>(i);
  return -1;
}

// A file's name without its folder: what the window shows (the full path is in the recent-files menu).
std::string display_name(const std::string& path);
// A titled separator (ImGui 1.86 has no SeparatorText).
void section(const char* title);

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start);

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

// Panel sizes in window coordinates (scaled by the monitor's content scale).
enum class Edge { kNone, kLeft, kRight, kBottom };
struct Layout {
  float left = 300, right = 330, bottom = 250, menu = 0;
  float scene_x = 0, scene_y = 0, scene_w = 1, scene_h = 1;
  Edge resizing = Edge::kNone;  // a panel's inner edge being dragged
};

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
  std::vector<Mat4> bind_model;     // the pose the meshes were bound in: each joint's inverse bind, inverted
  std::shared_ptr<const NotifySet> edited_notifies;  // the notifies as last edited (null: never edited)
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

// The display switches (View menu, Display section, keys).
struct Display {
  LightingMode lighting = LightingMode::kBlinnPhong;
  int skinning = kSkinPalette;  // kSkinningNames
  bool grid = true, skeleton = false;
  bool joint_names = false;  // names beside the joints
  bool joint_axes = false;   // each joint's x, y and z axes
  bool bind_pose = false;    // the character in the pose its meshes were bound in, not animated
  bool onion = false;        // ghost skeletons 3 and 6 frames before (blue) and after (green) the playhead
  bool trail = false;        // the selected joint's path over the whole clip
  bool follow = false;       // the camera's target moves with the character (root motion)
  int crowd = 0;             // baked instances behind the character
};

// The time axis the timeline, the dope sheet and the curve view share (one TimelineView: zooming one zooms
// all), and what is being dragged on it.
enum class Drag { kNone, kScrub, kMove, kResize, kPan };
struct TimeAxis {
  TimelineView view;
  int clip = -2;  // the clip the view was set up for
  Drag drag = Drag::kNone;
};

// The dope sheet's rows (made when the clip, or the asset: root motion makes its own, changes), the row
// selected in it and the channel the curve view shows.
struct ChannelSelection {
  DopeSheet dope;
  const CharacterAsset* asset = nullptr;
  int clip = -2;
  int row = -1;  // the selected row
  ChannelKind kind = ChannelKind::kRotation;
  bool euler = true;
};

// The clip the character plays, whatever drives it: the playback's base clip, or the clip of the state an
// animation graph's first layer is in; what the timeline, the dope sheet, the curves, the notify editor and
// the Clip tab show.
struct ShownClip {
  int clip = -1;     // -1: no one clip plays (a graph in a blend space or an empty state; no clip at all)
  float time = 0;    // the clip's time
  std::string what;  // under a graph: its layer, state and what plays ("graph: base in Turn, Armature|Turn")
};

// Unsaved edits are never thrown away: opening another file or quitting asks first (save, discard, cancel),
// and a recovery copy is kept beside the settings while they are unsaved (viewer/recovery.h).
enum class Pending { kNone, kOpen, kQuit };

struct ViewState {
  explicit ViewState(const ViewerOptions& o) : options(o) {}

  const ViewerOptions& options;
  Window* window = nullptr;
  ViewerSettings settings;
  std::string settings_path;
  float ui_scale = 1;
  Layout layout;

  // What is open, and what drives it: the playback, or an animation graph when one is open; a retargeted
  // character plays beside it.
  std::unique_ptr<Document> doc;
  std::unique_ptr<RetargetView> retarget;  // needs doc (its character is the source)
  std::unique_ptr<GraphDocument> graph;    // an animation graph drives the character (Inspect > Graph)
  // The file's motion-matching database, when it has one (Inspect > Motion matching); it drives the character
  // while `matching_on`: the stick from a gamepad, WASD (shift runs) or a script's mm-stick.
  std::unique_ptr<MotionMatchingSession> matching;
  bool matching_on = false;
  std::optional<std::pair<Vec2, bool>> scripted_stick;  // mm-stick X Y [run]: wins over the keys and pad

  // Selection
  int selected_joint = -1, hovered_joint = -1;
  int reveal_joint = -1;  // picked in the view: the Joints tab opens on it, its parents expanded
  uint32_t selected_notify = 0;
  ChannelSelection channel;

  OrbitCamera camera;
  Display display;
  int drawn_skinning = kSkinPalette;  // the path the 3D view drew with (baked falls back: baked_limit())
  FrameSettings frame;  // the 3D view as last drawn (size, camera, lighting, grid): exports draw with it
  Mat4 view_proj;       // and its projection (points in the scene to the window)
  TimeAxis axis;

  std::string error;                  // shown until dismissed
  std::string status_message;         // last save, etc.
  std::string title = "Ossa viewer";  // the window's title: the file, '*' while edits are unsaved

  // Requests between panels and to the window.
  bool show_open = false;                  // File > Open's browser
  bool show_export_gltf = false;           // File > Export glTF's prompt
  bool show_export_view = false;           // File > Export view's prompt
  bool show_graph_tab = false;             // bring Inspect > Graph forward (a graph was just opened)
  bool show_retarget_tab = false;          // bring Inspect > Retarget forward (a target was just opened)
  std::string inspect_tab;                 // the right window's tab (a kInspect panel's name; "": the first)
  std::string bottom_tab = "Notifies";     // the bottom window's tab (a kBottom panel's name)
  bool select_bottom_tab = false;          // a script (or a pick) chose it: brought forward next frame
  std::vector<std::string> pending_drops;  // files to open (dropped, File > Recent)
  bool quit = false;

  // Unsaved edits and their recovery copy.
  Pending pending = Pending::kNone;
  std::string pending_path;
  bool ask_unsaved = false;                      // the prompt is to be opened
  std::optional<RecoveryCopy> offered_recovery;  // a copy found when the model was opened, not yet answered
  bool ask_recovery = false;
  std::string recovery_file;     // the open document's copy ("" when none is kept)
  std::string recovery_written;  // what that copy holds ("" when there is none)
  float recovery_clock = 0;
  static constexpr float kRecoveryInterval = 2;  // seconds between copies while edits are unsaved

  // Scripts: the last frame's named fields (click-field), and the run's status.
  std::unordered_map<std::string, std::pair<ImVec2, ImVec2>> fields;
  int status = 0;

  // Timings
  Average frame_ms, update_ms, scene_ms, ui_ms, swap_ms;

  // Called after a document was opened (the panels forget what belonged to the last one).
  std::function<void()> on_opened;

  // Opens a model file or .ossa (its notifies from the sidecar beside it); an error keeps what was open.
  void open(const std::string& path);
  void request_open(const std::string& path);  // asks first when edits are unsaved
  void request_quit();
  bool unsaved() const { return doc && doc->notifies.dirty(); }
  void keep_recovery(float dt, bool now = false);
  void edited(const std::string& refusal);  // after a notify edit: the Animator fires the new set
  void select_clip(int clip);
  void save_notifies(const std::string& path);
  bool prepare_bake();
  void open_graph(const std::string& path);
  void remember_field(const char* label);  // the last ImGui item, for click-field

  // The pose of what drives the character: the motion matcher's while it drives, the graph's when one is
  // open, else the playback's (its blend space, layer and planted feet included).
  std::span<const Mat4> pose_model() const;
  std::span<const JointPose> pose_locals() const;
  const Mat4& pose_world() const;  // where the pose is drawn: the matcher's root, else the playback's world
  const CharacterAsset& pose_asset()
      const;  // the clips it samples (the playback's are in place with root motion)
  std::span<const Mat4> shown_model() const;  // pose_model(), or the bind pose while View > Bind pose is on
  ShownClip shown_clip() const;
  const Clip* clip_at(int clip) const;  // the document's clip, or null
  float on_frame(float time) const;     // `time` snapped to the shown clip's nearest frame
  // Why the baked path (each clip's frames baked into a texture) cannot draw the pose shown ("" when it
  // can): the view then draws it with GPU palettes, and says so.
  std::string baked_limit() const;
};

}  // namespace ossa::viewer
