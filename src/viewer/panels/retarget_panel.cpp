// Inspect > Retarget: open a second character beside this one (it plays the same clip at the same time
// through a bone map, drawn in the right half of the scene); each of its joints listed with the source joint
// it follows (pick another, or none); save the map `ossa retarget --map` reads.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <fstream>
#include <iterator>

#include "ossa/core/file_io.h"
#include "viewer/app/window.h"
#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

void open_retarget(ViewState& s, const std::string& path, const std::string& map_path) {
  if (!s.doc || !s.options.load) return;
  auto target = s.options.load(path, "");
  if (!target) {
    s.error = "cannot open " + path + " to retarget onto:\n" + target.error();
    return;
  }
  std::string map_text;
  if (!map_path.empty()) {
    std::ifstream in(path_from_utf8(map_path), std::ios::binary);
    if (!in) {
      s.error = "cannot read the bone map " + map_path;
      return;
    }
    map_text.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto session = viewer::RetargetSession::create(s.doc->character, std::move(target).value(), map_text);
  if (!session) {
    s.error = "cannot retarget onto " + path + ":\n" + session.error();
    return;
  }
  const LoadedCharacter& c = session->target();
  auto renderer = s.window->create_renderer(c);
  if (!renderer) {
    s.error = "cannot draw " + path + ":\n" + renderer.error();
    return;
  }
  auto view =
      std::make_unique<RetargetView>(RetargetView{.path = path,
                                                  .session = std::move(session).value(),
                                                  .renderer = std::move(renderer).value(),
                                                  .model = {},
                                                  .map_path = map_path.empty() ? "bone_map.json" : map_path,
                                                  .selected = -1});
  view->model.resize(static_cast<size_t>(c.asset.skeleton.joint_count()));
  s.retarget = std::move(view);
  s.show_retarget_tab = true;
  s.status_message = "retargeting onto " + display_name(path);
}

void save_bone_map(ViewState& s, const std::string& path) {
  if (!s.retarget) return;
  const std::string where = path.empty() ? s.retarget->map_path : path;
  if (auto saved = s.retarget->session.save_map(where); !saved) {
    s.error = "bone map not saved:\n" + saved.error();
    return;
  }
  s.retarget->map_path = where;
  s.status_message = "saved " + display_name(where);
}

void retarget_edit(ViewState& s, int target_joint, int source_joint) {
  if (!s.retarget) return;
  if (const std::string refusal = s.retarget->session.set_source(target_joint, source_joint);
      !refusal.empty())
    s.error = "bone map: " + refusal;
}

class RetargetPanel : public Panel {
 public:
  const char* name() const override { return "Retarget"; }
  Dock dock() const override { return Dock::kInspect; }
  bool wants_forward(const ViewState& s) const override { return s.show_retarget_tab; }

  void draw(ViewState& s) override {
    s.show_retarget_tab = false;
    if (!s.retarget) {
      ImGui::TextWrapped(
          "Play this character's clips on another skeleton, side by side, through a bone map.");
      ImGui::InputText("target", &path_);
      if (ImGui::Button("Open beside") && !path_.empty()) open_retarget(s, path_, "");
      return;
    }
    RetargetView& r = *s.retarget;
    path_ = r.path;
    const BoneMap& map = r.session.map();
    const Skeleton& source = r.session.source().asset.skeleton;
    const Skeleton& target = r.session.target().asset.skeleton;
    ImGui::TextWrapped("%s: %d of %d joints follow %s (profiles: %s -> %s)%s", display_name(r.path).c_str(),
                       map.mapped(), target.joint_count(), display_name(s.doc->path).c_str(),
                       map.source_profile.empty() ? "none" : map.source_profile.c_str(),
                       map.target_profile.empty() ? "none" : map.target_profile.c_str(),
                       r.session.edited() ? " (edited)" : "");
    ImGui::InputText("map", &r.map_path);
    ImGui::SameLine();
    if (ImGui::Button("Save")) save_bone_map(s, "");
    ImGui::SameLine();
    if (ImGui::Button("Close")) {
      s.retarget.reset();
      return;
    }
    if (ImGui::BeginTable("bone map", 2,
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV,
                          ImVec2(0, ImGui::GetContentRegionAvail().y))) {
      ImGui::TableSetupColumn("target joint", ImGuiTableColumnFlags_WidthStretch);
      ImGui::TableSetupColumn("follows", ImGuiTableColumnFlags_WidthStretch);
      ImGui::TableHeadersRow();
      for (int t = 0; t < target.joint_count(); ++t) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushID(t);
        int depth = 0;
        for (int p = target.parents()[t]; p >= 0; p = target.parents()[p]) ++depth;
        const float indent = static_cast<float>(depth) * 6 * s.ui_scale;  // Indent(0) would be the default
        if (depth > 0) ImGui::Indent(indent);
        if (ImGui::Selectable(target.name(t).c_str(), r.selected == t)) r.selected = t;
        if (depth > 0) ImGui::Unindent(indent);
        ImGui::TableNextColumn();
        const int from = map.source_of[t];
        ImGui::SetNextItemWidth(-1);
        if (ImGui::BeginCombo("##source", from >= 0 ? source.name(from).c_str() : "(rest)")) {
          if (ImGui::Selectable("(rest)", from < 0)) retarget_edit(s, t, -1);
          for (int j = 0; j < source.joint_count(); ++j)
            if (ImGui::Selectable(source.name(j).c_str(), j == from)) retarget_edit(s, t, j);
          ImGui::EndCombo();
        }
        ImGui::PopID();
      }
      ImGui::EndTable();
    }
  }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    table.add("retarget", Needs::kDocument, [](const ActionCall& c) {
      open_retarget(c.s, c.word(0), c.words() > 1 ? c.word(1) : "");
      return c.s.retarget || c.fail(c.s.error);
    });
    table.add("save-map", Needs::kDocument, [](const ActionCall& c) {
      if (!c.s.retarget) return c.fail("nothing is retargeted (retarget PATH first)");
      save_bone_map(c.s, c.words() == 0 ? "" : c.word(0));
      return c.s.error.empty() || c.fail(c.s.error);
    });
    table.add("map-bone", Needs::kDocument, [](const ActionCall& c) {
      if (!c.s.retarget) return c.fail("nothing is retargeted (retarget PATH first)");
      RetargetSession& session = c.s.retarget->session;
      const Skeleton& source = session.source().asset.skeleton;
      const Skeleton& target = session.target().asset.skeleton;
      const int t = target.find_joint(c.word(0)), j = c.word(1) == "none" ? -1 : source.find_joint(c.word(1));
      if (t < 0) return c.fail("the target has no joint '" + c.word(0) + "'");
      if (j < 0 && c.word(1) != "none") return c.fail("the source has no joint '" + c.word(1) + "'");
      return c.check(session.set_source(t, j));
    });
  }

 private:
  std::string path_;  // the target field
};

}  // namespace

std::unique_ptr<Panel> make_retarget_panel() {
  return std::make_unique<RetargetPanel>();
}

}  // namespace ossa::viewer
