// Display (left window): lighting mode, skinning path (GPU palette, CPU, baked), grid, skeleton overlay, and
// a baked crowd behind the character.
#include <algorithm>

#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class DisplayPanel : public Panel {
 public:
  const char* name() const override { return "Display"; }
  Dock dock() const override { return Dock::kLeft; }

  void draw(ViewState& s) override {
    Display& d = s.display;
    section(name());
    int lighting = static_cast<int>(d.lighting);
    if (ImGui::Combo("lighting", &lighting, kLightingNames, 5))
      d.lighting = static_cast<LightingMode>(lighting);
    ImGui::Combo("skinning", &d.skinning, "GPU palette\0CPU\0baked\0");
    ImGui::Checkbox("grid", &d.grid);
    ImGui::SameLine();
    ImGui::Checkbox("skeleton", &d.skeleton);
    // Logarithmic: one character at a time near 1, hundreds near the top (Ctrl+click types a number).
    ImGui::SliderInt("crowd", &d.crowd, 0, kMaxCrowd, "%d", ImGuiSliderFlags_Logarithmic);
  }

  void keys(ViewState& s, const KeyInput& keys, bool) override {
    if (!s.doc) return;
    if (keys.pressed('G')) s.display.grid = !s.display.grid;
    if (keys.pressed('K')) s.display.skeleton = !s.display.skeleton;
    for (int i = 0; i < 5; ++i)
      if (keys.pressed('1' + i)) s.display.lighting = static_cast<LightingMode>(i);
  }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    table.add("lighting", Needs::kNothing, [](const ActionCall& c) {
      parse_lighting_mode(c.word(0), c.s.display.lighting);
      return true;
    });
    table.add("skeleton", Needs::kNothing,
              [](const ActionCall& c) { return c.s.display.skeleton = c.on(0), true; });
    table.add("skinning", Needs::kDocument, [](const ActionCall& c) {
      return c.s.display.skinning = index_of(kSkinningNames, c.word(0)), true;
    });
    table.add("crowd", Needs::kDocument, [](const ActionCall& c) {
      return c.s.display.crowd = std::clamp(static_cast<int>(c.number(0)), 0, kMaxCrowd), true;
    });
  }
};

}  // namespace

std::unique_ptr<Panel> make_display_panel() {
  return std::make_unique<DisplayPanel>();
}

}  // namespace ossa::viewer
