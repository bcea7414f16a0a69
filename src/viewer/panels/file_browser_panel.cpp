// File > Open: a browser over the folders (made when first shown, at the open model's folder) listing the
// files Ossa opens (or all), a folder field to type into; a double-click enters a folder or opens a file
// (asking first when notify edits are unsaved).
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "ossa/core/file_io.h"
#include "viewer/file_browser.h"
#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class FileBrowserPanel : public Panel {
 public:
  const char* name() const override { return "Open file"; }
  Dock dock() const override { return Dock::kModal; }

  void draw(ViewState& s) override {
    const float ui = s.ui_scale;
    if (s.show_open) {
      ImGui::OpenPopup(name());
      s.show_open = false;
      if (!browser_) {
        std::error_code ec;
        const std::filesystem::path near =
            s.doc ? path_from_utf8(s.doc->path).parent_path() : std::filesystem::path();
        browser_.emplace(!near.empty() && std::filesystem::is_directory(near, ec) ? utf8_from_path(near)
                                                                                  : ".");
      }
      browser_->refresh();
      field_ = browser_->folder();
      selected_.clear();
    }
    if (!ImGui::BeginPopupModal(name(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
    // The folder field: type a folder (or a file's path) and Enter.
    ImGui::SetNextItemWidth(520 * ui);
    if (ImGui::InputText("##folder", &field_, ImGuiInputTextFlags_EnterReturnsTrue)) {
      std::error_code ec;
      if (std::filesystem::is_regular_file(path_from_utf8(field_), ec)) {
        s.request_open(field_);
        close_ = true;
      } else {
        browser_->go_to(field_);
        field_ = browser_->folder();
      }
    }
    bool all = browser_->show_all();
    if (ImGui::Checkbox("all files (not only .fbx .gltf .glb .dae .ossa)", &all)) browser_->set_show_all(all);
    ImGui::BeginChild("entries", ImVec2(520 * ui, 300 * ui), true);
    const auto& entries = browser_->entries();
    std::string picked;
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(entries.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const BrowserEntry& e = entries[i];
        char size[32] = "";
        if (!e.folder) std::snprintf(size, sizeof size, "%.1f KB", static_cast<double>(e.bytes) / 1024);
        const std::string label = e.folder ? e.name + "/" : e.name;
        ImGui::PushID(i);
        if (ImGui::Selectable(label.c_str(), e.name == selected_, ImGuiSelectableFlags_AllowDoubleClick)) {
          selected_ = e.name;
          if (ImGui::IsMouseDoubleClicked(0)) picked = e.name;
        }
        if (!e.folder) {
          ImGui::SameLine(420 * ui);
          ImGui::TextDisabled("%s", size);
        }
        ImGui::PopID();
      }
    }
    if (browser_->truncated())
      ImGui::TextDisabled("(the first %zu entries: type a folder to narrow it)", FileBrowser::kMaxEntries);
    ImGui::EndChild();
    if (!picked.empty()) pick(s, picked);
    if (!browser_->error().empty())
      ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", browser_->error().c_str());
    const bool file_selected = std::any_of(entries.begin(), entries.end(), [&](const BrowserEntry& e) {
      return !e.folder && e.name == selected_;
    });
    ImGui::BeginDisabled(!file_selected);
    if (ImGui::Button("Open")) pick(s, selected_);
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) close_ = true;
    ImGui::SameLine();
    ImGui::TextDisabled("or drop a file on the window");
    if (close_) ImGui::CloseCurrentPopup(), close_ = false;
    ImGui::EndPopup();
  }

  void keys(ViewState& s, const KeyInput& keys, bool ctrl) override {
    if (ctrl && keys.pressed('O')) s.show_open = true;
  }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    table.add("open", Needs::kNothing, [](const ActionCall& c) {  // as File > Open: asks first when edits
      c.s.request_open(c.word(0));                                // are unsaved
      return true;
    });
    table.add("browse", Needs::kNothing, [this](const ActionCall& c) {  // File > Open at FOLDER
      browser_.emplace(c.word(0));
      if (!browser_->error().empty()) return c.fail(browser_->error());
      c.s.show_open = true;
      return true;
    });
    for (const char* verb : {"browse-pick", "expect-browser-entry"}) {
      const bool pick_it = std::string(verb) == "browse-pick";
      table.add(verb, Needs::kNothing, [this, pick_it](const ActionCall& c) {
        if (!browser_) return c.fail("no file browser is open");
        const auto& entries = browser_->entries();
        const bool listed = std::any_of(entries.begin(), entries.end(),
                                        [&](const BrowserEntry& e) { return e.name == c.word(0); });
        if (!listed) return c.fail("the browser does not list '" + c.word(0) + "' in " + browser_->folder());
        if (pick_it) pick(c.s, c.word(0));
        return true;
      });
    }
  }

 private:
  // A double-click: into a folder, or open a file.
  void pick(ViewState& s, const std::string& entry_name) {
    const auto& entries = browser_->entries();
    const auto entry = std::find_if(entries.begin(), entries.end(),
                                    [&](const BrowserEntry& e) { return e.name == entry_name; });
    if (entry == entries.end()) return;
    if (entry->folder) {
      browser_->enter(entry_name);
      field_ = browser_->folder();
      selected_.clear();
      return;
    }
    s.request_open(browser_->path_of(entry_name));
    close_ = true;
  }

  std::optional<FileBrowser> browser_;
  std::string field_, selected_;
  bool close_ = false;
};

}  // namespace

std::unique_ptr<Panel> make_file_browser_panel() {
  return std::make_unique<FileBrowserPanel>();
}

}  // namespace ossa::viewer
