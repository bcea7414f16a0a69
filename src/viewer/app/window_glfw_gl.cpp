// The viewer's window on Linux (window.h): GLFW makes it with an OpenGL 4.5 core context (through GLX, or EGL
// where a driver gives 4.5 only there), Dear ImGui draws through its GLFW and OpenGL 3 backends, and the
// OpenGL renderer draws the scene into its own framebuffer, blitted into the back buffer.
#include <epoxy/gl.h>
// GLFW after epoxy: epoxy has declared GL already, GLFW must not include the system GL header.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ossa/render/gl_renderer.h"
#include "viewer/app/window.h"

namespace ossa::viewer {
namespace {

class GlfwGlWindow final : public Window {
 public:
  explicit GlfwGlWindow(WindowEvents events) : events_(std::move(events)) {}
  ~GlfwGlWindow() override {
    gl_.reset();
    if (imgui_ready_) {
      ImGui_ImplOpenGL3_Shutdown();
      ImGui_ImplGlfw_Shutdown();
    }
    if (window_) glfwDestroyWindow(window_);
    glfwTerminate();
  }

  bool open(int width, int height, bool vsync, std::string& error) {
    glfwSetErrorCallback(
        [](int, const char* message) { std::fprintf(stderr, "ossa view: GLFW: %s\n", message); });
    if (!glfwInit()) {
      error = "cannot open a window (no display? run under a desktop or xvfb-run)";
      return false;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);  // high-DPI: the window keeps its size in points
    window_ = glfwCreateWindow(width, height, "Ossa viewer", nullptr, nullptr);
    if (!window_) {
      // Some drivers give OpenGL 4.5 through EGL only.
      glfwWindowHint(GLFW_CONTEXT_CREATION_API, GLFW_EGL_CONTEXT_API);
      window_ = glfwCreateWindow(width, height, "Ossa viewer", nullptr, nullptr);
    }
    if (!window_) {
      error = "cannot create an OpenGL 4.5 core window";
      return false;
    }
    glfwMakeContextCurrent(window_);
    glfwSwapInterval(vsync ? 1 : 0);
    auto gl = GlContext::adopt_current();
    if (!gl) {
      error = gl.error();
      return false;
    }
    gl_ = std::move(gl).value();
    glfwSetWindowUserPointer(window_, this);
    glfwSetWindowCloseCallback(window_, [](GLFWwindow* w) {
      auto* self = static_cast<GlfwGlWindow*>(glfwGetWindowUserPointer(w));
      if (!self->events_.close_requested()) glfwSetWindowShouldClose(w, GLFW_FALSE);  // asked first
    });
    glfwSetDropCallback(window_, [](GLFWwindow* w, int count, const char** paths) {
      auto* self = static_cast<GlfwGlWindow*>(glfwGetWindowUserPointer(w));
      if (count > 0) self->events_.dropped(paths[0]);
    });
    ImGui_ImplGlfw_InitForOpenGL(window_, true);
    // Keys and characters go to the viewer's queue instead of straight into Dear ImGui (key_input.h): these
    // replace the callbacks the backend installed; the pointer's stay the backend's.
    glfwSetKeyCallback(window_, [](GLFWwindow* w, int key, int, int action, int) {
      static_cast<GlfwGlWindow*>(glfwGetWindowUserPointer(w))
          ->events_.key(key, static_cast<KeyAction>(action));
    });
    glfwSetCharCallback(window_, [](GLFWwindow* w, unsigned int codepoint) {
      static_cast<GlfwGlWindow*>(glfwGetWindowUserPointer(w))->events_.character(codepoint);
    });
    ImGui_ImplOpenGL3_Init("#version 450");
    imgui_ready_ = true;
    return true;
  }

