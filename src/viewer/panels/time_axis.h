// What the bottom panels (timeline, dope sheet, curves) share: the time axis laid out in the region left in
// the window (names on the left, then the track), its ruler, scrubbing, zoom and pan (ViewState::axis), and
// the dope sheet's rows that the curve view reads too (ViewState::channel).
#pragma once

#include "viewer/app/view_state.h"

namespace ossa::viewer {

// Names on the left, then the track, which keeps a margin of half a marker each side so that a key or notify
// at the clip's start or end is drawn whole; what lies outside it (zoomed in) is clipped, never over the
// names.
struct Track {
  ImVec2 origin, avail;
  float name_w = 0, ruler = 0, pad = 0;
  float track_x = 0, track_end = 0, x0 = 0, width = 0;
  float x_of(const TimelineView& view, float time) const { return x0 + view.time_to_x(time); }
};

// Lays out the region left in the window (the axis is set up for the current clip when it changed).
Track begin_track(ViewState& s, float name_w, float marker_half);
void draw_ruler(const ViewState& s, ImDrawList* draw, const Track& track);
// Scrub on the ruler (left drag; not while a graph drives the character: it has no playhead to move), zoom
// (wheel) and pan (middle drag) over the track's region.
void track_input(ViewState& s, const Track& track, bool hovered);

// The dope sheet of the shown clip (ViewState::shown_clip; made again when the clip or the asset changed, the
// row of the selected joint selected; none while no one clip plays).
void refresh_dope_sheet(ViewState& s);

}  // namespace ossa::viewer
