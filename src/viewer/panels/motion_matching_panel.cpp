// Motion matching (right window): the file's database (`ossa mm build`) driving the character from a stick:
// a gamepad's left stick, else W A S D (shift runs), else a script's mm-stick; what plays, the last search's
// cost, jumps and locked feet, and the matcher's settings.
#include <cmath>

#include "viewer/app/window.h"
#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class MotionMatchingPanel : public Panel {
 public:
  const char* name() const override { return "Motion matching"; }
  Dock dock() const override { return Dock::kInspect; }

  // Only for a file with a database, and it opens on this tab.
  bool shown(const ViewState& s) const override { return s.matching != nullptr; }
  void opened(ViewState& s) override { forward_ = s.matching != nullptr; }
  bool wants_forward(const ViewState&) const override { return forward_; }

  void draw(ViewState& s) override {
    forward_ = false;
    if (!s.matching) return;
    MotionMatchingSession& m = *s.matching;
    const MotionDatabase& db = m.database();
    if (ImGui::Checkbox("drive the character", &s.matching_on) && s.matching_on) s.display.follow = true;
    ImGui::SameLine();
    if (ImGui::SmallButton("restart")) m.restart();
    ImGui::Text("%d frames, %zu ranges, %.0f fps", db.frame_count(), db.ranges.size(), db.frame_rate);
    ImGui::TextWrapped("stick: %s  (%.2f, %.2f)%s",
                       s.scripted_stick ? "script"
                       : pad_           ? "gamepad"
                                        : "W A S D",
                       m.stick.x, m.stick.y, m.run ? "  running" : "");
    const MotionMatcher& matcher = m.matcher();
    const auto& clips = s.doc->character->asset.clips;
    const int clip = matcher.clip();
    ImGui::TextWrapped("playing: %s at %.2f s (frame %d)",
                       clip >= 0 && clip < static_cast<int>(clips.size()) ? clips[clip].name().c_str() : "-",
                       matcher.clip_time(), matcher.frame());
    const MotionMatcherStats& stats = matcher.stats();
    ImGui::Text("last cost %.3f; %d searches, %d jumps", stats.last_cost, stats.searches, stats.jumps);
    ImGui::Text("feet locked %d times (%d let go early)", stats.locks, stats.early_unlocks);
    ImGui::Text("travelled %.2f m", m.travelled());
    section("settings (restart)");
    MotionMatcherSettings settings = m.settings();
    bool changed = false;
    changed |= ImGui::SliderFloat("walk m/s", &settings.walk_speed, 0.2f, 3);
    changed |= ImGui::SliderFloat("run m/s", &settings.run_speed, 0.5f, 8);
    changed |= ImGui::SliderFloat("jump gain", &settings.jump_gain, 0, 0.5f);
    changed |= ImGui::SliderFloat("search every s", &settings.search_interval, 1 / 60.f, 0.5f);
    changed |= ImGui::SliderFloat("transition s", &settings.transition_duration, 0, 0.5f);
    bool crossfade = settings.transition == MotionTransition::kCrossfade;
    if (ImGui::Checkbox("crossfade instead of inertialization", &crossfade)) {
      settings.transition = crossfade ? MotionTransition::kCrossfade : MotionTransition::kInertialize;
      changed = true;
    }
    changed |= ImGui::Checkbox("lock planted feet", &settings.foot_locking);
    if (changed) m.set_settings(settings);
    ImGui::TextDisabled("blue: where the stick asks; orange: where the playing motion goes; green: the feet");
  }

  void keys(ViewState& s, const KeyInput& keys, bool ctrl) override {
    if (!s.matching || !s.matching_on) return;
    MotionMatchingSession& m = *s.matching;
    if (s.scripted_stick) {
      m.stick = s.scripted_stick->first, m.run = s.scripted_stick->second;
      return;
    }
    Vec2 stick;
    bool run = false;
    pad_ = s.window && s.window->gamepad(stick, run);
    if (!pad_ && !ctrl) {  // Ctrl+S saves: not a step back
      stick = {static_cast<float>(keys.down('D') - keys.down('A')),
               static_cast<float>(keys.down('W') - keys.down('S'))};
      const float length = std::hypot(stick.x, stick.y);
      if (length > 1) stick = {stick.x / length, stick.y / length};
      run = keys.down(key::kLeftShift) || keys.down(key::kRightShift);
    }
    m.stick = stick, m.run = run;
  }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    auto session = [](const ActionCall& c) {
      return c.s.matching ? true : c.fail("no motion database in this file (ossa mm build)");
    };
    table.add("mm", Needs::kDocument, [session](const ActionCall& c) {
      if (!session(c)) return false;
      if (c.word(0) == "restart") return c.s.matching->restart(), true;
      c.s.matching_on = c.on(0);
      if (c.s.matching_on) {  // the camera keeps up with it, and this tab shows what plays
        c.s.display.follow = true;
        c.s.inspect_tab = "Motion matching";
      }
      return true;
    });
    table.add("mm-stick", Needs::kDocument, [session](const ActionCall& c) {
      if (!session(c)) return false;
      c.s.scripted_stick = std::pair{Vec2{c.number_f(0), c.number_f(1)}, c.words() > 0 && c.word(0) == "run"};
      return true;
    });
    table.add("mm-keys", Needs::kDocument, [](const ActionCall& c) {
      c.s.scripted_stick.reset();
      return true;
    });
    table.add("expect-mm-travel", Needs::kDocument, [session](const ActionCall& c) {
      if (!session(c)) return false;
      const float travelled = c.s.matching->travelled();
      const bool has_max = c.a.numbers.size() > 1;
      if (travelled < c.number_f(0) || (has_max && travelled > c.number_f(1)))
        return c.fail("travelled " + std::to_string(travelled) + " m, expected at least " +
                      std::to_string(c.number(0)) +
                      (has_max ? " and at most " + std::to_string(c.number(1)) : ""));
      return true;
    });
  }

 private:
  bool pad_ = false;      // the last frame's stick came from a gamepad
  bool forward_ = false;  // brought forward once after a file with a database opened
};

}  // namespace

std::unique_ptr<Panel> make_motion_matching_panel() {
  return std::make_unique<MotionMatchingPanel>();
}

}  // namespace ossa::viewer
