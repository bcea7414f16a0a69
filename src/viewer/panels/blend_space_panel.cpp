// Blend space (left window): clips ticked as samples at (x, y), sync markers, and a pad that drives the
// parameter (drag in it); each sample's dot grows with its weight, the leader's in orange.
#include <algorithm>
#include <cfloat>
#include <cstdio>

#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

// The Document's rows to the Playback; "" or why not.
std::string apply_blend_space(Document& doc) {
  std::vector<int> clips;
  std::vector<BlendPoint> points;
  for (size_t c = 0; c < doc.blend_rows.size(); ++c) {
    const Document::BlendRow& row = doc.blend_rows[c];
    if (!row.use) continue;
    clips.push_back(static_cast<int>(c));
    points.push_back({row.x, doc.blend_dimensions == 2 ? row.y : 0.f});
  }
  if (clips.empty()) return "blend space: tick the clips to blend";
  std::vector<std::string> markers;
  for (size_t begin = 0; begin < doc.blend_markers.size();) {
    const size_t comma = std::min(doc.blend_markers.find(',', begin), doc.blend_markers.size());
    if (comma > begin) markers.push_back(doc.blend_markers.substr(begin, comma - begin));
    begin = comma + 1;
  }
  return doc.playback->set_blend_space(std::move(clips), std::move(points), doc.blend_dimensions,
                                       std::move(markers));
}

class BlendSpacePanel : public Panel {
 public:
  const char* name() const override { return "Blend space"; }
  Dock dock() const override { return Dock::kLeft; }

