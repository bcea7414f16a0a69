// The viewer: the window (window.h: GLFW + OpenGL on Linux, Win32 + Direct3D 11 on Windows) and its frame
// loop. The panels (panel.h, one file each in src/viewer/panels/) draw with Dear ImGui in their docks
// (docks.h) over the state they share (view_state.h); the scene panel draws the character into its own frame,
// copied into the middle of the window. Scripts inject the same pointer and keys the user would give, so the
// scripted tests drive the real window; their verbs are looked up in the table the panels fill.

#include "viewer/app/viewer_window.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>

#include "ossa/render/image.h"
#include "viewer/app/docks.h"
#include "viewer/app/window.h"
#include "viewer/key_input.h"
#include "viewer/panels/panels.h"
#include "viewer/script.h"
#include "viewer/text.h"

namespace ossa::viewer {

namespace {

constexpr float kScriptStep = 1.f / 60;

class App {
 public:
  explicit App(const ViewerOptions& options);
  ~App();
  int run();

 private:
  bool create_window();
  void frame(float dt);
  void feed_keys();
  // Script
  void add_script_actions();  // the verbs of the script itself: input, waiting, screenshots, quitting
  void run_script_actions();
  bool run_action(const ScriptAction& a) { return actions_.run(ActionCall(s_, a, s_.options.script)); }
  bool screenshot(const std::string& path);

