// Inspect > Graph: open an animation graph to drive the character; its parameters as widgets (sliders,
// toggles, trigger buttons), each layer's states and transitions as a diagram with the current state and the
// running blend lit.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class GraphPanel : public Panel {
 public:
  const char* name() const override { return "Graph"; }
  Dock dock() const override { return Dock::kInspect; }
  bool wants_forward(const ViewState& s) const override { return s.show_graph_tab; }

  void draw(ViewState& s) override {
    s.show_graph_tab = false;
    if (!s.graph) {
      ImGui::TextWrapped(
          "Drive the character with an animation graph (NAME.animgraph.json): states, transitions "
          "and layers the game steers with parameters.");
      ImGui::InputText("graph", &path_);
      if (ImGui::Button("Open graph") && !path_.empty()) s.open_graph(path_);
      return;
    }
    path_ = s.graph->path();
    AnimGraphInstance& anim = s.graph->instance();
    const AnimGraph& graph = anim.graph();
    ImGui::TextWrapped("%s%s", display_name(s.graph->path()).c_str(), "  (reloaded when the file changes)");
    if (!s.graph->error().empty())
      ImGui::TextColored(ImVec4(1, 0.5f, 0.4f, 1), "%s", s.graph->error().c_str());
    if (ImGui::Button("Close graph")) {
      s.graph.reset();
      return;
    }
    section("Parameters");
    for (size_t i = 0; i < graph.parameters().size(); ++i) {
      const AnimGraphParameter& param = graph.parameters()[i];
      const int handle = static_cast<int>(i);
      ImGui::PushID(handle);
      if (param.type == AnimGraphParameter::kFloat) {
        float v = anim.value(handle);
        if (ImGui::DragFloat(param.name.c_str(), &v, 0.02f, -1e6f, 1e6f, "%.2f")) anim.set_float(handle, v);
      } else if (param.type == AnimGraphParameter::kBool) {
        bool v = anim.value(handle) != 0;
        if (ImGui::Checkbox(param.name.c_str(), &v)) anim.set_bool(handle, v);
      } else {
        if (ImGui::Button(param.name.c_str())) anim.set_trigger(handle);
        ImGui::SameLine();
        ImGui::TextDisabled(anim.value(handle) != 0 ? "set" : "trigger");
      }
      ImGui::PopID();
    }
    for (int l = 0; l < static_cast<int>(graph.layers().size()); ++l) {
      const AnimGraphLayer& layer = graph.layers()[l];
      section(("Layer " + layer.name).c_str());
      ImGui::Text("%s at n=%.2f%s", layer.states[anim.current_state(l)].name.c_str(), anim.state_time(l),
                  anim.blending(l) ? " (blending)" : "");
      draw_diagram(s, l);
    }
  }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    table.add("graph", Needs::kDocument, [](const ActionCall& c) {
      c.s.open_graph(c.word(0));
      return c.s.graph || c.fail(c.s.error);
    });
    table.add("graph-set", Needs::kDocument, [](const ActionCall& c) {
      if (!c.s.graph) return c.fail("no graph drives the character (graph PATH first)");
      return c.check(c.s.graph->set(c.word(0), c.word(1)));
    });
    table.add("expect-state", Needs::kDocument, [](const ActionCall& c) {
      if (!c.s.graph) return c.fail("no graph drives the character (graph PATH first)");
      const AnimGraph& graph = c.s.graph->graph();
      int layer = -1;
      for (size_t l = 0; l < graph.layers().size(); ++l)
        if (graph.layers()[l].name == c.word(0)) layer = static_cast<int>(l);
      if (layer < 0) return c.fail("the graph has no layer '" + c.word(0) + "'");
      const std::string& current =
          graph.layers()[layer].states[c.s.graph->instance().current_state(layer)].name;
      return current == c.word(1) || c.fail("layer '" + c.word(0) + "' is in '" + current + "'");
    });
  }

 private:
  // States on an ellipse, transitions as arrows ("*" ones from the centre); the current state filled, states
  // fading out filled by their weight, the running transition drawn bright.
  static void draw_diagram(const ViewState& s, int l) {
    const float ui = s.ui_scale;
    const AnimGraphInstance& anim = s.graph->instance();
    const AnimGraphLayer& layer = anim.graph().layers()[l];
    const int n = static_cast<int>(layer.states.size());
    const float width = ImGui::GetContentRegionAvail().x, height = std::min(220.f, 60.f + 28.f * n) * ui;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("diagram", ImVec2(std::max(width, 10.f), height));
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), IM_COL32(24, 26, 32, 255), 4);
    const ImVec2 centre(origin.x + width / 2, origin.y + height / 2);
    const float rx = width / 2 - 48 * ui, ry = height / 2 - 16 * ui;
    std::vector<ImVec2> at(static_cast<size_t>(n));
    for (int st = 0; st < n; ++st) {
      const float a = n == 1 ? 0.f : 6.2831853f * static_cast<float>(st) / static_cast<float>(n) - 1.5707963f;
      at[st] =
          ImVec2(centre.x + (n == 1 ? 0.f : rx * std::cos(a)), centre.y + (n == 1 ? 0.f : ry * std::sin(a)));
    }
    const int current = anim.current_state(l);
    for (size_t t = 0; t < layer.transitions.size(); ++t) {
      const AnimGraphTransition& tr = layer.transitions[t];
      ImVec2 from = tr.from < 0 ? centre : at[tr.from], to = at[tr.to];
      {  // a pair of opposite transitions side by side: each moved to the right of its direction
        const float dx = to.x - from.x, dy = to.y - from.y, length = std::sqrt(dx * dx + dy * dy);
        if (length >= 1) {
          const float side = 4 * ui;
          from = ImVec2(from.x - dy / length * side, from.y + dx / length * side);
          to = ImVec2(to.x - dy / length * side, to.y + dx / length * side);
        }
      }
      const bool running = anim.blending(l) && tr.to == current && (tr.from < 0 || tr.from != current);
      const ImU32 colour = running ? IM_COL32(255, 200, 80, 255) : IM_COL32(110, 120, 140, 160);
      const float dx = to.x - from.x, dy = to.y - from.y, length = std::sqrt(dx * dx + dy * dy);
      if (length < 1) continue;
      const float ux = dx / length, uy = dy / length;
      const ImVec2 tip(to.x - ux * 14 * ui, to.y - uy * 14 * ui);
      draw->AddLine(from, tip, colour, running ? 2.5f : 1.2f);
      draw->AddTriangleFilled(tip, ImVec2(tip.x - ux * 8 - uy * 4, tip.y - uy * 8 + ux * 4),
                              ImVec2(tip.x - ux * 8 + uy * 4, tip.y - uy * 8 - ux * 4), colour);
    }
    for (int st = 0; st < n; ++st) {
      float weight = 0;
      for (int i = 0; i < anim.active_count(l); ++i)
        if (anim.active_state(l, i) == st) weight += anim.active_weight(l, i);
      const char* label = layer.states[st].name.c_str();
      const ImVec2 size = ImGui::CalcTextSize(label);
      const ImVec2 lo(at[st].x - size.x / 2 - 6, at[st].y - size.y / 2 - 3),
          hi(at[st].x + size.x / 2 + 6, at[st].y + size.y / 2 + 3);
      const int lit = static_cast<int>(std::clamp(weight, 0.f, 1.f) * 200);
      draw->AddRectFilled(lo, hi,
                          st == current ? IM_COL32(40 + lit / 2, 90 + lit / 2, 60 + lit, 255)
                                        : IM_COL32(45 + lit / 3, 48 + lit / 3, 56 + lit / 2, 255),
                          4);
      draw->AddRect(lo, hi, st == current ? IM_COL32(255, 200, 80, 255) : IM_COL32(120, 130, 150, 255), 4);
      draw->AddText(ImVec2(at[st].x - size.x / 2, at[st].y - size.y / 2), IM_COL32(235, 235, 240, 255),
                    label);
    }
  }

  std::string path_;  // the path field
};

}  // namespace

std::unique_ptr<Panel> make_graph_panel() {
  return std::make_unique<GraphPanel>();
}

}  // namespace ossa::viewer
