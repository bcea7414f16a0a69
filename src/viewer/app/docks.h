// Where the panels go in the window: the menu bar on top, the left window (its panels one under the other),
// the right window (Inspect: its panels as tabs), the bottom window (its panels as tabs) with the events
// beside it, the popups over everything; the panels' sizes (dragged at their inner edges, kept in the
// settings) and the 3D view in the middle.
#pragma once

#include <memory>
#include <vector>

#include "viewer/app/panel.h"

namespace ossa::viewer {

// The panels as the user sized them, shrunk where the window is too small to leave the 3D view its minimum.
void compute_layout(ViewState& s);
// The panels' inner edges dragged (a few pixels on the 3D view's side of each): sizes kept in the settings.
void resize_panels(ViewState& s);
// Every panel but the scene, each in its dock, in the list's order.
void draw_docks(ViewState& s, const std::vector<std::unique_ptr<Panel>>& panels);
// The verbs about the docks: expect-layout, font-scale, bottom-tab.
void add_dock_actions(ActionTable& table);

}  // namespace ossa::viewer
