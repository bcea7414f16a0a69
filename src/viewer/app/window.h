// The viewer's window and its graphics device, one implementation per platform: GLFW + OpenGL 4.5 on Linux
// (window_glfw_gl.cpp) and Win32 + Direct3D 11 on Windows (window_win32_d3d11.cpp). The viewer itself
// (viewer_window.cpp, docks.cpp and its panels in src/viewer/panels/) draws its panels with Dear ImGui and
// its scene with a CharacterRenderer made here, and calls no platform or graphics API of its own, so that
// both platforms run the same viewer and its scripted tests compare both with the same goldens.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "ossa/core/result.h"
#include "ossa/render/image.h"
#include "ossa/render/renderer.h"
#include "ossa/serialize/load.h"
#include "viewer/key_input.h"

namespace ossa::viewer {

// What the window reports, as it happens (inside poll()).
struct WindowEvents {
  std::function<bool()> close_requested;            // true: close now; false: the viewer asks first
  std::function<void(const std::string&)> dropped;  // a file dropped on the window (UTF-8 path)
  std::function<void(int, KeyAction)> key;          // a key (key_input.h's codes) pressed, repeated, released
  std::function<void(uint32_t)> character;          // a character typed (Unicode code point)
};

class Window {
 public:
  // Opens a window of `width` x `height` points with its device, and sets up Dear ImGui's platform and
  // renderer backends for the current ImGui context (which must exist). Null, with `error` saying why, where
  // there is no display or no device. `vsync` off: frames as fast as they can be drawn (scripts).
  static std::unique_ptr<Window> open(int width, int height, bool vsync, WindowEvents events,
                                      std::string& error);
  virtual ~Window() = default;

  virtual float content_scale() const = 0;               // the monitor's scale (high DPI), 1 if none
  virtual void size(int& width, int& height) const = 0;  // in points: what the panels are laid out in
  virtual void framebuffer_size(int& width, int& height) const = 0;  // in pixels
  virtual void set_title(const std::string& title) = 0;              // UTF-8
  virtual bool closing() const = 0;                                  // closed by the user
  virtual void poll() = 0;  // takes the events waiting (WindowEvents)

  // Dear ImGui: a frame's start (its backends' NewFrame), a key or character the viewer's queue hands on
  // (key_input.h: keys reach ImGui only through it), and the drawing of the frame's panels.
  virtual void new_imgui_frame() = 0;
  virtual void key_to_imgui(int key, KeyAction action) = 0;
  virtual void character_to_imgui(uint32_t codepoint) = 0;
  virtual void render_imgui() = 0;

  // The scene: the back buffer cleared, a renderer for a character on this window's device, and a renderer's
  // frame copied into the back buffer with its top-left corner at pixel (x, y).
  virtual void clear() = 0;
  virtual Result<std::unique_ptr<CharacterRenderer>> create_renderer(const LoadedCharacter& character) = 0;
  virtual void present(CharacterRenderer& renderer, int x, int y, int height) = 0;

  virtual Image read_back() = 0;  // the back buffer as drawn so far, top row first, opaque
  virtual void swap() = 0;        // shows the frame
  // The first connected gamepad's left stick (x right, y forward, each in [-1, 1], a 0.15 dead zone) and
  // whether its right trigger or right bumper is held (run); false when there is none (the default).
  virtual bool gamepad(Vec2& /*stick*/, bool& /*run*/) { return false; }
};

}  // namespace ossa::viewer