  void draw(ViewState& s) override {
    Document& doc = *s.doc;
    Playback& p = *doc.playback;
    const CharacterAsset& asset = doc.character->asset;
    const float ui = s.ui_scale;
    section(name());
    bool on = p.blend_space_on();
    bool changed = false;
    if (ImGui::Checkbox("drive the pose", &on)) {
      if (on) {
        if (std::string refusal = apply_blend_space(doc); !refusal.empty()) s.error = refusal;
      } else {
        p.set_blend_space({}, {}, 1);
      }
    }
    ImGui::SameLine();
    changed |= ImGui::RadioButton("1D", &doc.blend_dimensions, 1);
    ImGui::SameLine();
    changed |= ImGui::RadioButton("2D", &doc.blend_dimensions, 2);
    if (ImGui::BeginTable("blend", doc.blend_dimensions == 2 ? 3 : 2, ImGuiTableFlags_ScrollY,
                          ImVec2(0, ImGui::GetFrameHeightWithSpacing() *
                                            static_cast<float>(std::min<size_t>(asset.clips.size(), 4)) +
                                        2 * ui))) {
      ImGui::TableSetupColumn("clip", ImGuiTableColumnFlags_WidthStretch);
      ImGui::TableSetupColumn("x", ImGuiTableColumnFlags_WidthFixed, 60 * ui);
      if (doc.blend_dimensions == 2) ImGui::TableSetupColumn("y", ImGuiTableColumnFlags_WidthFixed, 60 * ui);
      for (size_t c = 0; c < doc.blend_rows.size(); ++c) {
        Document::BlendRow& row = doc.blend_rows[c];
        ImGui::PushID(static_cast<int>(c));
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        changed |= ImGui::Checkbox(asset.clips[c].name().c_str(), &row.use);
        ImGui::TableNextColumn();
        ImGui::SetNextItemWidth(-FLT_MIN);
        changed |= ImGui::DragFloat("##x", &row.x, 0.05f, -1e6f, 1e6f, "%.2f");
        if (doc.blend_dimensions == 2) {
          ImGui::TableNextColumn();
          ImGui::SetNextItemWidth(-FLT_MIN);
          changed |= ImGui::DragFloat("##y", &row.y, 0.05f, -1e6f, 1e6f, "%.2f");
        }
        ImGui::PopID();
      }
      ImGui::EndTable();
    }
    char markers[128];
    std::snprintf(markers, sizeof markers, "%s", doc.blend_markers.c_str());
    if (ImGui::InputText("sync markers", markers, sizeof markers)) {
      doc.blend_markers = markers;
      changed = true;
    }
    if (changed && p.blend_space_on()) {
      if (std::string refusal = apply_blend_space(doc); !refusal.empty())
        s.error = refusal, p.set_blend_space({}, {}, 1);
    }
    if (const BlendSpace* space = p.blend_space()) draw_pad(s, *space);
  }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    table.add("blend-sample", Needs::kDocument, [](const ActionCall& c) {
      const int clip = c.find_clip(c.word(0));
      if (clip < 0) return false;
      c.s.doc->blend_rows[clip] = {true, c.number_f(0), c.number_f(1)};
      return true;
    });
    table.add("blend", Needs::kDocument, [](const ActionCall& c) {
      Document& doc = *c.s.doc;
      if (c.word(0) == "off") {
        for (auto& row : doc.blend_rows) row.use = false;
        return doc.playback->set_blend_space({}, {}, 1), true;
      }
      doc.blend_dimensions = c.word(0) == "2d" ? 2 : 1;
      if (c.words() > 1) doc.blend_markers = c.word(1);
      return c.check(apply_blend_space(doc));
    });
    table.add("blend-param", Needs::kDocument, [](const ActionCall& c) {
      c.s.doc->playback->set_blend_parameter(c.number_f(0), c.number_f(1));
      return true;
    });
  }

 private:
  // The pad: sample points mapped into a square (2D) or a strip (1D) with a margin; y up.
  static void draw_pad(ViewState& s, const BlendSpace& space) {
    Playback& p = *s.doc->playback;
    const CharacterAsset& asset = s.doc->character->asset;
    const float ui = s.ui_scale;
    const float width = ImGui::GetContentRegionAvail().x;
    const ImVec2 size(width, space.dimensions() == 2 ? std::min(width, 180 * ui) : 36 * ui);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("pad", size);
    BlendPoint lo = space.sample_point(0), hi = lo;
    for (int i = 1; i < space.sample_count(); ++i) {
      const BlendPoint q = space.sample_point(i);
      lo = {std::min(lo.x, q.x), std::min(lo.y, q.y)}, hi = {std::max(hi.x, q.x), std::max(hi.y, q.y)};
    }
    const float margin_x = std::max(hi.x - lo.x, 1e-3f) * 0.1f,
                margin_y = std::max(hi.y - lo.y, 1e-3f) * 0.1f;
    lo = {lo.x - margin_x, lo.y - margin_y}, hi = {hi.x + margin_x, hi.y + margin_y};
    auto to_screen = [&](BlendPoint q) {
      const float y = space.dimensions() == 2 ? (q.y - lo.y) / (hi.y - lo.y) : 0.5f;
      return ImVec2(origin.x + (q.x - lo.x) / (hi.x - lo.x) * size.x, origin.y + (1 - y) * size.y);
    };
    if (ImGui::IsItemActive()) {
      const ImVec2 m = ImGui::GetIO().MousePos;
      p.set_blend_parameter(lo.x + std::clamp((m.x - origin.x) / size.x, 0.f, 1.f) * (hi.x - lo.x),
                            lo.y + std::clamp(1 - (m.y - origin.y) / size.y, 0.f, 1.f) * (hi.y - lo.y));
    }
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(30, 32, 38, 255));
    draw->AddRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(90, 90, 100, 255));
    const std::span<const float> weights = p.blend_weights();
    const std::span<const int> clips = p.blend_clips();
    for (int i = 0; i < space.sample_count(); ++i) {
      const ImVec2 at = to_screen(space.sample_point(i));
      const float w = i < static_cast<int>(weights.size()) ? weights[i] : 0.f;
      draw->AddCircleFilled(
          at, (3 + 6 * w) * ui,
          i == p.blend_leader() ? IM_COL32(255, 170, 40, 255) : IM_COL32(200, 200, 210, 255));
      const std::string& clip_name = asset.clips[clips[i]].name();
      const size_t bar = clip_name.rfind('|');
      draw->AddText(ImVec2(at.x + 6 * ui, at.y - 14 * ui), IM_COL32(200, 200, 210, 255),
                    (bar == std::string::npos ? clip_name : clip_name.substr(bar + 1)).c_str());
    }
    const ImVec2 at = to_screen(p.blend_parameter());
    draw->AddLine(ImVec2(at.x - 6 * ui, at.y), ImVec2(at.x + 6 * ui, at.y), IM_COL32(80, 200, 255, 255),
                  2 * ui);
    draw->AddLine(ImVec2(at.x, at.y - 6 * ui), ImVec2(at.x, at.y + 6 * ui), IM_COL32(80, 200, 255, 255),
                  2 * ui);
    const BlendPoint q = p.blend_parameter();
    if (space.dimensions() == 2)
      ImGui::Text("parameter %.2f, %.2f", q.x, q.y);
    else
      ImGui::Text("parameter %.2f", q.x);
  }
};

}  // namespace

std::unique_ptr<Panel> make_blend_space_panel() {
  return std::make_unique<BlendSpacePanel>();
}

}  // namespace ossa::viewer
