// The error panel: over the top middle of the window until dismissed, a plain headline and the importer's
// (or the library's) words below it (text.h's explain_error).
#include <algorithm>
#include <cstdio>

#include "viewer/app/window.h"
#include "viewer/panels/panels.h"
#include "viewer/text.h"

namespace ossa::viewer {

namespace {

class ErrorPanel : public Panel {
 public:
  const char* name() const override { return "Error"; }
  Dock dock() const override { return Dock::kModal; }

  void draw(ViewState& s) override {
    if (s.error.empty()) return;
    int win_w = 0, win_h = 0;
    s.window->size(win_w, win_h);
    ImGui::SetNextWindowPos(ImVec2(static_cast<float>(win_w) * 0.5f, s.layout.menu + 40 * s.ui_scale),
                            ImGuiCond_Always, ImVec2(0.5f, 0));
    ImGui::SetNextWindowSize(ImVec2(std::min(560 * s.ui_scale, static_cast<float>(win_w) - 20), 0));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(90, 24, 24, 240));
    ImGui::Begin(name(), nullptr,
                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize);
    const ShownError shown = explain_error(s.error);
    ImGui::TextWrapped("%s", shown.headline.c_str());
    if (!shown.details.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(230, 190, 190, 255));
      ImGui::TextWrapped("%s", shown.details.c_str());
      ImGui::PopStyleColor();
    }
    if (ImGui::Button("Dismiss")) s.error.clear();
    ImGui::End();
    ImGui::PopStyleColor();
  }

  void add_actions(ActionTable& table) override {
    table.add("expect-error", ActionTable::Needs::kNothing, [](const ActionCall& c) {
      if (c.s.error.empty()) return c.fail("no error is shown");
      if (c.words() > 0 && c.s.error.find(c.word(0)) == std::string::npos)
        return c.fail("the error shown is: " + c.s.error);
      std::printf("ossa view: error shown as expected: %s\n", c.s.error.c_str());
      return true;
    });
  }
};

}  // namespace

std::unique_ptr<Panel> make_error_panel() {
  return std::make_unique<ErrorPanel>();
}

}  // namespace ossa::viewer
