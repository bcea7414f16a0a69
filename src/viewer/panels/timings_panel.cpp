// Inspect > Timings: the frame's parts (update, draw, UI, swap) averaged over 60 frames, and the device.
#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class TimingsPanel : public Panel {
 public:
  const char* name() const override { return "Timings"; }
  Dock dock() const override { return Dock::kInspect; }

  void draw(ViewState& s) override {
    ImGui::Text("frame   %6.2f ms (%.0f Hz)", s.frame_ms.mean(),
                s.frame_ms.mean() > 0 ? 1000 / s.frame_ms.mean() : 0);
    ImGui::Text("update  %6.3f ms (Animator)", s.update_ms.mean());
    ImGui::Text("draw    %6.2f ms (%s skinning)", s.scene_ms.mean(), kSkinningNames[s.drawn_skinning]);
    ImGui::Text("ui      %6.2f ms", s.ui_ms.mean());
    ImGui::Text("swap    %6.2f ms (finish drawing, present)", s.swap_ms.mean());
    ImGui::TextWrapped("%s", s.doc->renderer->device_name().c_str());
  }
};

}  // namespace

std::unique_ptr<Panel> make_timings_panel() {
  return std::make_unique<TimingsPanel>();
}

}  // namespace ossa::viewer
