// The timeline (bottom window, Notifies tab): the ruler to scrub, one lane per notify name (instants as
// diamonds, states as bars with their duration), the playhead; select, move and resize notifies with the
// pointer, zoom with the wheel, pan with the middle button. Undo, redo, save and fit above it. The clip is
// the one the character plays: under an animation graph, the clip of its first layer's state (or what the
// state plays instead, said above the lanes).
#include <algorithm>
#include <cmath>

#include "viewer/panels/panels.h"
#include "viewer/panels/time_axis.h"

namespace ossa::viewer {

namespace {

class TimelinePanel : public Panel {
 public:
  const char* name() const override { return "Notifies"; }
  Dock dock() const override { return Dock::kBottom; }

  void draw(ViewState& s) override {
    NotifyDocument& notifies = s.doc->notifies;
    Playback& p = *s.doc->playback;
    TimelineView& view = s.axis.view;
    const ShownClip shown = s.shown_clip();  // the playback's clip, or the clip of the graph's state
    const int clip = shown.clip;
    const Clip* c = s.clip_at(clip);
    if (!c && shown.what.empty()) return;
    const float ui = s.ui_scale;
    if (ImGui::Button("Undo") && notifies.undo()) s.edited("");
    ImGui::SameLine();
    if (ImGui::Button("Redo") && notifies.redo()) s.edited("");
    ImGui::SameLine();
    if (ImGui::Button(notifies.dirty() ? "Save*" : "Save")) s.save_notifies("");
    ImGui::SameLine();
    if (ImGui::Button("Fit")) view.show_all();
    ImGui::SameLine();
    if (!shown.what.empty()) {  // what the graph plays
      ImGui::TextColored(ImVec4(0.55f, 0.8f, 1, 1), "%s", shown.what.c_str());
      ImGui::SameLine();
    }
    ImGui::TextDisabled("%s", s.status_message.c_str());
    if (!c) return;

    const float lane_h = 22 * ui, marker_half = lane_h * 0.5f - 3;
    const Track track = begin_track(s, 90 * ui, marker_half);
    const ImVec2 origin = track.origin, avail = track.avail;
    const float ruler = track.ruler, track_x = track.track_x, track_end = track.track_end, x0 = track.x0;
    ImGui::InvisibleButton("timeline", ImVec2(std::max(avail.x, 1.f), std::max(avail.y, 1.f)),
                           ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonMiddle);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const std::vector<Lane> lanes = TimelineView::lanes(notifies, clip, drag_lanes_);
    const float lanes_y = origin.y + ruler;
    draw->PushClipRect(origin, ImVec2(origin.x + avail.x, origin.y + avail.y), true);
    for (size_t l = 0; l <= lanes.size(); ++l) {
      const float y = lanes_y + static_cast<float>(l) * lane_h;
      draw->AddRectFilled(ImVec2(origin.x, y), ImVec2(track_end, y + lane_h),
                          l % 2 ? IM_COL32(34, 36, 40, 255) : IM_COL32(28, 30, 34, 255));
    }
    draw->PushClipRect(origin, ImVec2(track_x, origin.y + avail.y), true);
    for (size_t l = 0; l < lanes.size(); ++l)
      draw->AddText(ImVec2(origin.x + 4, lanes_y + static_cast<float>(l) * lane_h + 3),
                    IM_COL32(210, 210, 220, 255), lanes[l].name.c_str());
    draw->PopClipRect();
    draw->PushClipRect(ImVec2(track_x, origin.y), ImVec2(track_end, origin.y + avail.y), true);
    draw_ruler(s, draw, track);
    for (size_t l = 0; l < lanes.size(); ++l) {
      const float y = lanes_y + static_cast<float>(l) * lane_h;
      for (uint32_t id : lanes[l].ids) {
        const EditableNotify* n = notifies.find(clip, id);
        if (!n) continue;
        const bool selected = id == s.selected_notify;
        const ImU32 color = selected ? IM_COL32(255, 180, 60, 255) : IM_COL32(90, 170, 255, 255);
        const float x = x0 + view.time_to_x(n->time);
        if (n->duration > 0) {
          const float x1 = x0 + view.time_to_x(n->time + n->duration);
          draw->AddRectFilled(ImVec2(x, y + 4), ImVec2(std::max(x1, x + 2), y + lane_h - 4), color, 3);
          draw->AddRectFilled(ImVec2(std::max(x1 - 4 * ui, x), y + 4),
                              ImVec2(std::max(x1, x + 2), y + lane_h - 4), IM_COL32(255, 255, 255, 160));
        } else {
          const float h = marker_half;
          draw->AddQuadFilled(ImVec2(x, y + 3), ImVec2(x + h, y + lane_h * 0.5f), ImVec2(x, y + lane_h - 3),
                              ImVec2(x - h, y + lane_h * 0.5f), color);
        }
      }
    }
    // Playhead
    const float px = x0 + view.time_to_x(shown.time);
    draw->AddLine(ImVec2(px, origin.y), ImVec2(px, origin.y + avail.y), IM_COL32(255, 80, 80, 255), 2);
    draw->PopClipRect();
    draw->PopClipRect();

    // Interaction: scrub on the ruler, select / move / resize notifies, wheel zooms, middle drag pans.
    ImGuiIO& io = ImGui::GetIO();
    const ImVec2 m = io.MousePos;
    const bool hovered = ImGui::IsItemHovered();
    const float lx = m.x - x0, ly = m.y - lanes_y;
    const Hit hit =
        m.x >= track_x ? view.hit_test(notifies, clip, lx, ly, lane_h, 5 * ui, drag_lanes_) : Hit{};
    if (hovered && io.MouseWheel != 0) view.zoom(std::pow(1.25f, io.MouseWheel), lx);
    Drag& drag = s.axis.drag;
    if (hovered && hit.part != HitPart::kNone && drag == Drag::kNone) {
      if (const EditableNotify* n = notifies.find(clip, hit.id)) {
        if (n->duration > 0)
          ImGui::SetTooltip("%s\n%.3f s for %.3f s\n%s", n->name.c_str(), n->time, n->duration,
                            n->payload.c_str());
        else
          ImGui::SetTooltip("%s\n%.3f s\n%s", n->name.c_str(), n->time, n->payload.c_str());
      }
    }
    if (ImGui::IsItemClicked(ImGuiMouseButton_Middle)) drag = Drag::kPan;
    if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) {
      if (m.y < lanes_y || m.x < track_x) {
        drag = Drag::kScrub;
      } else if (hit.part != HitPart::kNone) {
        s.selected_notify = hit.id;
        const EditableNotify* n = notifies.find(clip, hit.id);
        drag = hit.part == HitPart::kEnd ? Drag::kResize : Drag::kMove;
        drag_offset_ = n ? n->time - view.x_to_time(lx) : 0;
        drag_lanes_.clear();
        for (const Lane& lane : lanes) drag_lanes_.push_back(lane.name);
        notifies.begin_group();
      } else {
        s.selected_notify = 0;
        drag = Drag::kScrub;
      }
    }
    switch (drag) {
      case Drag::kScrub:
        if (s.graph) break;  // a graph plays on: it has no playhead to move
        p.set_paused(true);
        p.seek(std::clamp(view.x_to_time(lx), 0.f, c->duration()));
        break;
      case Drag::kMove:
        notifies.move(clip, s.selected_notify, s.on_frame(view.x_to_time(lx) + drag_offset_));
        break;
      case Drag::kResize:
        if (const EditableNotify* n = notifies.find(clip, s.selected_notify))
          notifies.set_duration(clip, s.selected_notify,
                                std::max(s.on_frame(view.x_to_time(lx)) - n->time, 0.f));
        break;
      case Drag::kPan:
        view.pan(io.MouseDelta.x);
        break;
      case Drag::kNone:
        break;
    }
    if (drag != Drag::kNone && !io.MouseDown[0] && !io.MouseDown[2]) {
      if (drag == Drag::kMove || drag == Drag::kResize) {
        notifies.end_group();
        s.edited("");  // the Animator fires the moved notify from now on
      }
      drag = Drag::kNone;
      drag_lanes_.clear();
    }
  }

  void add_actions(ActionTable& table) override {
    // The timeline, about the playhead (as the wheel does about the pointer).
    table.add("zoom", ActionTable::Needs::kDocument, [](const ActionCall& c) {
      TimelineView& view = c.s.axis.view;
      view.zoom(c.number_f(0), view.time_to_x(c.s.shown_clip().time));
      return true;
    });
  }

 private:
  float drag_offset_ = 0;
  std::vector<std::string> drag_lanes_;  // the lane order when a notify drag began (kept until it ends)
};

}  // namespace

std::unique_ptr<Panel> make_timeline_panel() {
  return std::make_unique<TimelinePanel>();
}

}  // namespace ossa::viewer
