// The viewer's panels (app/panel.h), one file each in this folder, and the list the window draws them in.
#pragma once

#include <memory>
#include <vector>

#include "viewer/app/panel.h"

namespace ossa::viewer {

// The 3D view: the pointer over it (orbit, pan, zoom, hover and pick joints), the character (and a
// retargeted one beside it) drawn into the window, then its overlay (draw(): skeleton, names, axes, onion
// skin, motion trail, travelled path).
class ScenePanel : public Panel {
 public:
  const char* name() const override { return "Scene"; }
  Dock dock() const override { return Dock::kScene; }
  virtual void input(ViewState& s) = 0;
  virtual void render(ViewState& s) = 0;
};

// Left window (one section under the other)
std::unique_ptr<Panel> make_playback_panel();  // clip list, transport, speed, loop range, loop mode
std::unique_ptr<Panel> make_crossfade_panel();
std::unique_ptr<Panel> make_root_motion_panel();
std::unique_ptr<Panel> make_layer_panel();  // the override layer
std::unique_ptr<Panel> make_blend_space_panel();
std::unique_ptr<Panel> make_foot_placement_panel();
std::unique_ptr<Panel> make_display_panel();  // lighting, skinning path, grid, skeleton, crowd
// Inspect (right window's tabs)
std::unique_ptr<Panel> make_notify_editor_panel();
std::unique_ptr<Panel> make_joint_tree_panel();
std::unique_ptr<Panel> make_meshes_panel();
std::unique_ptr<Panel> make_morphs_panel();
std::unique_ptr<Panel> make_clip_info_panel();
std::unique_ptr<Panel> make_graph_panel();
std::unique_ptr<Panel> make_retarget_panel();
std::unique_ptr<Panel> make_motion_matching_panel();  // a stick drives the file's motion database
std::unique_ptr<Panel> make_timings_panel();
// Bottom window's tabs, and the events beside them
std::unique_ptr<Panel> make_timeline_panel();  // the notify lanes
std::unique_ptr<Panel> make_dope_sheet_panel();
std::unique_ptr<Panel> make_curves_panel();
std::unique_ptr<Panel> make_events_panel();
// Menu bar, popups and windows over the rest
std::unique_ptr<Panel> make_menu_panel();
std::unique_ptr<Panel> make_file_browser_panel();  // File > Open
std::unique_ptr<Panel> make_export_panel();        // File > Export glTF, Export view
std::unique_ptr<Panel> make_error_panel();
std::unique_ptr<Panel> make_prompts_panel();  // unsaved edits, recovery
std::unique_ptr<ScenePanel> make_scene_panel();

// Every panel but the scene, in the order they are drawn in their docks.
std::vector<std::unique_ptr<Panel>> make_panels();

}  // namespace ossa::viewer
