// Root motion (left window): the clips in place, the character travelling by the extracted motion.
#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class RootMotionPanel : public Panel {
 public:
  const char* name() const override { return "Root motion"; }
  Dock dock() const override { return Dock::kLeft; }

  void draw(ViewState& s) override {
    Playback& p = *s.doc->playback;
    section(name());
    bool root = p.root_motion();
    if (ImGui::Checkbox("travel (root motion)", &root)) {
      const std::string refusal = p.set_root_motion(root);
      if (!refusal.empty()) s.error = refusal;
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("reset")) p.reset_travel();
  }

  void add_actions(ActionTable& table) override {
    table.add("root-motion", ActionTable::Needs::kDocument,
              [](const ActionCall& c) { return c.check(c.s.doc->playback->set_root_motion(c.on(0))); });
  }
};

}  // namespace

std::unique_ptr<Panel> make_root_motion_panel() {
  return std::make_unique<RootMotionPanel>();
}

}  // namespace ossa::viewer
