// What the viewer remembers between runs: window size, recent files, lighting and display toggles. Kept in
// the user's config folder ($XDG_CONFIG_HOME/ossa/viewer.json, else ~/.config/ossa/viewer.json; on Windows
// %APPDATA%\ossa\viewer.json), never next to a model. A damaged or hostile file gives the defaults, never an
// error that stops the viewer; values are clamped to sane ranges.
// The file: {"window_width", "window_height", "recent_files", "lighting", "grid", "skeleton", "left_panel",
// "right_panel", "bottom_panel", "font_scale"}, unknown keys
// ignored. A missing file (the first run) gives the defaults without a warning; a bad value loses only itself
// (the others are kept, the warning names it); files over 1 MiB or nested deeper than 64 are refused whole.
// parse_lighting_mode's aliases ("blinn", "texture") read as the canonical names; recent paths that JSON
// cannot hold (not UTF-8) are not written.
#pragma once

#include <string>
#include <vector>

#include "ossa/core/result.h"

namespace ossa::viewer {

struct ViewerSettings {
  // Window sides are clamped to [kMinWindowSide, kMaxWindowSide] (a larger window would ask for gigabytes of
  // frame buffers; no display is that large).
  static constexpr int kMinWindowSide = 320, kMaxWindowSide = 8192;
  int window_width = 1280, window_height = 800;
  std::vector<std::string> recent_files;  // newest first, at most kMaxRecentFiles, no duplicates
  std::string lighting = "blinn-phong";   // a name parse_lighting_mode accepts
  bool grid = true, skeleton = false;
  static constexpr int kMaxRecentFiles = 10;
  // Panel sizes in points (scaled with the monitor's content scale), dragged at their edges; the window keeps
  // the 3D view at least kMinScene points each way by shrinking them.
  static constexpr int kMinPanel = 120, kMaxPanel = 2000, kMinScene = 160;
  int left_panel = 300, right_panel = 340, bottom_panel = 250;
  // Text size, over the monitor's content scale.
  static constexpr double kMinFontScale = 0.75, kMaxFontScale = 2.5;
  double font_scale = 1;

  void add_recent(const std::string& path);  // moves it to the front
};

// The settings file's path ("" when no config folder can be found: nothing is remembered).
std::string default_settings_path();
// Defaults for a missing, unreadable or invalid file (and a message in `warning` saying why, "" when none).
ViewerSettings load_settings(const std::string& path, std::string* warning = nullptr);
std::string settings_to_json(const ViewerSettings& settings);
ViewerSettings settings_from_json(const std::string& text, std::string* warning = nullptr);
// Creates the folder when needed; atomic write.
Result<bool> save_settings(const std::string& path, const ViewerSettings& settings);

}  // namespace ossa::viewer
