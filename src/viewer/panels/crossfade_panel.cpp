// Crossfade (left window): to a clip over a duration, with or without time sync.
#include <algorithm>

#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class CrossfadePanel : public Panel {
 public:
  const char* name() const override { return "Crossfade"; }
  Dock dock() const override { return Dock::kLeft; }

  void draw(ViewState& s) override {
    Playback& p = *s.doc->playback;
    const CharacterAsset& asset = s.doc->character->asset;
    section(name());
    target_ = std::clamp(target_, 0, std::max(0, static_cast<int>(asset.clips.size()) - 1));
    if (ImGui::BeginCombo("to", asset.clips.empty() ? "" : asset.clips[target_].name().c_str())) {
      for (int c = 0; c < static_cast<int>(asset.clips.size()); ++c)
        if (ImGui::Selectable(asset.clips[c].name().c_str(), c == target_)) target_ = c;
      ImGui::EndCombo();
    }
    ImGui::SliderFloat("seconds", &duration_, 0, 2, "%.2f");
    ImGui::Checkbox("sync", &sync_);
    ImGui::SameLine();
    if (ImGui::Button("Crossfade")) p.crossfade(target_, duration_, sync_);
  }

  void opened(ViewState&) override { target_ = 0; }

  void add_actions(ActionTable& table) override {
    table.add("crossfade", ActionTable::Needs::kDocument, [](const ActionCall& c) {
      const int clip = c.find_clip(c.word(0));
      return clip >= 0 &&
             c.s.doc->playback->crossfade(clip, c.number_f(0), c.words() > 2 && c.word(2) == "sync");
    });
  }

 private:
  int target_ = 0;
  float duration_ = 0.3f;
  bool sync_ = false;
};

}  // namespace

std::unique_ptr<Panel> make_crossfade_panel() {
  return std::make_unique<CrossfadePanel>();
}

}  // namespace ossa::viewer
