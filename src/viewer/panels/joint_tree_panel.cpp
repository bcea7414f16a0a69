// Inspect > Joints: the skeleton as a tree (a joint picked in the view is revealed: its parents expanded, the
// list scrolled to it) and the selected joint's local and model transforms at the playhead.
#include <algorithm>
#include <cstdint>

#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class JointTreePanel : public Panel {
 public:
  const char* name() const override { return "Joints"; }
  Dock dock() const override { return Dock::kInspect; }
  bool wants_forward(const ViewState& s) const override { return s.reveal_joint >= 0; }

  void draw(ViewState& s) override {
    Document& doc = *s.doc;
    const Skeleton& skeleton = doc.playback->animated_asset().skeleton;
    const int joints = skeleton.joint_count();
    const auto parents = skeleton.parents();
    ImGui::BeginChild("joints", ImVec2(0, 220 * s.ui_scale), true);
    const int reveal = s.reveal_joint >= 0 && s.reveal_joint < joints ? s.reveal_joint : -1;
    s.reveal_joint = -1;
    for (int p = reveal >= 0 ? parents[reveal] : -1; p >= 0; p = parents[p]) doc.expanded[p] = 1;
    // A flat list indented by depth (no recursion: a hostile skeleton may be a chain of 65,535 joints), of
    // the joints not inside a collapsed node, drawn only where visible.
    visible_.clear();
    int hidden_below = INT32_MAX;  // joints deeper than this are inside a collapsed node
    for (int j = 0; j < joints; ++j) {
      const int depth = doc.depth[j];
      if (depth > hidden_below) continue;
      hidden_below = INT32_MAX;
      visible_.push_back(j);
      if (!doc.expanded[j]) hidden_below = depth;
    }
    if (reveal >= 0) {  // scrolled to the middle of the list (seen from the next frame)
      const auto row = std::find(visible_.begin(), visible_.end(), reveal) - visible_.begin();
      ImGui::SetScrollY(std::max(0.f, static_cast<float>(row) * ImGui::GetTextLineHeightWithSpacing() -
                                          ImGui::GetWindowHeight() * 0.5f));
    }
    shown_.clear();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(visible_.size()));
    while (clipper.Step()) {
      for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
        const int j = visible_[row];
        const bool has_children = j + 1 < joints && parents[j + 1] == j;
        ImGui::PushID(j);
        ImGui::SetCursorPosX(ImGui::GetCursorPosX() +
                             static_cast<float>(std::min(doc.depth[j], 40)) * 10 * s.ui_scale);
        if (has_children) {
          if (ImGui::SmallButton(doc.expanded[j] ? "-" : "+")) doc.expanded[j] = !doc.expanded[j];
          ImGui::SameLine();
        }
        if (ImGui::Selectable(skeleton.name(j).c_str(), j == s.selected_joint)) s.selected_joint = j;
        if (ImGui::IsItemVisible()) shown_.push_back(j);
        ImGui::PopID();
      }
    }
    ImGui::EndChild();
    const int selected = s.selected_joint;
    if (selected >= 0 && selected < joints) {
      const JointPose& local = s.pose_locals()[selected];  // the graph's pose when one drives
      const Transform model = decompose(s.pose_model()[selected]);
      ImGui::Text("%s", skeleton.name(selected).c_str());
      ImGui::Text("local  t %.4f %.4f %.4f", local.translation[0], local.translation[1],
                  local.translation[2]);
      ImGui::Text("       r %.4f %.4f %.4f %.4f", local.rotation[0], local.rotation[1], local.rotation[2],
                  local.rotation[3]);
      ImGui::Text("       s %.4f %.4f %.4f", local.scale[0], local.scale[1], local.scale[2]);
      ImGui::Text("model  t %.4f %.4f %.4f", model.translation.x, model.translation.y, model.translation.z);
      ImGui::Text("       r %.4f %.4f %.4f %.4f", model.rotation.x, model.rotation.y, model.rotation.z,
                  model.rotation.w);
      ImGui::Text("       s %.4f %.4f %.4f", model.scale.x, model.scale.y, model.scale.z);
    }
  }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    table.add("select-joint", Needs::kDocument, [](const ActionCall& c) {  // as a pick in the view
      c.s.selected_joint = c.s.reveal_joint = c.s.doc->character->asset.skeleton.find_joint(c.word(0));
      return c.s.selected_joint >= 0 || c.fail("no joint '" + c.word(0) + "'");
    });
    table.add("expect-joint-shown", Needs::kDocument, [this](const ActionCall& c) {
      const int j = c.s.doc->character->asset.skeleton.find_joint(c.word(0));
      return std::find(shown_.begin(), shown_.end(), j) != shown_.end() ||
             c.fail("the joint tree does not show '" + c.word(0) + "'");
    });
  }

 private:
  std::vector<int> visible_;  // scratch: the rows
  std::vector<int> shown_;    // the rows on screen last frame
};

}  // namespace

std::unique_ptr<Panel> make_joint_tree_panel() {
  return std::make_unique<JointTreePanel>();
}

}  // namespace ossa::viewer
