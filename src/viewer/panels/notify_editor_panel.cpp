// Inspect > Notify: add a notify at the playhead (name, instant or state), and edit the selected one (rename,
// time, duration, payload JSON checked as it is typed, delete). Undo, redo and save are here too (keys and
// script verbs), with the verbs that edit a notify by name. The clip is the one the timeline shows (under an
// animation graph, the clip of its first layer's state).
#include <imgui.h>
#include <imgui_stdlib.h>

#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

class NotifyEditorPanel : public Panel {
 public:
  const char* name() const override { return "Notify"; }
  Dock dock() const override { return Dock::kInspect; }

  void draw(ViewState& s) override {
    const int clip = s.shown_clip().clip;  // the clip on the timeline
    NotifyDocument& notifies = s.doc->notifies;
    ImGui::InputText("name", &new_name_);
    s.remember_field("name");
    ImGui::SliderFloat("state s", &new_duration_, 0, 2, new_duration_ > 0 ? "%.2f" : "instant");
    if (ImGui::Button("Add at playhead (N)")) add(s);
    ImGui::Separator();
    const EditableNotify* n = notifies.find(clip, s.selected_notify);
    if (!n) {
      ImGui::TextDisabled("Select a notify on the timeline to edit it.");
      return;
    }
    EditableNotify edit = *n;
    const uint32_t id = edit.id;
    // A rename is made when the field is left (Enter, Tab or a click elsewhere), not only on Enter.
    if (rename_for_ != id || (!rename_active_ && rename_loaded_ != edit.name))
      rename_text_ = rename_loaded_ = edit.name, rename_for_ = id;
    ImGui::InputText("rename", &rename_text_);
    s.remember_field("rename");
    rename_active_ = ImGui::IsItemActive();
    if (ImGui::IsItemDeactivated() && rename_text_ != edit.name) {
      const std::string refusal = notifies.rename(clip, id, rename_text_);
      if (!refusal.empty()) rename_text_ = edit.name;  // an empty or bad name: the field shows the kept one
      s.edited(refusal);
    }
    // A drag of a field is one undo step, and the Animator gets the result when it ends.
    auto grouped = [&](bool changed, auto&& apply) {
      if (ImGui::IsItemActivated()) notifies.begin_group();
      if (changed) apply();
      if (ImGui::IsItemDeactivated()) {
        notifies.end_group();
        s.edited("");
      }
    };
    grouped(ImGui::DragFloat("time", &edit.time, 0.005f, 0, 1e7f, "%.3f s"),
            [&] { s.status_message = notifies.move(clip, id, edit.time); });
    grouped(ImGui::DragFloat("duration", &edit.duration, 0.005f, 0, 1e7f, "%.3f s"),
            [&] { s.status_message = notifies.set_duration(clip, id, edit.duration); });
    // The box follows the document (selection, undo, redo); text being typed is kept until it is applied.
    if (payload_for_ != id || payload_loaded_ != edit.payload)
      payload_text_ = payload_loaded_ = edit.payload, payload_for_ = id;
    ImGui::InputTextMultiline("payload", &payload_text_, ImVec2(-1, 70 * s.ui_scale));
    s.remember_field("payload");
    const std::string payload_error = NotifyDocument::payload_error(payload_text_);
    if (!payload_error.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(255, 110, 90, 255));
      ImGui::TextWrapped("%s", payload_error.c_str());
      ImGui::PopStyleColor();
    } else if (payload_text_ != edit.payload && ImGui::Button("Apply payload")) {
      s.edited(notifies.set_payload(clip, id, payload_text_));
      // The document keeps payloads canonical (compact, keys sorted: what a game receives): show that.
      if (const EditableNotify* applied = notifies.find(clip, id))
        payload_text_ = payload_loaded_ = applied->payload;
    }
    if (ImGui::Button("Delete (Del)")) {
      s.edited(notifies.remove(clip, id));
      s.selected_notify = 0;
    }
  }

  void keys(ViewState& s, const KeyInput& keys, bool ctrl) override {
    if (!s.doc) return;
    NotifyDocument& notifies = s.doc->notifies;
    if (ctrl && keys.pressed('Z') && notifies.undo()) s.edited("");
    if (ctrl && keys.pressed('Y') && notifies.redo()) s.edited("");
    if (ctrl && keys.pressed('S')) s.save_notifies("");
    if (!ctrl && keys.pressed('N')) add(s);
    if (keys.pressed(key::kDelete) && s.selected_notify) {
      s.edited(notifies.remove(s.shown_clip().clip, s.selected_notify));
      s.selected_notify = 0;
    }
  }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    table.add("expect-text", Needs::kNothing, [this](const ActionCall& c) {
      const std::string* shown = c.word(0) == "payload"  ? &payload_text_
                                 : c.word(0) == "rename" ? &rename_text_
                                 : c.word(0) == "name"   ? &new_name_
                                                         : nullptr;
      if (!shown) return c.fail("no text field '" + c.word(0) + "' (payload, rename, name)");
      return *shown == c.word(1) || c.fail("the field '" + c.word(0) + "' shows '" + *shown + "'");
    });
    table.add("add-notify", Needs::kDocument, [](const ActionCall& c) {
      const ShownClip shown = c.s.shown_clip();
      uint32_t id = 0;
      const std::string refusal = c.s.doc->notifies.add(shown.clip, c.word(0), c.s.on_frame(shown.time),
                                                        c.a.numbers.empty() ? 0.f : c.number_f(0), &id);
      if (refusal.empty()) c.s.selected_notify = id;
      return c.edit(refusal);
    });
    table.add("undo", Needs::kDocument, [](const ActionCall& c) {
      return c.s.doc->notifies.undo() ? (c.s.edited(""), true) : c.fail("nothing to undo");
    });
    table.add("redo", Needs::kDocument, [](const ActionCall& c) {
      return c.s.doc->notifies.redo() ? (c.s.edited(""), true) : c.fail("nothing to redo");
    });
    table.add("save", Needs::kDocument, [](const ActionCall& c) {
      c.s.save_notifies(c.words() == 0 ? "" : c.word(0));
      return c.s.error.empty() || c.fail(c.s.error);
    });
    table.add("expect-notifies", Needs::kDocument, [](const ActionCall& c) {
      const auto want = static_cast<size_t>(c.number(0));
      const size_t have = c.s.doc->notifies.notifies(c.s.shown_clip().clip).size();
      return have == want ||
             c.fail("the clip has " + std::to_string(have) + " notifies, expected " + std::to_string(want));
    });
    table.add("expect-notify", Needs::kDocument, [](const ActionCall& c) {
      return named(c) || c.fail("the clip has no notify '" + c.word(0) + "'");
    });
    // The verbs that edit a notify name one of the clip playing (the first of that name), and select it.
    auto on_notify = [&table](const char* verb, auto&& edit) {
      table.add(verb, Needs::kDocument, [edit](const ActionCall& c) {
        const EditableNotify* n = named(c);
        if (!n) return c.fail("the clip playing has no notify '" + c.word(0) + "'");
        c.s.selected_notify = n->id;
        return edit(c, c.s.doc->notifies, c.s.shown_clip().clip, n->id);
      });
    };
    on_notify("move-notify", [](const ActionCall& c, NotifyDocument& d, int clip, uint32_t id) {
      return c.edit(d.move(clip, id, c.number_f(0)));
    });
    on_notify("duration-notify", [](const ActionCall& c, NotifyDocument& d, int clip, uint32_t id) {
      return c.edit(d.set_duration(clip, id, c.number_f(0)));
    });
    on_notify("rename-notify", [](const ActionCall& c, NotifyDocument& d, int clip, uint32_t id) {
      return c.edit(d.rename(clip, id, c.word(1)));
    });
    on_notify("payload-notify", [](const ActionCall& c, NotifyDocument& d, int clip, uint32_t id) {
      return c.edit(d.set_payload(clip, id, c.word(1)));
    });
    on_notify("delete-notify", [](const ActionCall& c, NotifyDocument& d, int clip, uint32_t id) {
      c.s.selected_notify = 0;
      return c.edit(d.remove(clip, id));
    });
  }

 private:
  void add(ViewState& s) {
    const ShownClip shown = s.shown_clip();
    uint32_t id = 0;
    const std::string refusal =
        s.doc->notifies.add(shown.clip, new_name_, s.on_frame(shown.time), new_duration_, &id);
    if (refusal.empty()) s.selected_notify = id;
    s.edited(refusal);
  }

  // The first notify of the clip shown named by the action's first word.
  static const EditableNotify* named(const ActionCall& c) {
    for (const EditableNotify& n : c.s.doc->notifies.notifies(c.s.shown_clip().clip))
      if (n.name == c.word(0)) return &n;
    return nullptr;
  }

  std::string new_name_ = "Event";
  float new_duration_ = 0;
  // The fields: what each shows, loaded from the document when the selection or the document's value changes
  // (undo, redo, a script) and not while the user types in it.
  std::string payload_text_, payload_loaded_;
  uint32_t payload_for_ = 0;
  std::string rename_text_, rename_loaded_;
  uint32_t rename_for_ = 0;
  bool rename_active_ = false;
};

}  // namespace

std::unique_ptr<Panel> make_notify_editor_panel() {
  return std::make_unique<NotifyEditorPanel>();
}

}  // namespace ossa::viewer