  ViewState s_;
  std::unique_ptr<Window> window_;
  bool imgui_ready_ = false;  // the ImGui context is made
  std::vector<std::unique_ptr<Panel>> panels_;
  std::unique_ptr<ScenePanel> scene_;
  ActionTable actions_;
  double graph_checked_ = 0;  // seconds since the graph file was last looked at
  Vec3 followed_{};           // where the character was at the last frame followed
  Clock::time_point last_frame_ = Clock::now();
  long long frames_ = 0;
  // Script
  std::vector<ScriptAction> script_;
  size_t next_action_ = 0;
  int wait_frames_ = 0;
  ImVec2 script_mouse_{-FLT_MAX, -FLT_MAX};
  bool script_down_ = false;
  std::vector<std::pair<ImVec2, bool>> script_pointer_;  // queued (position, button down), one per frame
  // Keyboard: the window's callbacks (or a script) queue events; each frame takes its share (key_input.h).
  KeyInput keys_;
  std::vector<int> held_keys_;  // script: `hold`, auto-repeating for held_frames_ more frames
  int held_frames_ = 0;
};

App::App(const ViewerOptions& options) : s_(options), panels_(make_panels()), scene_(make_scene_panel()) {
  for (const auto& panel : panels_) panel->add_actions(actions_);
  scene_->add_actions(actions_);
  add_dock_actions(actions_);
  add_script_actions();
  s_.on_opened = [this] {
    for (const auto& panel : panels_) panel->opened(s_);
    scene_->opened(s_);
  };
}

App::~App() {
  // Renderers first: they draw on the window's device.
  s_.retarget.reset();
  s_.doc.reset();
  window_.reset();
  if (imgui_ready_) ImGui::DestroyContext();
}

bool App::create_window() {
  const int width = s_.options.width > 0 ? s_.options.width : s_.settings.window_width;
  const int height = s_.options.height > 0 ? s_.options.height : s_.settings.window_height;
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  imgui_ready_ = true;
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // panel layout is fixed; settings live in viewer.json
  WindowEvents events;
  events.close_requested = [this] {
    if (!s_.unsaved()) return true;
    s_.request_quit();  // asked first
    return false;
  };
  events.dropped = [this](const std::string& path) { s_.pending_drops.push_back(path); };
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
  s_.window = window_.get();
  s_.ui_scale = std::clamp(window_->content_scale(), 1.f, 4.f);
  ImGui::StyleColorsDark();
  ImGui::GetStyle().ScaleAllSizes(s_.ui_scale);
  io.FontGlobalScale = s_.ui_scale;
  return true;
}

// ------------------------------------------------------------------------------------------------ script

void App::add_script_actions() {
  using Needs = ActionTable::Needs;
  actions_.add("wait", Needs::kNothing, [this](const ActionCall& c) {
    wait_frames_ = static_cast<int>(c.number(0));
    return true;
  });
  actions_.add("quit", Needs::kNothing, [](const ActionCall& c) {
    if (!c.a.numbers.empty()) c.s.status = static_cast<int>(c.number(0));
    c.s.quit = true;
    return true;
  });
  actions_.add("screenshot", Needs::kNothing, [this](const ActionCall& c) {
    return screenshot(c.word(0)) || c.fail("cannot write " + c.word(0));
  });
  for (const char* verb : {"click", "drag", "tap"}) {
    const std::string kind = verb;
    actions_.add(verb, Needs::kNothing, [this, kind](const ActionCall& c) {
      const ImVec2 from(c.number_f(0), c.number_f(1));
      if (kind != "tap") script_pointer_.push_back({from, false});  // tap: arrives and presses in one poll
      script_pointer_.push_back({from, true});
      if (kind == "drag") {
        const ImVec2 to(c.number_f(2), c.number_f(3));
        for (int i = 1; i <= 6; ++i) {
          const float t = static_cast<float>(i) / 6;
          script_pointer_.push_back(
              {ImVec2(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t), true});
        }
        script_pointer_.push_back({to, false});
      } else {
        script_pointer_.push_back({from, false});
      }
      return true;
    });
  }
  for (const char* verb : {"key", "hold"}) {
    const bool hold = std::string(verb) == "hold";
    actions_.add(verb, Needs::kNothing, [this, hold](const ActionCall& c) {
      // All in one poll, as at a low frame rate: modifiers, the key, then (key) the releases.
      const std::vector<int> combo = parse_key_combo(c.word(0));
      for (int key : combo) keys_.push_key(key, KeyAction::kPress);
      if (hold) {
        held_keys_ = combo;
        held_frames_ = static_cast<int>(c.number(0));
      } else {
        for (auto key = combo.rbegin(); key != combo.rend(); ++key) keys_.push_key(*key, KeyAction::kRelease);
      }
      return true;
    });
  }
  actions_.add("type", Needs::kNothing, [this](const ActionCall& c) {
    for (char32_t ch : utf8_code_points(c.word(0))) keys_.push_character(static_cast<uint32_t>(ch));
    return true;
  });
  actions_.add("click-field", Needs::kNothing, [this](const ActionCall& c) {
    const auto field = s_.fields.find(c.word(0));
    if (field == s_.fields.end()) return c.fail("no field '" + c.word(0) + "' was drawn");
    const ImVec2 center((field->second.first.x + field->second.second.x) / 2,
                        (field->second.first.y + field->second.second.y) / 2);
    script_pointer_.push_back({center, false});
    script_pointer_.push_back({center, true});
    script_pointer_.push_back({center, false});
    return true;
  });
}

void App::run_script_actions() {
  if (wait_frames_ > 0) {
    --wait_frames_;
    return;
  }
  // A screenshot waits for the frame to be drawn (run() takes it after drawing, before the swap).
  // Input a script gave is taken first (a key's press and release arrive in separate frames).
  auto input_done = [&] { return script_pointer_.empty() && keys_.pending() == 0 && held_frames_ == 0; };
  while (!s_.quit && wait_frames_ == 0 && next_action_ < script_.size() && input_done() &&
         script_[next_action_].action != "screenshot")
    run_action(script_[next_action_++]);
  if (next_action_ >= script_.size() && wait_frames_ == 0 && input_done()) s_.quit = true;
}

bool App::screenshot(const std::string& path) {
  auto written = write_png(window_->read_back(), path);
  if (!written) std::fprintf(stderr, "ossa view: %s\n", written.error().c_str());
  return static_cast<bool>(written);
}

// ------------------------------------------------------------------------------------------------ frame

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

void App::frame(float dt) {
  if (!s_.pending_drops.empty()) s_.request_open(s_.pending_drops.back());  // the last one asked for
  s_.pending_drops.clear();

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
  io.FontGlobalScale = s_.ui_scale * static_cast<float>(s_.settings.font_scale);
  ImGui::NewFrame();
  compute_layout(s_);
  resize_panels(s_);

  if (!io.WantTextInput) {  // keys, not while typing in a field
    for (const auto& panel : panels_) panel->keys(s_, keys_, io.KeyCtrl);
    scene_->keys(s_, keys_, io.KeyCtrl);
  }
  draw_docks(s_, panels_);
  scene_->input(s_);

  if (s_.doc) {
    const auto update_start = Clock::now();
    s_.doc->playback->update(dt);
    if (s_.graph) {
      if (!s_.doc->playback->paused()) s_.graph->update(dt);
      graph_checked_ += dt;
      if (graph_checked_ >= 0.5) {  // a designer's edit on disk shows within half a second
        graph_checked_ = 0;
        if (s_.graph->reload_if_changed()) s_.status_message = "reloaded " + display_name(s_.graph->path());
      }
    }
    // The stick (set by Inspect > Motion matching's keys) drives the matcher, paused with the playback.
    if (s_.matching && s_.matching_on && !s_.doc->playback->paused())
      s_.matching->update(s_.matching->stick, s_.matching->run, dt);
    s_.doc->crowd_time += dt;
    s_.update_ms.add(ms_since(update_start));
    // The camera's target keeps up with a character travelling by root motion or motion matching.
    const Vec3 at = s_.pose_world().translation();
    if (s_.display.follow) s_.camera.follow(followed_, at);
    followed_ = at;
  }
  s_.keep_recovery(dt);
  std::string title = s_.doc
                          ? display_name(s_.doc->path) + (s_.unsaved() ? "* - Ossa viewer" : " - Ossa viewer")
                          : "Ossa viewer";
  if (title != s_.title) window_->set_title(s_.title = std::move(title));
  scene_->render(s_);
  scene_->draw(s_);
  const auto ui_start = Clock::now();
  ImGui::Render();
  window_->render_imgui();
  s_.ui_ms.add(ms_since(ui_start));
}

int App::run() {
  const ViewerOptions& options = s_.options;
  s_.settings_path = options.settings_path.empty()  ? default_settings_path()
                     : options.settings_path == "-" ? std::string()
                                                    : options.settings_path;
  std::string warning;
  if (!s_.settings_path.empty()) s_.settings = load_settings(s_.settings_path, &warning);
  if (!warning.empty()) std::fprintf(stderr, "ossa view: %s (using defaults)\n", warning.c_str());
  parse_lighting_mode(s_.settings.lighting, s_.display.lighting);
  s_.display.grid = s_.settings.grid;
  s_.display.skeleton = s_.settings.skeleton;
  if (!options.script.empty()) {
    auto script = load_script(options.script);
    if (!script) {
      std::fprintf(stderr, "ossa view: %s\n", script.error().c_str());
      return 2;
    }
    script_ = std::move(script).value();
    if (script_.empty()) script_.push_back({"quit", {}, {}, 0});
    // Every action of the grammar has a verb in the table (a panel left out of make_panels() would leave
    // its verbs failing mid-run).
    std::string missing;
    for (const std::string& action : script_action_names())
      if (!actions_.has(action)) missing += " " + action;
    if (!missing.empty()) {
      std::fprintf(stderr, "ossa view: no panel runs these script actions:%s\n", missing.c_str());
      return 2;
    }
  }
  if (!create_window()) return 4;
  {
    window_->new_imgui_frame();  // the first layout needs the font: one empty frame
    ImGui::NewFrame();
    compute_layout(s_);
    ImGui::EndFrame();
  }
  if (!options.file.empty()) s_.open(options.file);
  if (s_.doc && !options.graph.empty()) s_.open_graph(options.graph);
  if (!s_.error.empty()) std::fprintf(stderr, "ossa view: %s\n", s_.error.c_str());
  while (!window_->closing() && !s_.quit) {
    window_->poll();
    const auto now = Clock::now();
    const float real_dt = std::min(std::chrono::duration<float>(now - last_frame_).count(), 0.1f);
    if (frames_ > 0) s_.frame_ms.add(std::chrono::duration<double, std::milli>(now - last_frame_).count());
    last_frame_ = now;
    const bool scripted = !script_.empty();
    if (scripted) run_script_actions();
    frame(scripted ? kScriptStep : real_dt);
    // Screenshots are taken by the next frame's actions from the back buffer: take them here, after drawing.
    if (scripted) {
      while (!s_.quit && wait_frames_ == 0 && next_action_ < script_.size() &&
             script_[next_action_].action == "screenshot" && script_pointer_.empty())
        run_action(script_[next_action_++]);
    }
    const auto swap_start = Clock::now();
    window_->swap();  // where a software rasteriser (llvmpipe) does most of the frame's drawing
    s_.swap_ms.add(ms_since(swap_start));
    ++frames_;
  }
  if (!script_.empty())
    std::printf(
        "ossa view: %lld frames, %.2f ms per frame (update %.3f ms, draw %.2f ms, ui %.2f ms, swap %.2f "
        "ms)\n",
        frames_, s_.frame_ms.mean(), s_.update_ms.mean(), s_.scene_ms.mean(), s_.ui_ms.mean(),
        s_.swap_ms.mean());
  s_.keep_recovery(0,
                   true);  // edits left unsaved (a script's quit) stay recoverable; saved ones leave no copy
  if (!s_.settings_path.empty()) {
    int w = 0, h = 0;
    window_->size(w, h);
    s_.settings.window_width = w;
    s_.settings.window_height = h;
    s_.settings.lighting = to_string(s_.display.lighting);
    s_.settings.grid = s_.display.grid;
    s_.settings.skeleton = s_.display.skeleton;
    if (auto saved = save_settings(s_.settings_path, s_.settings); !saved)
      std::fprintf(stderr, "ossa view: settings not saved: %s\n", saved.error().c_str());
  }
  return s_.status;
}

}  // namespace

int run_viewer(const ViewerOptions& options) {
  App app(options);
  return app.run();
}

}  // namespace ossa::viewer
