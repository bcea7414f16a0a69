// The dope sheet (bottom window): the clip's keys, one row per animated joint (translation, rotation and
// scale keys in three rows of diamonds) and per animated morph target; a click selects a row (and its joint)
// for the curve view.
#include <algorithm>

#include "viewer/panels/panels.h"
#include "viewer/panels/time_axis.h"

namespace ossa::viewer {

namespace {

class DopeSheetPanel : public Panel {
 public:
  const char* name() const override { return "Dope sheet"; }
  Dock dock() const override { return Dock::kBottom; }

  void draw(ViewState& s) override {
    refresh_dope_sheet(s);
    ChannelSelection& ch = s.channel;
    const ShownClip shown = s.shown_clip();
    const float ui = s.ui_scale;
    if (!shown.what.empty()) {  // what the graph plays
      ImGui::TextColored(ImVec4(0.55f, 0.8f, 1, 1), "%s", shown.what.c_str());
      if (shown.clip < 0) return;
    }
    ImGui::TextDisabled("%zu rows, %zu keys", ch.dope.rows.size(), ch.dope.key_count());
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "translation");
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(0.45f, 0.9f, 0.45f, 1), "rotation");
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(0.45f, 0.65f, 1, 1), "scale");
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(0.85f, 0.55f, 1, 1), "morph weight");
    const float row_h = 18 * ui, marker_half = 3.5f * ui;
    const Track t = begin_track(s, 120 * ui, marker_half);
    const TimelineView& view = s.axis.view;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PushClipRect(t.origin, ImVec2(t.track_end, t.origin.y + t.avail.y), true);
    draw->PushClipRect(ImVec2(t.track_x, t.origin.y), ImVec2(t.track_end, t.origin.y + t.avail.y), true);
    draw_ruler(s, draw, t);
    draw->PopClipRect();
    draw->PopClipRect();
    ImGui::Dummy(ImVec2(1, t.ruler));
    const bool ruler_hovered =
        ImGui::IsItemHovered() ||
        ImGui::IsMouseHoveringRect(t.origin, ImVec2(t.track_end, t.origin.y + t.ruler));
    ImGui::BeginChild("dope rows", ImVec2(0, 0), false);
    ImDrawList* rows = ImGui::GetWindowDrawList();
    const ImU32 colors[4] = {IM_COL32(255, 115, 100, 255), IM_COL32(115, 230, 115, 255),
                             IM_COL32(115, 165, 255, 255), IM_COL32(215, 140, 255, 255)};
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(ch.dope.rows.size()), row_h);
    while (clipper.Step()) {
      for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
        const DopeRow& row = ch.dope.rows[r];
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImGui::PushID(r);
        if (ImGui::InvisibleButton("row", ImVec2(std::max(t.avail.x, 1.f), row_h))) {
          ch.row = r;
          if (row.joint >= 0) s.selected_joint = row.joint;
          ch.kind = row.joint >= 0
                        ? (row.keys[1].empty()
                               ? (row.keys[0].empty() ? ChannelKind::kScale : ChannelKind::kTranslation)
                               : ChannelKind::kRotation)
                        : ChannelKind::kMorphWeight;
        }
        ImGui::PopID();
        const bool selected = r == ch.row;
        rows->AddRectFilled(at, ImVec2(t.track_end, at.y + row_h),
                            selected ? IM_COL32(60, 62, 80, 255)
                            : r % 2  ? IM_COL32(34, 36, 40, 255)
                                     : IM_COL32(28, 30, 34, 255));
        rows->PushClipRect(at, ImVec2(t.track_x, at.y + row_h), true);
        rows->AddText(ImVec2(at.x + 4, at.y + 2), IM_COL32(210, 210, 220, 255), row.name.c_str());
        rows->PopClipRect();
        rows->PushClipRect(ImVec2(t.track_x, at.y), ImVec2(t.track_end, at.y + row_h), true);
        const int channels = row.joint >= 0 ? 3 : 1;
        for (int c = 0; c < channels; ++c) {
          const float y = at.y + row_h * (channels == 1 ? 0.5f : (static_cast<float>(c) + 0.5f) / 3);
          const float h = channels == 1 ? marker_half : std::min(marker_half, row_h / 6);
          for (float time : row.keys[c]) {
            const float x = t.x_of(view, time);
            rows->AddQuadFilled(ImVec2(x, y - h), ImVec2(x + h, y), ImVec2(x, y + h), ImVec2(x - h, y),
                                colors[row.joint >= 0 ? c : 3]);
          }
        }
        rows->PopClipRect();
      }
    }
    const float px = t.x_of(view, shown.time);
    rows->PushClipRect(ImVec2(t.track_x, t.origin.y), ImVec2(t.track_end, t.origin.y + t.avail.y), true);
    rows->AddLine(ImVec2(px, ImGui::GetWindowPos().y),
                  ImVec2(px, ImGui::GetWindowPos().y + ImGui::GetWindowHeight()), IM_COL32(255, 80, 80, 255),
                  2);
    rows->PopClipRect();
    const bool rows_hovered = ImGui::IsWindowHovered();
    ImGui::EndChild();
    draw->PushClipRect(ImVec2(t.track_x, t.origin.y), ImVec2(t.track_end, t.origin.y + t.ruler), true);
    draw->AddLine(ImVec2(px, t.origin.y), ImVec2(px, t.origin.y + t.ruler), IM_COL32(255, 80, 80, 255), 2);
    draw->PopClipRect();
    track_input(s, t, ruler_hovered || rows_hovered);
  }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    table.add("expect-dope-rows", Needs::kDocument, [](const ActionCall& c) {
      refresh_dope_sheet(c.s);
      const size_t rows = c.s.channel.dope.rows.size();
      return rows == static_cast<size_t>(c.number(0)) ||
             c.fail("the dope sheet has " + std::to_string(rows) + " rows");
    });
    table.add("dope-row", Needs::kDocument, [](const ActionCall& c) {
      refresh_dope_sheet(c.s);
      ChannelSelection& ch = c.s.channel;
      for (size_t r = 0; r < ch.dope.rows.size(); ++r)
        if (ch.dope.rows[r].name == c.word(0)) {
          ch.row = static_cast<int>(r);
          if (ch.dope.rows[r].joint >= 0) c.s.selected_joint = ch.dope.rows[r].joint;
          ch.kind = ch.dope.rows[r].joint >= 0 ? ChannelKind::kRotation : ChannelKind::kMorphWeight;
          return true;
        }
      return c.fail("the dope sheet has no row '" + c.word(0) + "'");
    });
  }
};

}  // namespace

std::unique_ptr<Panel> make_dope_sheet_panel() {
  return std::make_unique<DopeSheetPanel>();
}

}  // namespace ossa::viewer
