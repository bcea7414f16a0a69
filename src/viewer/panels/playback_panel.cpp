// Playback (the left window's first section): the clip list (name, duration, frame rate, layout), the
// playhead and a frame to type, play/pause and frame steps, speed and its presets, the loop range and the
// loop mode.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

// The base clip's frame, clamped into the clip; pauses.
void go_to_frame(Playback& p, int frame) {
  const Clip* clip = p.current_clip();
  if (!clip) return;
  const float rate = clip->frame_rate() > 0 ? clip->frame_rate() : 30;
  p.set_paused(true);
  p.seek(std::clamp(static_cast<float>(frame) / rate, 0.f, clip->duration()));
}

// `time` snapped to the base clip's nearest frame (the playback's clip, whatever drives the character).
float on_frame(const Playback& p, float time) {
  const Clip* clip = p.current_clip();
  if (!clip) return time;
  return TimelineView::snap_to_frame(time, clip->duration(),
                                     clip->frame_rate() > 0 ? clip->frame_rate() : 30.f);
}

// out < 0: the clip's end.
void set_loop_in_out(ViewState& s, float in, float out) {
  Playback& p = *s.doc->playback;
  const Clip* clip = p.current_clip();
  if (!clip) return;
  if (out < 0) out = clip->duration();
  if (!p.set_loop_range(in, out)) s.status_message = "the loop range needs its in before its out";
}

class PlaybackPanel : public Panel {
 public:
  const char* name() const override { return "Playback"; }
  Dock dock() const override { return Dock::kLeft; }

  void draw(ViewState& s) override {
    Playback& p = *s.doc->playback;
    const CharacterAsset& asset = s.doc->character->asset;
    const float ui = s.ui_scale;
    if (s.graph) {  // what these controls drive plays beneath the graph (their transport drives it too)
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.55f, 0.8f, 1, 1));
      ImGui::TextWrapped("Driven by a graph (Inspect > Graph)");
      ImGui::PopStyleColor();
    }
    if (ImGui::BeginTable("clips", 4,
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV,
                          ImVec2(0, ImGui::GetTextLineHeightWithSpacing() *
                                            static_cast<float>(std::min<size_t>(asset.clips.size(), 8) + 1) +
                                        4 * ui))) {
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
          s.select_clip(c);
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
      ImGui::SetNextItemWidth(90 * ui);
      if (ImGui::InputInt("frame", &frame, 1, 10, ImGuiInputTextFlags_EnterReturnsTrue))
        go_to_frame(p, frame);
    }
    if (ImGui::Button(p.paused() ? "Play" : "Pause", ImVec2(70 * ui, 0))) p.set_paused(!p.paused());
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
    if (ImGui::SmallButton("in"))
      set_loop_in_out(s, on_frame(p, p.time()), p.has_loop_range() ? p.loop_out() : -1);
    ImGui::SameLine();
    if (ImGui::SmallButton("out"))
      set_loop_in_out(s, p.has_loop_range() ? p.loop_in() : 0, on_frame(p, p.time()));
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
  }

  void keys(ViewState& s, const KeyInput& keys, bool) override {
    if (!s.doc) return;
    Playback& p = *s.doc->playback;
    // An action runs once per press; stepping frames follows the key's auto-repeat.
    if (keys.pressed(key::kSpace)) p.set_paused(!p.paused());
    if (keys.pressed_or_repeated(key::kRight)) p.step_frames(1);
    if (keys.pressed_or_repeated(key::kLeft)) p.step_frames(-1);
    if (keys.pressed(key::kHome)) p.seek(0);
  }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    auto playback = [](const ActionCall& c) -> Playback& { return *c.s.doc->playback; };
    table.add("play", Needs::kDocument, [=](const ActionCall& c) {
      const int clip = c.find_clip(c.word(0));
      if (clip < 0) return false;
      c.s.select_clip(clip);
      playback(c).set_paused(false);
      return true;
    });
    table.add("pause", Needs::kDocument,
              [=](const ActionCall& c) { return playback(c).set_paused(true), true; });
    table.add("resume", Needs::kDocument,
              [=](const ActionCall& c) { return playback(c).set_paused(false), true; });
    table.add("seek", Needs::kDocument,
              [=](const ActionCall& c) { return playback(c).seek(c.number_f(0)), true; });
    table.add("speed", Needs::kDocument,
              [=](const ActionCall& c) { return playback(c).set_speed(c.number_f(0)), true; });
    table.add("step", Needs::kDocument, [=](const ActionCall& c) {
      return playback(c).step_frames(static_cast<int>(c.number(0))), true;
    });
    table.add("loop", Needs::kDocument, [=](const ActionCall& c) {
      return playback(c).set_loop_mode(static_cast<LoopMode>(index_of(kLoopNames, c.word(0)))), true;
    });
    table.add("frame", Needs::kDocument, [=](const ActionCall& c) {
      return go_to_frame(playback(c), static_cast<int>(c.number(0))), true;
    });
    table.add("loop-range", Needs::kDocument, [=](const ActionCall& c) {
      if (c.word(0) == "off") return playback(c).clear_loop_range(), true;
      return playback(c).set_loop_range(c.number_f(0), c.number_f(1)) ||
             c.fail("not a range inside the clip");
    });
    table.add("expect-time", Needs::kDocument, [=](const ActionCall& c) {
      const Playback& p = playback(c);
      return std::abs(p.time() - c.number(0)) <= 1e-4 ||
             c.fail("the playhead is at " + std::to_string(p.time()) + " s");
    });
    table.add("expect-paused", Needs::kDocument, [=](const ActionCall& c) {
      const Playback& p = playback(c);
      return p.paused() == (c.word(0) == "yes") || c.fail(p.paused() ? "paused" : "playing");
    });
    table.add("expect-clip", Needs::kDocument, [=](const ActionCall& c) {
      const CharacterAsset& asset = c.s.doc->character->asset;
      const int want = asset.find_clip(c.word(0)), clip = c.s.shown_clip().clip;  // a graph's state's too
      return (want >= 0 && want == clip) ||
             c.fail("the clip playing is '" + (clip >= 0 ? asset.clips[clip].name() : std::string("none")) +
                    "'");
    });
  }
};

}  // namespace

std::unique_ptr<Panel> make_playback_panel() {
  return std::make_unique<PlaybackPanel>();
}

}  // namespace ossa::viewer
