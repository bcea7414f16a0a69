// Inspect > Clip: the clip's duration, layout, frames, memory and notifies.
#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class ClipInfoPanel : public Panel {
 public:
  const char* name() const override { return "Clip"; }
  Dock dock() const override { return Dock::kInspect; }

  void draw(ViewState& s) override {
    const ShownClip shown = s.shown_clip();  // under a graph, its first layer's state's clip
    if (!shown.what.empty()) ImGui::TextWrapped("%s", shown.what.c_str());
    const Clip* clip = s.clip_at(shown.clip);
    if (!clip) return;
    const char* layouts[] = {"fixed rate", "keyed", "compressed"};
    ImGui::Text("%s", clip->name().c_str());
    ImGui::Text("duration %.3f s, %s", clip->duration(), layouts[static_cast<int>(clip->layout())]);
    if (clip->frame_rate() > 0) ImGui::Text("%d frames at %.2f fps", clip->frame_count(), clip->frame_rate());
    ImGui::Text("%d joints, %.1f KiB in memory", clip->joint_count(),
                static_cast<double>(clip->memory_bytes()) / 1024);
    const auto& list = s.doc->notifies.notifies(shown.clip);
    ImGui::Text("%zu notifies", list.size());
  }
};

}  // namespace

std::unique_ptr<Panel> make_clip_info_panel() {
  return std::make_unique<ClipInfoPanel>();
}

}  // namespace ossa::viewer
