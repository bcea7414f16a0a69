#include "viewer/app/docks.h"

#include <algorithm>
#include <cmath>

#include "viewer/app/window.h"

namespace ossa::viewer {

namespace {

constexpr ImGuiWindowFlags kFixed =
    ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse;

void draw_left(ViewState& s, const std::vector<std::unique_ptr<Panel>>& panels) {
  int win_w = 0, win_h = 0;
  s.window->size(win_w, win_h);
  ImGui::SetNextWindowPos(ImVec2(0, s.layout.menu));
  ImGui::SetNextWindowSize(
      ImVec2(s.layout.left, static_cast<float>(win_h) - s.layout.menu - s.layout.bottom));
  ImGui::Begin("Playback", nullptr, kFixed);
  if (!s.doc) {
    ImGui::TextWrapped(
        "Drop a model file (.fbx .glb .gltf .dae) or a .ossa on the window, or use File > Open.");
  } else {
    for (const auto& panel : panels)
      if (panel->dock() == Dock::kLeft && s.doc) panel->draw(s);
  }
  ImGui::End();
}

// Inspect's tabs as buttons in rows, as many equal columns as the widest name allows (two rows of four at
// the default size), so that every name reads whole; the chosen one lit as a tab bar's is. (A tab bar of
// eight shrinks each to its first letters: "Not... Joi... Mes...".)
void draw_inspect(ViewState& s, const std::vector<std::unique_ptr<Panel>>& panels) {
  int win_w = 0, win_h = 0;
  s.window->size(win_w, win_h);
  ImGui::SetNextWindowPos(ImVec2(static_cast<float>(win_w) - s.layout.right, s.layout.menu));
  ImGui::SetNextWindowSize(
      ImVec2(s.layout.right, static_cast<float>(win_h) - s.layout.menu - s.layout.bottom));
  ImGui::Begin("Inspect", nullptr, kFixed);
  std::vector<Panel*> tabs;
  for (const auto& panel : panels)
    if (panel->dock() == Dock::kInspect && panel->shown(s)) tabs.push_back(panel.get());
  if (!s.doc || tabs.empty()) {
    ImGui::End();
    return;
  }
  Panel* chosen = tabs.front();
  for (Panel* tab : tabs)
    if (tab->name() == s.inspect_tab) chosen = tab;
  for (Panel* tab : tabs)
    if (tab->wants_forward(s)) chosen = tab;  // a joint picked in the view, a graph or target just opened
  const ImGuiStyle& style = ImGui::GetStyle();
  float widest = 0;
  for (Panel* tab : tabs)
    widest = std::max(widest, ImGui::CalcTextSize(tab->name()).x + 2 * style.FramePadding.x);
  const float avail = ImGui::GetContentRegionAvail().x, spacing = style.ItemSpacing.x;
  const int count = static_cast<int>(tabs.size());
  const int columns = std::clamp(static_cast<int>((avail + spacing) / (widest + spacing)), 1, count);
  const float width =
      std::floor((avail - spacing * static_cast<float>(columns - 1)) / static_cast<float>(columns));
  ImGui::PushID("tabs");
  ImGui::PushStyleVar(ImGuiStyleVar_FrameRounding, style.TabRounding);
  for (int i = 0; i < count; ++i) {
    if (i % columns) ImGui::SameLine();
    const bool on = tabs[i] == chosen;
    ImGui::PushStyleColor(ImGuiCol_Button, style.Colors[on ? ImGuiCol_TabActive : ImGuiCol_Tab]);
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, style.Colors[ImGuiCol_TabHovered]);
    ImGui::PushStyleColor(ImGuiCol_ButtonActive, style.Colors[ImGuiCol_TabActive]);
    if (ImGui::Button(tabs[i]->name(), ImVec2(width, 0))) chosen = tabs[i];
    ImGui::PopStyleColor(3);
  }
  ImGui::PopStyleVar();
  ImGui::PopID();
  // The line under the tabs, as under a tab bar.
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddLine(ImVec2(at.x, at.y - style.ItemSpacing.y * 0.5f),
                                      ImVec2(at.x + avail, at.y - style.ItemSpacing.y * 0.5f),
                                      ImGui::GetColorU32(ImGuiCol_TabActive));
  s.inspect_tab = chosen->name();
  chosen->draw(s);
  ImGui::End();
}

void draw_bottom(ViewState& s, const std::vector<std::unique_ptr<Panel>>& panels) {
  const ImGuiWindowFlags fixed = kFixed | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse;
  int win_w = 0, win_h = 0;
  s.window->size(win_w, win_h);
  const float w = static_cast<float>(win_w), h = static_cast<float>(win_h);
  const float log_w = std::min(380 * s.ui_scale, w * 0.4f);
  ImGui::SetNextWindowPos(ImVec2(0, h - s.layout.bottom));
  ImGui::SetNextWindowSize(ImVec2(w - log_w, s.layout.bottom));
  ImGui::Begin("Timeline", nullptr, fixed);
  if (s.doc && ImGui::BeginTabBar("bottom")) {
    for (const auto& panel : panels) {
      if (panel->dock() != Dock::kBottom || !s.doc) continue;
      const bool chosen = s.select_bottom_tab && s.bottom_tab == panel->name();
      if (!ImGui::BeginTabItem(panel->name(), nullptr, chosen ? ImGuiTabItemFlags_SetSelected : 0)) continue;
      if (!s.select_bottom_tab) s.bottom_tab = panel->name();
      panel->draw(s);
      ImGui::EndTabItem();
    }
    s.select_bottom_tab = false;
    ImGui::EndTabBar();
  }
  ImGui::End();
  ImGui::SetNextWindowPos(ImVec2(w - log_w, h - s.layout.bottom));
  ImGui::SetNextWindowSize(ImVec2(log_w, s.layout.bottom));
  ImGui::Begin("Events", nullptr, fixed);
  for (const auto& panel : panels)
    if (panel->dock() == Dock::kEvents && s.doc) panel->draw(s);
  ImGui::End();
}

}  // namespace

