// The viewer's keyboard, as the window receives it: GLFW's key and character callbacks push events here, and
// each frame takes its share of them. Plain C++ (no GLFW, no ImGui): key codes and actions are GLFW's
// numbers.
//
// Why a queue of our own: Dear ImGui 1.86 (Debian's) reads a key's state once a frame, so a press and its
// release inside one poll (a short tap at the 13-20 frames per second llvmpipe gives) were never seen, and
// its IsKeyPressed() repeats a held key, so holding N added a notify every frame. Here:
// - a frame takes events in order and stops before a second change of a key it already changed (or before a
//   character after such a stop), so every press is down for at least one frame, in the order typed;
// - `pressed(key)` is true in the one frame that takes a press: an action runs once per press, whatever the
//   key repeat; `pressed_or_repeated(key)` also counts the system's auto-repeat (for stepping frames).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ossa::viewer {

// GLFW's key codes (glfw3.h, stable across its versions): the viewer's keys on every platform (the Windows
// window translates its virtual-key codes to these). Letters and digits are their upper-case ASCII codes.
namespace key {
inline constexpr int kSpace = 32, kEscape = 256, kEnter = 257, kTab = 258, kBackspace = 259, kInsert = 260,
                     kDelete = 261, kRight = 262, kLeft = 263, kDown = 264, kUp = 265, kPageUp = 266,
                     kPageDown = 267, kHome = 268, kEnd = 269, kF1 = 290, kF12 = 301, kLeftShift = 340,
                     kLeftControl = 341, kLeftAlt = 342, kRightShift = 344, kRightControl = 345,
                     kRightAlt = 346;
}  // namespace key

// GLFW's action numbers (glfw3.h: GLFW_RELEASE 0, GLFW_PRESS 1, GLFW_REPEAT 2).
enum class KeyAction : int { kRelease = 0, kPress = 1, kRepeat = 2 };

struct InputEvent {
  enum class Kind { kKey, kCharacter } kind = Kind::kKey;
  int key = 0;  // kKey: a GLFW key code
  KeyAction action = KeyAction::kPress;
  uint32_t codepoint = 0;  // kCharacter: a Unicode code point
};

class KeyInput {
 public:
  static constexpr int kMaxKey = 512;  // GLFW_KEY_LAST is 348; codes outside [0, kMaxKey) are dropped

  void push_key(int key, KeyAction action);
  void push_character(uint32_t codepoint);

  // Starts a frame: moves this frame's share of the queued events out (see the header's rules); the rest wait
  // for the next frame. The span stays valid until the next call.
  std::span<const InputEvent> next_frame();

  bool pressed(int key) const;              // a new press among this frame's events
  bool pressed_or_repeated(int key) const;  // a press or an auto-repeat among this frame's events
  bool down(int key) const;                 // held after this frame's events
  size_t pending() const { return queue_.size(); }

 private:
  std::vector<InputEvent> queue_, frame_;
  std::vector<uint8_t> down_ = std::vector<uint8_t>(kMaxKey, 0);
};

// "n", "space", "ctrl+s", "shift+left": the GLFW key codes of a combination, modifiers first; empty when a
// name is unknown. Names: a-z, 0-9, space, enter, tab, backspace, delete, escape, left, right, up, down,
// home, end, f1-f12, and the modifiers ctrl, shift, alt (the left-hand keys).
std::vector<int> parse_key_combo(std::string_view combo);

}  // namespace ossa::viewer
