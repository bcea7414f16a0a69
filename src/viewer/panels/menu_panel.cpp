// The main menu bar: File (open, recent, save, export, quit), Edit (undo, redo), View (display switches,
// camera views, text size, panel sizes), and the open file's name.
#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class MenuPanel : public Panel {
 public:
  const char* name() const override { return "Menu"; }
  Dock dock() const override { return Dock::kMenu; }

  void draw(ViewState& s) override {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
      if (ImGui::MenuItem("Open...", "Ctrl+O")) s.show_open = true;
      if (ImGui::BeginMenu("Recent", !s.settings.recent_files.empty())) {
        for (const std::string& recent : s.settings.recent_files)
          if (ImGui::MenuItem(recent.c_str())) s.pending_drops.push_back(recent);
        ImGui::EndMenu();
      }
      if (ImGui::MenuItem("Save notifies", "Ctrl+S", false, s.doc != nullptr)) s.save_notifies("");
      if (ImGui::MenuItem("Export glTF...", nullptr, false, s.doc != nullptr)) s.show_export_gltf = true;
      if (ImGui::MenuItem("Export view as GIF or PNGs...", nullptr, false, s.doc != nullptr))
        s.show_export_view = true;
      if (ImGui::MenuItem("Quit", "Ctrl+Q")) s.request_quit();
      ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Edit")) {
      if (ImGui::MenuItem("Undo", "Ctrl+Z", false, s.doc && s.doc->notifies.can_undo())) {
        s.doc->notifies.undo();
        s.edited("");
      }
      if (ImGui::MenuItem("Redo", "Ctrl+Y", false, s.doc && s.doc->notifies.can_redo())) {
        s.doc->notifies.redo();
        s.edited("");
      }
      ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
      Display& d = s.display;
      ImGui::MenuItem("Grid", "G", &d.grid);
      ImGui::MenuItem("Skeleton", "K", &d.skeleton);
      ImGui::MenuItem("Joint names", nullptr, &d.joint_names);
      ImGui::MenuItem("Joint axes", nullptr, &d.joint_axes);
      ImGui::MenuItem("Bind pose", nullptr, &d.bind_pose);
      ImGui::MenuItem("Onion skin", nullptr, &d.onion);
      ImGui::MenuItem("Motion trail (selected joint)", nullptr, &d.trail);
      if (ImGui::MenuItem("Frame character", "F") && s.doc)
        s.camera.refit(s.doc->lo, s.doc->hi, s.layout.scene_w / s.layout.scene_h);
      ImGui::Separator();
      if (ImGui::MenuItem("Front")) s.camera.look_from(OrbitCamera::View::kFront);
      if (ImGui::MenuItem("Side")) s.camera.look_from(OrbitCamera::View::kSide);
      if (ImGui::MenuItem("Top")) s.camera.look_from(OrbitCamera::View::kTop);
      ImGui::MenuItem("Follow the character", nullptr, &d.follow);
      ImGui::Separator();
      float font = static_cast<float>(s.settings.font_scale);
      ImGui::SetNextItemWidth(120 * s.ui_scale);
      if (ImGui::SliderFloat("text size", &font, static_cast<float>(ViewerSettings::kMinFontScale),
                             static_cast<float>(ViewerSettings::kMaxFontScale), "%.2fx"))
        s.settings.font_scale = font;
      if (ImGui::MenuItem("Reset panel sizes")) {
        const ViewerSettings defaults;
        s.settings.left_panel = defaults.left_panel, s.settings.right_panel = defaults.right_panel;
        s.settings.bottom_panel = defaults.bottom_panel, s.settings.font_scale = defaults.font_scale;
      }
      ImGui::EndMenu();
    }
    if (s.doc)
      ImGui::TextDisabled("  %s%s", display_name(s.doc->path).c_str(),
                          s.doc->notifies.dirty() ? "  (notifies edited)" : "");
    ImGui::EndMainMenuBar();
  }
};

}  // namespace

std::unique_ptr<Panel> make_menu_panel() {
  return std::make_unique<MenuPanel>();
}

}  // namespace ossa::viewer
