// Override layer (left window): another clip played over the base one on the selected joint's subtree.
#include <algorithm>

#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class LayerPanel : public Panel {
 public:
  const char* name() const override { return "Override layer"; }
  Dock dock() const override { return Dock::kLeft; }

  void draw(ViewState& s) override {
    Playback& p = *s.doc->playback;
    const CharacterAsset& asset = s.doc->character->asset;
    section(name());
    bool layer = on_;
    if (ImGui::Checkbox("on", &layer)) {
      on_ = layer;
      if (!on_)
        p.set_layer(-1, 0, -1);
      else
        p.set_layer(clip_, weight_, s.selected_joint);
    }
    clip_ = std::clamp(clip_, 0, std::max(0, static_cast<int>(asset.clips.size()) - 1));
    bool changed = false;
    if (ImGui::BeginCombo("clip", asset.clips.empty() ? "" : asset.clips[clip_].name().c_str())) {
      for (int c = 0; c < static_cast<int>(asset.clips.size()); ++c)
        if (ImGui::Selectable(asset.clips[c].name().c_str(), c == clip_)) clip_ = c, changed = true;
      ImGui::EndCombo();
    }
    changed |= ImGui::SliderFloat("weight", &weight_, 0, 1);
    ImGui::TextWrapped("mask: %s",
                       p.layer_joint() >= 0 ? asset.skeleton.name(p.layer_joint()).c_str() : "every joint");
    if (ImGui::Button("Mask from selected joint")) changed = true;
    if (changed && on_) p.set_layer(clip_, weight_, s.selected_joint);
  }

  void opened(ViewState&) override { on_ = false, clip_ = 0; }

  void add_actions(ActionTable& table) override {
    table.add("layer", ActionTable::Needs::kDocument, [this](const ActionCall& c) {
      Playback& p = *c.s.doc->playback;
      if (c.word(0) == "off") return on_ = false, p.set_layer(-1, 0, -1);
      const int clip = c.find_clip(c.word(0));
      if (clip < 0) return false;
      int joint = -1;
      if (c.words() > 2 && (joint = c.s.doc->character->asset.skeleton.find_joint(c.word(2))) < 0)
        return c.fail("no joint '" + c.word(2) + "'");
      on_ = true;
      clip_ = clip;
      weight_ = c.number_f(0);
      return p.set_layer(clip, weight_, joint) || c.fail("the layer was refused");
    });
  }

 private:
  bool on_ = false;
  int clip_ = 0;
  float weight_ = 1;
};

}  // namespace

std::unique_ptr<Panel> make_layer_panel() {
  return std::make_unique<LayerPanel>();
}

}  // namespace ossa::viewer
