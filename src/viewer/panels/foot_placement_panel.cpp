// Foot IK (left window): the feet planted on flat ground or on the example's slope and step (drawn in the
// scene).
#include <cfloat>

#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class FootPlacementPanel : public Panel {
 public:
  const char* name() const override { return "Foot IK"; }
  Dock dock() const override { return Dock::kLeft; }

  void draw(ViewState& s) override {
    Playback& p = *s.doc->playback;
    section(name());
    bool on = p.foot_placement();
    bool changed = ImGui::Checkbox("plant feet", &on);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-FLT_MIN);
    changed |= ImGui::Combo("##ground", &ground_, "flat ground\0slope and step\0");
    if (changed) {
      const std::string refusal = p.set_foot_placement(on, static_cast<Playback::Ground>(ground_));
      if (!refusal.empty()) s.error = refusal;
    }
    if (p.foot_placement())
      ImGui::TextDisabled("%zu legs, pelvis %s", p.legs().size(),
                          p.pelvis() >= 0 ? p.animated_asset().skeleton.name(p.pelvis()).c_str() : "none");
  }

  void add_actions(ActionTable& table) override {
    table.add("feet", ActionTable::Needs::kDocument, [this](const ActionCall& c) {
      if (c.words() > 1) ground_ = index_of(kGroundNames, c.word(1));
      return c.check(c.s.doc->playback->set_foot_placement(c.on(0), static_cast<Playback::Ground>(ground_)));
    });
  }

 private:
  int ground_ = 1;  // kGroundNames
};

}  // namespace

std::unique_ptr<Panel> make_foot_placement_panel() {
  return std::make_unique<FootPlacementPanel>();
}

}  // namespace ossa::viewer
