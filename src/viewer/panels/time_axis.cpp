#include "viewer/panels/time_axis.h"

#include <algorithm>
#include <cmath>

namespace ossa::viewer {

Track begin_track(ViewState& s, float name_w, float marker_half) {
  const int shown = s.shown_clip().clip;
  if (const Clip* c = s.clip_at(shown); c && s.axis.clip != shown) {
    s.axis.view.set_clip(c->duration(), c->frame_rate() > 0 ? c->frame_rate() : 30);
    s.axis.clip = shown;
  }
  Track t;
  t.origin = ImGui::GetCursorScreenPos();
  t.avail = ImGui::GetContentRegionAvail();
  t.name_w = name_w;
  t.ruler = 22 * s.ui_scale;
  t.pad = marker_half + 2;
  t.track_x = t.origin.x + name_w;
  t.track_end = t.origin.x + std::max(t.avail.x, name_w + 1);
  t.width = std::max(t.avail.x - name_w - 2 * t.pad, 32.f);
  t.x0 = t.track_x + t.pad;
  s.axis.view.set_width(t.width);
  return t;
}

void draw_ruler(const ViewState& s, ImDrawList* draw, const Track& t) {
  draw->AddRectFilled(ImVec2(t.track_x, t.origin.y), ImVec2(t.track_end, t.origin.y + t.ruler),
                      IM_COL32(40, 42, 48, 255));
  for (const Tick& tick : s.axis.view.ticks()) {
    const float x = t.x0 + tick.x;
    draw->AddLine(ImVec2(x, t.origin.y + (tick.major ? 4 : 12) * s.ui_scale), ImVec2(x, t.origin.y + t.ruler),
                  IM_COL32(150, 150, 160, 255));
    if (tick.major) {  // right of the tick, or left of it at the track's end (the clip's last frame)
      const float label_w = ImGui::CalcTextSize(tick.label.c_str()).x;
      const float label_x = x + 2 + label_w <= t.track_end ? x + 2 : x - 2 - label_w;
      draw->AddText(ImVec2(label_x, t.origin.y), IM_COL32(200, 200, 210, 255), tick.label.c_str());
    }
  }
}

void track_input(ViewState& s, const Track& t, bool hovered) {
  ImGuiIO& io = ImGui::GetIO();
  TimeAxis& axis = s.axis;
  const float lx = io.MousePos.x - t.x0;
  if (hovered && io.MouseWheel != 0) axis.view.zoom(std::pow(1.25f, io.MouseWheel), lx);
  if (hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Middle)) axis.drag = Drag::kPan;
  if (hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Left) && io.MousePos.y < t.origin.y + t.ruler &&
      io.MousePos.x >= t.track_x)
    axis.drag = Drag::kScrub;
  Playback& p = *s.doc->playback;
  if (axis.drag == Drag::kScrub && p.current_clip() && !s.graph) {  // a graph plays on (it has no playhead)
    p.set_paused(true);
    p.seek(std::clamp(axis.view.x_to_time(lx), 0.f, p.current_clip()->duration()));
  }
  if (axis.drag == Drag::kPan) axis.view.pan(io.MouseDelta.x);
  if ((axis.drag == Drag::kScrub || axis.drag == Drag::kPan) && !io.MouseDown[0] && !io.MouseDown[2])
    axis.drag = Drag::kNone;
}

void refresh_dope_sheet(ViewState& s) {
  ChannelSelection& c = s.channel;
  const CharacterAsset* asset = &s.pose_asset();
  const int clip = s.shown_clip().clip;
  if (asset == c.asset && clip == c.clip) return;
  c.dope = clip >= 0 ? make_dope_sheet(*asset, clip) : DopeSheet{};
  c.asset = asset;
  c.clip = clip;
  c.row = -1;
  for (size_t r = 0; r < c.dope.rows.size() && s.selected_joint >= 0; ++r)
    if (c.dope.rows[r].joint == s.selected_joint) c.row = static_cast<int>(r);
}

}  // namespace ossa::viewer
