#include "viewer/panels/panels.h"

namespace ossa::viewer {

std::vector<std::unique_ptr<Panel>> make_panels() {
  std::vector<std::unique_ptr<Panel>> panels;
  panels.push_back(make_menu_panel());
  // Left window, top to bottom
  panels.push_back(make_playback_panel());
  panels.push_back(make_crossfade_panel());
  panels.push_back(make_root_motion_panel());
  panels.push_back(make_layer_panel());
  panels.push_back(make_blend_space_panel());
  panels.push_back(make_foot_placement_panel());
  panels.push_back(make_display_panel());
  // Inspect's tabs
  panels.push_back(make_notify_editor_panel());
  panels.push_back(make_joint_tree_panel());
  panels.push_back(make_meshes_panel());
  panels.push_back(make_morphs_panel());
  panels.push_back(make_clip_info_panel());
  panels.push_back(make_graph_panel());
  panels.push_back(make_retarget_panel());
  panels.push_back(make_motion_matching_panel());
  panels.push_back(make_timings_panel());
  // Bottom window's tabs, then the events beside them
  panels.push_back(make_timeline_panel());
  panels.push_back(make_dope_sheet_panel());
  panels.push_back(make_curves_panel());
  panels.push_back(make_events_panel());
  // Over everything, in this order
  panels.push_back(make_file_browser_panel());
  panels.push_back(make_export_panel());
  panels.push_back(make_error_panel());
  panels.push_back(make_prompts_panel());
  return panels;
}

}  // namespace ossa::viewer