void compute_layout(ViewState& s) {
  int w = 0, h = 0;
  s.window->size(w, h);
  Layout& l = s.layout;
  const float ui = s.ui_scale;
  l.left = static_cast<float>(s.settings.left_panel) * ui;
  l.right = static_cast<float>(s.settings.right_panel) * ui;
  l.bottom = static_cast<float>(s.settings.bottom_panel) * ui;
  l.menu = ImGui::GetFrameHeight();
  const float min_scene = ViewerSettings::kMinScene * ui;
  if (l.left + l.right + min_scene > static_cast<float>(w)) {
    const float k = std::max(0.f, static_cast<float>(w) - min_scene) / (l.left + l.right);
    l.left *= k, l.right *= k;
  }
  l.bottom = std::min(l.bottom, std::max(0.f, static_cast<float>(h) - l.menu - min_scene));
  l.scene_x = l.left;
  l.scene_y = l.menu;
  l.scene_w = std::max(16.f, static_cast<float>(w) - l.left - l.right);
  if (s.retarget) l.scene_w = std::max(16.f, l.scene_w / 2);  // the target in the other half
  l.scene_h = std::max(16.f, static_cast<float>(h) - l.bottom - l.menu);
}

void resize_panels(ViewState& s) {
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 m = io.MousePos;
  int w = 0, h = 0;
  s.window->size(w, h);
  const Layout l = s.layout;
  const float grab = 5 * s.ui_scale, right_edge = static_cast<float>(w) - l.right,
              bottom_edge = static_cast<float>(h) - l.bottom;
  const bool beside_scene = m.y > l.menu && m.y < bottom_edge - grab;
  Edge near = Edge::kNone;
  if (beside_scene && m.x >= l.left && m.x <= l.left + grab)
    near = Edge::kLeft;
  else if (beside_scene && m.x <= right_edge && m.x >= right_edge - grab)
    near = Edge::kRight;
  else if (m.x > l.left && m.x < right_edge && m.y <= bottom_edge && m.y >= bottom_edge - grab)
    near = Edge::kBottom;
  Edge& resizing = s.layout.resizing;
  if (resizing == Edge::kNone && near != Edge::kNone && ImGui::IsMouseClicked(0) &&
      !ImGui::IsPopupOpen(nullptr, ImGuiPopupFlags_AnyPopupId))
    resizing = near;
  const Edge shown = resizing != Edge::kNone ? resizing : near;
  if (shown != Edge::kNone)
    ImGui::SetMouseCursor(shown == Edge::kBottom ? ImGuiMouseCursor_ResizeNS : ImGuiMouseCursor_ResizeEW);
  if (resizing == Edge::kNone) return;
  if (!io.MouseDown[0]) {
    resizing = Edge::kNone;
    return;
  }
  auto points = [&](float pixels) {
    return std::clamp(static_cast<int>(std::lround(pixels / s.ui_scale)), ViewerSettings::kMinPanel,
                      ViewerSettings::kMaxPanel);
  };
  if (resizing == Edge::kLeft) s.settings.left_panel = points(m.x);
  if (resizing == Edge::kRight) s.settings.right_panel = points(static_cast<float>(w) - m.x);
  if (resizing == Edge::kBottom) s.settings.bottom_panel = points(static_cast<float>(h) - m.y);
  compute_layout(s);
}

void draw_docks(ViewState& s, const std::vector<std::unique_ptr<Panel>>& panels) {
  for (const auto& panel : panels)
    if (panel->dock() == Dock::kMenu) panel->draw(s);
  draw_left(s, panels);
  draw_inspect(s, panels);
  draw_bottom(s, panels);
  for (const auto& panel : panels)
    if (panel->dock() == Dock::kModal) panel->draw(s);
}

void add_dock_actions(ActionTable& table) {
  using Needs = ActionTable::Needs;
  table.add("expect-layout", Needs::kDocument, [](const ActionCall& c) {
    const Layout& l = c.s.layout;
    const float ui = c.s.ui_scale;
    const bool same = std::lround(l.left / ui) == std::lround(c.number(0)) &&
                      std::lround(l.right / ui) == std::lround(c.number(1)) &&
                      std::lround(l.bottom / ui) == std::lround(c.number(2));
    return same || c.fail("the panels are " + std::to_string(std::lround(l.left / ui)) + " " +
                          std::to_string(std::lround(l.right / ui)) + " " +
                          std::to_string(std::lround(l.bottom / ui)));
  });
  table.add("font-scale", Needs::kDocument,
            [](const ActionCall& c) { return c.s.settings.font_scale = c.number(0), true; });
  table.add("bottom-tab", Needs::kDocument, [](const ActionCall& c) {
    c.s.bottom_tab = c.word(0) == "dope" ? "Dope sheet" : c.word(0) == "curves" ? "Curves" : "Notifies";
    c.s.select_bottom_tab = true;
    return true;
  });
}

}  // namespace ossa::viewer
