// Events (bottom-right window): the events as they fire, with the step, clip (both clips fire during a
// crossfade), type, clip time and loop, as `ossa play` prints them; while an animation graph drives the
// character, the graph's events (state changes, transitions, its clips' notifies).
#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

// The events table of both lists: step, `second` (clip or layer), type, name, `time` and loop columns, rows
// drawn by `row(i)` (only those in view), kept scrolled to the newest while at the bottom.
template <class Row>
void event_table(const char* id, const char* second, const char* time, size_t count, Row&& row) {
  if (!ImGui::BeginTable(id, 6,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("step");
  ImGui::TableSetupColumn(second);
  ImGui::TableSetupColumn("type");
  ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn(time);
  ImGui::TableSetupColumn("loop");
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(count));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      ImGui::TableNextRow();
      row(i);
    }
  if (ImGui::GetScrollY() >= ImGui::GetScrollMaxY() - 1) ImGui::SetScrollHereY(1.0f);
  ImGui::EndTable();
}

class EventsPanel : public Panel {
 public:
  const char* name() const override { return "Events"; }
  Dock dock() const override { return Dock::kEvents; }

  void draw(ViewState& s) override {
    if (s.graph) return draw_graph_events(*s.graph);
    const auto& events = s.doc->playback->events();
    ImGui::Text("%zu events", events.size());
    ImGui::SameLine();
    if (ImGui::SmallButton("clear")) s.doc->playback->clear_events();
    // In a crossfade both clips fire: each event names its clip (the part after "Armature|"; the whole name
    // in its tooltip).
    event_table("events", "clip", "t", events.size(), [&](int i) {
      const LoggedEvent& e = events[i];
      ImGui::TableNextColumn();
      ImGui::Text("%lld", e.step);
      ImGui::TableNextColumn();
      const size_t bar = e.clip.rfind('|');
      ImGui::TextUnformatted(bar == std::string::npos ? e.clip.c_str() : e.clip.c_str() + bar + 1);
      if (bar != std::string::npos && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", e.clip.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(to_string(e.type));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(e.name.empty() ? "-" : e.name.c_str());
      if (!e.payload.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", e.payload.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.4f", e.time);
      ImGui::TableNextColumn();
      ImGui::Text("%d", e.loop);
    });
  }

  void add_actions(ActionTable& table) override {
    // The events listed: the graph's when one drives the character.
    table.add("expect-events", ActionTable::Needs::kDocument, [](const ActionCall& c) {
      const auto want = static_cast<size_t>(c.number(0));
      const size_t have = c.s.graph ? c.s.graph->events().size() : c.s.doc->playback->events().size();
      return have == want || c.fail(std::to_string(have) + " events fired, expected " + std::to_string(want));
    });
  }

 private:
  // An animation graph's events, as `ossa play --graph` prints them: each layer's state changes and
  // transitions (with the state's normalised time), and the notifies its clips fire (with the clip time).
  static void draw_graph_events(GraphDocument& graph) {
    const auto& events = graph.events();
    ImGui::Text("%zu events", events.size());
    ImGui::SameLine();
    if (ImGui::SmallButton("clear")) graph.clear_events();
    ImGui::SameLine();
    ImGui::TextDisabled("(graph)");
    event_table("graph events", "layer", "t / n", events.size(), [&](int i) {
      const GraphLoggedEvent& e = events[i];
      ImGui::TableNextColumn();
      ImGui::Text("%lld", e.step);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(e.layer.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(e.type.c_str());
      ImGui::TableNextColumn();
      // A notify's name (its state and clip on hover); a state, or a transition's "from -> to".
      const std::string name = e.notify         ? (e.name.empty() ? "-" : e.name)
                               : e.from.empty() ? e.state
                                                : e.from + " -> " + e.state;
      ImGui::TextUnformatted(name.c_str());
      if (e.notify && ImGui::IsItemHovered())
        ImGui::SetTooltip("%s: %s%s%s", e.state.c_str(), e.clip.c_str(), e.payload.empty() ? "" : "\n",
                          e.payload.c_str());
      else if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.4f", e.time);
      ImGui::TableNextColumn();
      if (e.notify) ImGui::Text("%d", e.loop);
    });
  }
};

}  // namespace

std::unique_ptr<Panel> make_events_panel() {
  return std::make_unique<EventsPanel>();
}

}  // namespace ossa::viewer
