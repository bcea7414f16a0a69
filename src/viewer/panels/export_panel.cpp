// File > Export glTF (the character as it plays, with the notifies as edited) and File > Export view (the
// clip as the 3D view shows it, from start to end at up to 30 frames per second, as a GIF or numbered PNGs):
// a prompt for the path each, and the script verbs.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "ossa/core/file_io.h"
#include "ossa/render/image.h"
#include "ossa/serialize/gltf_export.h"
#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

// The character as it plays here, with the notifies as edited (saved or not), as glTF
// (ossa/serialize/gltf_export.h).
void export_gltf(ViewState& s, const std::string& path) {
  LoadedCharacter character = *s.doc->character;
  if (auto set = s.doc->notifies.to_notify_set(character.asset)) character.notifies = std::move(set).value();
  auto written = write_gltf(character, path);
  if (!written) {
    s.error = "cannot export: " + written.error();
    return;
  }
  s.status_message = "exported " + display_name(path);
  if (!written->dropped.empty())
    s.status_message +=
        "; not in the glTF: " + written->dropped[0] +
        (written->dropped.size() > 1
             ? " (and " + std::to_string(written->dropped.size() - 1) + " more: `ossa convert` lists them)"
             : "");
}

class ExportPanel : public Panel {
 public:
  const char* name() const override { return "Export"; }
  Dock dock() const override { return Dock::kModal; }

  void draw(ViewState& s) override {
    if (s.show_export_gltf && s.doc) {
      // Beside the model, named after it; a name that is an input gets ".export" (write_gltf refuses inputs).
      std::filesystem::path out = std::filesystem::path(s.doc->path).replace_extension(".glb");
      for (const std::string& input : s.doc->character->source_files)
        if (same_file(out.string(), input))
          out = std::filesystem::path(s.doc->path).replace_extension(".export.glb");
      gltf_path_ = out.string();
    }
    if (s.show_export_view && s.doc)
      view_path_ = utf8_from_path(path_from_utf8(s.doc->path).replace_extension(".gif"));
    path_prompt(s, "Export glTF", s.show_export_gltf,
                "OUT.glb (one file) or OUT.gltf (with its .bin and images beside it)", gltf_path_,
                [&](const std::string& path) { export_gltf(s, path); });
    path_prompt(
        s, "Export view", s.show_export_view,
        "OUT.gif (one file) or OUT.png (OUT_0000.png, OUT_0001.png, ...): the clip as the view shows it,\n"
        "from start to end, at up to 30 frames per second",
        view_path_, [&](const std::string& path) { export_view(s, path); });
  }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    table.add("export", Needs::kDocument, [](const ActionCall& c) {
      export_gltf(c.s, c.word(0));
      return c.s.error.empty() || c.fail(c.s.error);
    });
    table.add("export-view", Needs::kDocument, [this](const ActionCall& c) {
      export_view(c.s, c.word(0));
      return c.s.error.empty() || c.fail(c.s.error);
    });
  }

 private:
  // A path to write, Export or Cancel.
  template <typename Write>
  static void path_prompt(ViewState& s, const char* title, bool& show, const char* help, std::string& path,
                          Write&& write) {
    if (show) ImGui::OpenPopup(title), show = false;
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
    ImGui::TextUnformatted(help);
    ImGui::SetNextItemWidth(420 * s.ui_scale);
    const bool enter = ImGui::InputText("path", &path, ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::Button("Export") || enter) {
      if (s.doc) write(path);
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }

  // The clip as the 3D view shows it (camera, lighting, grid, size), from its start to its end at up to 30
  // frames per second: OUT.gif, or OUT.png as OUT_0000.png, OUT_0001.png, ...
  void export_view(ViewState& s, const std::string& path) {
    Playback& p = *s.doc->playback;
    const Clip* clip = p.current_clip();
    const std::filesystem::path out = path_from_utf8(path);
    std::string ext = utf8_from_path(out.extension());
    for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (!clip || (ext != ".gif" && ext != ".png")) {
      s.error = "cannot export the view to " + path + ": name a .gif or a .png";
      return;
    }
    const float fps = std::min(clip->frame_rate() > 0 ? clip->frame_rate() : 30.f, 30.f);
    const int frames = std::clamp(static_cast<int>(std::floor(clip->duration() * fps + 1e-3f)) + 1, 1, 900);
    auto frame_path = [&](int i) {
      char suffix[16];
      std::snprintf(suffix, sizeof suffix, "_%04d.png", i);
      return utf8_from_path(out.parent_path() / path_from_utf8(utf8_from_path(out.stem()) + suffix));
    };
    for (const std::string& input : s.doc->character->source_files)
      for (int i = 0; i < (ext == ".gif" ? 1 : frames); ++i)
        if (same_file(ext == ".gif" ? path : frame_path(i), input)) {
          s.error = "cannot export the view over " + input + ": it is an input of this character";
          return;
        }
    const CharacterAsset& animated = p.animated_asset();
    CharacterRenderer& r = *s.doc->renderer;
    std::vector<Image> images;
    for (int i = 0; i < frames; ++i) {
      const float t = std::min(static_cast<float>(i) / fps, clip->duration());
      if (!Playback::pose_at(animated, p.clip(), t, cache_, locals_, model_)) break;
      r.begin_frame(s.frame);
      r.draw_palette(p.world(), model_);
      images.push_back(r.end_frame());
    }
    if (ext == ".gif") {
      if (auto written = write_gif(images, std::max(1, static_cast<int>(std::lround(100 / fps))), path);
          !written) {
        s.error = "cannot export the view: " + written.error();
        return;
      }
    } else {
      for (size_t i = 0; i < images.size(); ++i)
        if (auto written = write_png(images[i], frame_path(static_cast<int>(i))); !written) {
          s.error = "cannot export the view: " + written.error();
          return;
        }
    }
    s.status_message = "exported " + std::to_string(images.size()) + " frames of " + display_name(path);
  }

  std::string gltf_path_, view_path_;
  SamplingCache cache_;
  std::vector<JointPose> locals_;
  std::vector<Mat4> model_;
};

}  // namespace

std::unique_ptr<Panel> make_export_panel() {
  return std::make_unique<ExportPanel>();
}

}  // namespace ossa::viewer
