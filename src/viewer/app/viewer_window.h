// `ossa view`: the viewer's window (Dear ImGui and a renderer, over GLFW + OpenGL or Win32 + Direct3D 11:
// window.h) over the plain classes beside it (Playback, NotifyDocument, TimelineView, OrbitCamera, scripts,
// settings).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "ossa/core/result.h"
#include "ossa/serialize/load.h"

namespace ossa::viewer {

// Reads a model file or a .ossa (the CLI passes the guarded importer). `notifies_path`: a sidecar to use
// instead of the file's own ("" for the usual order of ossa/serialize/load.h).
using LoadCharacter = std::function<Result<std::shared_ptr<const LoadedCharacter>>(
    const std::string& path, const std::string& notifies_path)>;

struct ViewerOptions {
  std::string file;           // opened at start ("" for none: drop a file on the window, or File > Open)
  std::string notifies;       // the sidecar to author instead of MODEL.notifies.json beside the file
  std::string graph;          // an animation graph to drive the file with (Inspect > Graph)
  std::string script;         // run these actions at fixed 1/60 s steps, then exit (script.h)
  std::string settings_path;  // default_settings_path() when empty; "-" remembers nothing
  int width = 0, height = 0;  // window size; 0: the remembered one
  LoadCharacter load;
};

// Runs until the window closes or the script quits. 0, or the script's status (1 when an action failed);
// 4 when no window can be made (no display, no OpenGL 4.5 or Direct3D 11 device).
int run_viewer(const ViewerOptions& options);

}  // namespace ossa::viewer
