#include "viewer/key_input.h"

#include <algorithm>
#include <string>

namespace ossa::viewer {

namespace {
bool valid_key(int key) {
  return key >= 0 && key < KeyInput::kMaxKey;
}
}  // namespace

void KeyInput::push_key(int key, KeyAction action) {
  if (!valid_key(key)) return;
  InputEvent event;
  event.kind = InputEvent::Kind::kKey;
  event.key = key;
  event.action = action;
  queue_.push_back(event);
}

void KeyInput::push_character(uint32_t codepoint) {
  InputEvent event;
  event.kind = InputEvent::Kind::kCharacter;
  event.codepoint = codepoint;
  queue_.push_back(event);
}

std::span<const InputEvent> KeyInput::next_frame() {
  frame_.clear();
  std::vector<int> changed;  // keys whose state this frame's events changed
  size_t taken = 0;
  for (; taken < queue_.size(); ++taken) {
    const InputEvent& event = queue_[taken];
    if (event.kind == InputEvent::Kind::kKey && event.action != KeyAction::kRepeat) {
      const bool now_down = event.action == KeyAction::kPress;
      if (now_down != (down_[event.key] != 0)) {
        if (std::find(changed.begin(), changed.end(), event.key) != changed.end()) break;  // next frame
        changed.push_back(event.key);
        down_[event.key] = now_down;
      }
    }
    frame_.push_back(event);
  }
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(taken));
  return frame_;
}

bool KeyInput::pressed(int key) const {
  return std::any_of(frame_.begin(), frame_.end(), [&](const InputEvent& e) {
    return e.kind == InputEvent::Kind::kKey && e.key == key && e.action == KeyAction::kPress;
  });
}

bool KeyInput::pressed_or_repeated(int key) const {
  return std::any_of(frame_.begin(), frame_.end(), [&](const InputEvent& e) {
    return e.kind == InputEvent::Kind::kKey && e.key == key && e.action != KeyAction::kRelease;
  });
}

bool KeyInput::down(int key) const {
  return valid_key(key) && down_[key] != 0;
}

std::vector<int> parse_key_combo(std::string_view combo) {
  struct Named {
    std::string_view name;
    int key;
  };
  static constexpr Named kNamed[] = {
      {"space", key::kSpace},     {"escape", key::kEscape},       {"enter", key::kEnter},
      {"tab", key::kTab},         {"backspace", key::kBackspace}, {"delete", key::kDelete},
      {"right", key::kRight},     {"left", key::kLeft},           {"down", key::kDown},
      {"up", key::kUp},           {"home", key::kHome},           {"end", key::kEnd},
      {"shift", key::kLeftShift}, {"ctrl", key::kLeftControl},    {"alt", key::kLeftAlt},
  };
  auto code = [](std::string_view name) -> int {
    if (name.size() == 1 && name[0] >= 'a' && name[0] <= 'z') return 'A' + (name[0] - 'a');
    if (name.size() == 1 && name[0] >= '0' && name[0] <= '9') return name[0];
    if (name.size() >= 2 && name.size() <= 3 && name[0] == 'f') {
      const std::string digits(name.substr(1));
      if (digits.find_first_not_of("0123456789") == std::string::npos && digits[0] != '0') {
        const int n = std::stoi(digits);
        if (n >= 1 && n <= 12) return key::kF1 + n - 1;
      }
    }
    for (const Named& named : kNamed)
      if (named.name == name) return named.key;
    return -1;
  };
  std::vector<int> keys;
  while (!combo.empty()) {
    const size_t plus = combo.find('+');
    const int key = code(combo.substr(0, plus));
    if (key < 0) return {};
    keys.push_back(key);
    if (plus == std::string_view::npos) break;
    combo.remove_prefix(plus + 1);
    if (combo.empty()) return {};  // "ctrl+"
  }
  return keys;
}

}  // namespace ossa::viewer
