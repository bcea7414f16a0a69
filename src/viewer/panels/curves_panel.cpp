// The curve view (bottom window): one channel over the clip, the selected dope-sheet row's (or the selected
// joint's rotation), as x y z (w) or Euler degrees, with its keys and the playhead. Values are what playback
// samples.
#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <tuple>

#include "viewer/panels/panels.h"
#include "viewer/panels/time_axis.h"

namespace ossa::viewer {

namespace {

class CurvesPanel : public Panel {
 public:
  const char* name() const override { return "Curves"; }
  Dock dock() const override { return Dock::kBottom; }

  void draw(ViewState& s) override {
    refresh_dope_sheet(s);
    ChannelSelection& ch = s.channel;
    const ShownClip shown = s.shown_clip();
    const CharacterAsset& asset = s.pose_asset();
    const float ui = s.ui_scale;
    if (!shown.what.empty()) {  // what the graph plays
      ImGui::TextColored(ImVec4(0.55f, 0.8f, 1, 1), "%s", shown.what.c_str());
      if (shown.clip < 0) return;
    }
    const DopeRow* row =
        ch.row >= 0 && ch.row < static_cast<int>(ch.dope.rows.size()) ? &ch.dope.rows[ch.row] : nullptr;
    const int joint = row ? row->joint : s.selected_joint;
    if (!row && joint < 0) {
      ImGui::TextDisabled("Select a row in the dope sheet, or a joint, to see its curves.");
      return;
    }
    const bool morph = row && row->joint < 0;
    if (!morph) {
      int kind = static_cast<int>(ch.kind == ChannelKind::kMorphWeight ? ChannelKind::kRotation : ch.kind);
      ImGui::SetNextItemWidth(130 * ui);
      ImGui::Combo("##channel", &kind, "translation\0rotation\0scale\0");
      ch.kind = static_cast<ChannelKind>(kind);  // a joint row: a joint channel (a morph row's kind is kept)
      if (ch.kind == ChannelKind::kRotation) {
        ImGui::SameLine();
        ImGui::Checkbox("Euler degrees (XYZ)", &ch.euler);
      }
      ImGui::SameLine();
    } else {
      ch.kind = ChannelKind::kMorphWeight;
    }
    ImGui::TextUnformatted(row ? row->name.c_str() : asset.skeleton.name(joint).c_str());
    const auto key =
        std::make_tuple(&asset, shown.clip, morph ? -2 - ch.row : joint, static_cast<int>(ch.kind));
    if (key != curve_for_) {
      curve_ = channel_curve(asset, shown.clip, ch.kind, joint, morph ? row->mesh : -1,
                             morph ? row->target : -1, 240);
      curve_for_ = key;
    }
    const bool euler = ch.kind == ChannelKind::kRotation && ch.euler;
    const int components = morph ? 1 : euler ? 3 : ch.kind == ChannelKind::kRotation ? 4 : 3;
    auto value = [&](const CurveSample& sample, int k) {
      return euler ? sample.euler_degrees[k] : sample.value[k];
    };
    float lo = FLT_MAX, hi = -FLT_MAX;
    for (const CurveSample& sample : curve_)
      for (int k = 0; k < components; ++k)
        lo = std::min(lo, value(sample, k)), hi = std::max(hi, value(sample, k));
    if (curve_.empty()) lo = 0, hi = 1;
    const float span = std::max(hi - lo, euler ? 1.f : 1e-4f);
    lo -= span * 0.08f, hi += span * 0.08f;

    const Track t = begin_track(s, 70 * ui, 3 * ui);
    const TimelineView& view = s.axis.view;
    ImGui::InvisibleButton("curves", ImVec2(std::max(t.avail.x, 1.f), std::max(t.avail.y, 1.f)),
                           ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonMiddle);
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float top = t.origin.y + t.ruler + 4, bottom = t.origin.y + t.avail.y - 4;
    auto y_of = [&](float v) { return bottom - (v - lo) / (hi - lo) * (bottom - top); };
    draw->PushClipRect(t.origin, ImVec2(t.track_end, t.origin.y + t.avail.y), true);
    draw->AddRectFilled(ImVec2(t.origin.x, t.origin.y + t.ruler), ImVec2(t.track_end, t.origin.y + t.avail.y),
                        IM_COL32(28, 30, 34, 255));
    char label[32];
    for (int g = 0; g <= 4; ++g) {  // value grid with labels
      const float v = lo + (hi - lo) * static_cast<float>(g) / 4, y = y_of(v);
      draw->AddLine(ImVec2(t.track_x, y), ImVec2(t.track_end, y), IM_COL32(50, 52, 58, 255));
      std::snprintf(label, sizeof label, euler ? "%.1f" : "%.4g", v);
      draw->AddText(ImVec2(t.origin.x + 4, y - 7 * ui), IM_COL32(170, 170, 180, 255), label);
    }
    draw->PushClipRect(ImVec2(t.track_x, t.origin.y), ImVec2(t.track_end, t.origin.y + t.avail.y), true);
    draw_ruler(s, draw, t);
    const ImU32 colors[4] = {IM_COL32(255, 110, 100, 255), IM_COL32(110, 230, 110, 255),
                             IM_COL32(110, 160, 255, 255), IM_COL32(200, 200, 200, 255)};
    std::vector<float> keys;
    if (row) keys = row->keys[morph ? 0 : static_cast<int>(ch.kind)];
    for (int k = 0; k < components; ++k) {
      for (size_t i = 1; i < curve_.size(); ++i)
        draw->AddLine(ImVec2(t.x_of(view, curve_[i - 1].time), y_of(value(curve_[i - 1], k))),
                      ImVec2(t.x_of(view, curve_[i].time), y_of(value(curve_[i], k))), colors[morph ? 3 : k],
                      1.5f * ui);
      for (const CurveSample& sample : curve_)
        if (std::binary_search(keys.begin(), keys.end(), sample.time))
          draw->AddCircleFilled(ImVec2(t.x_of(view, sample.time), y_of(value(sample, k))), 2.5f * ui,
                                colors[morph ? 3 : k]);
    }
    const float px = t.x_of(view, shown.time);
    draw->AddLine(ImVec2(px, t.origin.y), ImVec2(px, t.origin.y + t.avail.y), IM_COL32(255, 80, 80, 255), 2);
    draw->PopClipRect();
    draw->PopClipRect();
    track_input(s, t, hovered);
  }

  void opened(ViewState&) override { curve_for_ = {nullptr, -2, -1, -1}; }

  void add_actions(ActionTable& table) override {
    // The curve view's channel of the selected row.
    table.add("curve", ActionTable::Needs::kDocument, [](const ActionCall& c) {
      ChannelSelection& ch = c.s.channel;
      ch.kind = c.word(0) == "t"   ? ChannelKind::kTranslation
                : c.word(0) == "s" ? ChannelKind::kScale
                                   : ChannelKind::kRotation;
      if (c.words() > 1) ch.euler = c.word(1) == "euler";
      return true;
    });
  }

 private:
  std::vector<CurveSample> curve_;
  std::tuple<const CharacterAsset*, int, int, int> curve_for_{nullptr, -2, -1, -1};  // asset, clip, row, kind
};

}  // namespace

std::unique_ptr<Panel> make_curves_panel() {
  return std::make_unique<CurvesPanel>();
}

}  // namespace ossa::viewer
