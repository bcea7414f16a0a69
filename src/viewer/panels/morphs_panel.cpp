// Inspect > Morphs: morph targets per mesh, each weight as the clip drives it, and an override slider (the
// expression layer).
#include <algorithm>
#include <cmath>
#include <limits>

#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class MorphsPanel : public Panel {
 public:
  const char* name() const override { return "Morphs"; }
  Dock dock() const override { return Dock::kInspect; }

  void draw(ViewState& s) override {
    Playback& p = *s.doc->playback;
    const CharacterAsset& asset = s.doc->character->asset;
    bool any = false;
    for (int m = 0; m < static_cast<int>(asset.meshes.size()); ++m) {
      const MorphTargets& targets = asset.meshes[m].morph_targets();
      if (targets.empty()) continue;
      any = true;
      ImGui::PushID(m);
      ImGui::TextUnformatted(asset.meshes[m].name().c_str());
      const std::span<const float> weights = p.morph_weights(m);
      for (int t = 0; t < targets.count(); ++t) {
        ImGui::PushID(t);
        const float current = t < static_cast<int>(weights.size()) ? weights[t] : 0.f;
        float value = p.morph_override(m, t);
        bool overridden = !std::isnan(value);
        if (ImGui::Checkbox("##override", &overridden))
          p.set_morph_override(m, t, overridden ? current : std::numeric_limits<float>::quiet_NaN());
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
        if (overridden) {
          if (ImGui::SliderFloat("##weight", &value, 0, 1, "%.3f")) p.set_morph_override(m, t, value);
        } else {
          ImGui::ProgressBar(std::clamp(current, 0.f, 1.f),
                             ImVec2(ImGui::GetContentRegionAvail().x * 0.55f, 0),
                             std::to_string(current).substr(0, 5).c_str());
        }
        ImGui::SameLine();
        ImGui::TextUnformatted(targets.names()[t].c_str());
        ImGui::PopID();
      }
      ImGui::PopID();
    }
    if (!any) ImGui::TextDisabled("No morph targets.");
  }

  void add_actions(ActionTable& table) override {
    // morph TARGET WEIGHT / morph-off TARGET: the first target of that name, in mesh order.
    for (const char* verb : {"morph", "morph-off"}) {
      const bool off = std::string(verb) == "morph-off";
      table.add(verb, ActionTable::Needs::kDocument, [off](const ActionCall& c) {
        const CharacterAsset& asset = c.s.doc->character->asset;
        for (int m = 0; m < static_cast<int>(asset.meshes.size()); ++m) {
          const auto names = asset.meshes[m].morph_targets().names();
          for (int t = 0; t < static_cast<int>(names.size()); ++t)
            if (names[t] == c.word(0))
              return c.s.doc->playback->set_morph_override(
                         m, t, off ? std::numeric_limits<float>::quiet_NaN() : c.number_f(0)),
                     true;
        }
        return c.fail("no morph target '" + c.word(0) + "'");
      });
    }
  }
};

}  // namespace

std::unique_ptr<Panel> make_morphs_panel() {
  return std::make_unique<MorphsPanel>();
}

}  // namespace ossa::viewer