  float content_scale() const override {
    float x = 1, y = 1;
    glfwGetWindowContentScale(window_, &x, &y);
    return std::max(x, y);
  }
  void size(int& width, int& height) const override { glfwGetWindowSize(window_, &width, &height); }
  void framebuffer_size(int& width, int& height) const override {
    glfwGetFramebufferSize(window_, &width, &height);
  }
  void set_title(const std::string& title) override { glfwSetWindowTitle(window_, title.c_str()); }
  bool closing() const override { return glfwWindowShouldClose(window_); }
  void poll() override { glfwPollEvents(); }

  void new_imgui_frame() override {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
  }
  // Through the GLFW backend's own handlers, which also keep Ctrl, Shift and Alt.
  void key_to_imgui(int key, KeyAction action) override {
    ImGui_ImplGlfw_KeyCallback(window_, key, 0, static_cast<int>(action), 0);
  }
  void character_to_imgui(uint32_t codepoint) override { ImGui_ImplGlfw_CharCallback(window_, codepoint); }
  void render_imgui() override { ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData()); }

  void clear() override {
    int width = 0, height = 0;
    framebuffer_size(width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, width, height);
    glClearColor(0.1f, 0.1f, 0.12f, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  }
  Result<std::unique_ptr<CharacterRenderer>> create_renderer(const LoadedCharacter& c) override {
    return create_gl_renderer(gl_, c.asset, c.materials, c.textures, c.flip_textures);
  }
  void present(CharacterRenderer& renderer, int x, int y, int height) override {
    int fb_w = 0, fb_h = 0;
    framebuffer_size(fb_w, fb_h);
    // Cannot fail: the renderer is an OpenGL one made by create_renderer(). GL counts rows from the bottom.
    (void)present_gl_frame(renderer, x, fb_h - (y + height));
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, fb_w, fb_h);
  }

  Image read_back() override {
    int width = 0, height = 0;
    framebuffer_size(width, height);
    Image image;
    image.width = width;
    image.height = height;
    image.rgba.resize(static_cast<size_t>(width) * height * 4);
    std::vector<uint8_t> rows(image.rgba.size());
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
    const size_t row = static_cast<size_t>(width) * 4;
    for (int y = 0; y < height; ++y) std::copy_n(&rows[(height - 1 - y) * row], row, &image.rgba[y * row]);
    for (size_t i = 3; i < image.rgba.size(); i += 4) image.rgba[i] = 255;  // the window is opaque
    return image;
  }
  void swap() override { glfwSwapBuffers(window_); }

  // GLFW's gamepad mapping (SDL's database): the same axes whatever the pad.
  bool gamepad(Vec2& stick, bool& run) override {
    for (int pad = GLFW_JOYSTICK_1; pad <= GLFW_JOYSTICK_LAST; ++pad) {
      GLFWgamepadstate state;
      if (!glfwJoystickIsGamepad(pad) || !glfwGetGamepadState(pad, &state)) continue;
      const float x = state.axes[GLFW_GAMEPAD_AXIS_LEFT_X], y = -state.axes[GLFW_GAMEPAD_AXIS_LEFT_Y];
      const float length = std::hypot(x, y);
      stick = length < 0.15f ? Vec2{} : Vec2{x, y};
      run = state.axes[GLFW_GAMEPAD_AXIS_RIGHT_TRIGGER] > 0 ||
            state.buttons[GLFW_GAMEPAD_BUTTON_RIGHT_BUMPER] == GLFW_PRESS;
      return true;
    }
    return false;
  }

 private:
  WindowEvents events_;
  GLFWwindow* window_ = nullptr;
  std::shared_ptr<GlContext> gl_;
  bool imgui_ready_ = false;
};

}  // namespace

std::unique_ptr<Window> Window::open(int width, int height, bool vsync, WindowEvents events,
                                     std::string& error) {
  auto window = std::make_unique<GlfwGlWindow>(std::move(events));
  if (!window->open(width, height, vsync, error)) return nullptr;
  return window;
}

}  // namespace ossa::viewer
