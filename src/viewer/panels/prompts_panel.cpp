// The prompts about unsaved notify edits: before opening another file or quitting (Save, Discard, Cancel),
// and a recovery copy found when a model is opened (Recover, Discard). Ctrl+Q and the script verbs that
// close the window and answer.
#include <filesystem>
#include <optional>

#include "ossa/core/file_io.h"
#include "viewer/panels/panels.h"

namespace ossa::viewer {

namespace {

enum class Answer { kSave, kDiscard, kCancel, kRecover };

void answer(ViewState& s, Answer choice) {
  if (choice == Answer::kRecover || (choice == Answer::kDiscard && s.offered_recovery)) {
    if (choice == Answer::kRecover) {
      auto set = parse_notifies_for(s.doc->character->asset, s.offered_recovery->notifies_json,
                                    "the recovery copy of " + display_name(s.doc->path));
      if (!set) {
        s.error = "cannot recover the unsaved notifies: " + set.error();
      } else {
        s.doc->notifies.restore(*set);  // one undo step; unsaved until the user saves
        s.edited("");
        s.status_message =
            "recovered the notify edits of " + s.offered_recovery->written + " UTC (not saved yet)";
      }
    } else {
      remove_recovery(s.recovery_file);
      s.recovery_written.clear();
    }
    s.offered_recovery.reset();
    return;
  }
  const Pending pending = s.pending;
  s.pending = Pending::kNone;
  if (choice == Answer::kCancel) return;
  if (choice == Answer::kSave) {
    s.save_notifies("");
    if (s.unsaved()) return;  // not saved (the error says why): stay
  }
  remove_recovery(s.recovery_file);
  s.recovery_written.clear();
  if (pending == Pending::kOpen) s.open(s.pending_path);
  if (pending == Pending::kQuit) s.quit = true;
}

class PromptsPanel : public Panel {
 public:
  const char* name() const override { return "Prompts"; }
  Dock dock() const override { return Dock::kModal; }

  void draw(ViewState& s) override {
    if (s.ask_unsaved) ImGui::OpenPopup("Unsaved notify edits"), s.ask_unsaved = false;
    if (s.ask_recovery) ImGui::OpenPopup("Recover unsaved edits"), s.ask_recovery = false;
    const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize;
    if (ImGui::BeginPopupModal("Unsaved notify edits", nullptr, flags)) {
      if (s.pending == Pending::kNone) {
        ImGui::CloseCurrentPopup();  // answered by a script
      } else {
        ImGui::Text("The notifies of %s have edits that are not saved.",
                    s.doc ? display_name(s.doc->path).c_str() : "");
        ImGui::TextDisabled("Save writes %s.", s.doc ? display_name(s.doc->sidecar).c_str() : "");
        std::optional<Answer> choice;
        if (ImGui::Button("Save")) choice = Answer::kSave;
        ImGui::SameLine();
        if (ImGui::Button("Discard")) choice = Answer::kDiscard;
        ImGui::SameLine();
        if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
          choice = Answer::kCancel;
        if (choice) {
          ImGui::CloseCurrentPopup();
          answer(s, *choice);
        }
      }
      ImGui::EndPopup();
    }
    if (ImGui::BeginPopupModal("Recover unsaved edits", nullptr, flags)) {
      if (!s.offered_recovery) {
        ImGui::CloseCurrentPopup();
      } else {
        ImGui::Text("%s has notify edits from %s UTC that were never saved.",
                    display_name(s.doc->path).c_str(), s.offered_recovery->written.c_str());
        ImGui::TextDisabled(
            "Recover takes them back as an edit (undo reverts it); Discard deletes the copy.");
        std::optional<Answer> choice;
        if (ImGui::Button("Recover")) choice = Answer::kRecover;
        ImGui::SameLine();
        if (ImGui::Button("Discard")) choice = Answer::kDiscard;
        if (choice) {
          ImGui::CloseCurrentPopup();
          answer(s, *choice);
        }
      }
      ImGui::EndPopup();
    }
  }

  void keys(ViewState& s, const KeyInput& keys, bool ctrl) override {
    if (ctrl && keys.pressed('Q')) s.request_quit();
  }

  void add_actions(ActionTable& table) override {
    using Needs = ActionTable::Needs;
    table.add("close", Needs::kNothing, [](const ActionCall& c) {  // the window's close button (or Ctrl+Q)
      c.s.request_quit();
      return true;
    });
    table.add("answer", Needs::kNothing, [](const ActionCall& c) {
      const std::string& w = c.word(0);
      const bool about_recovery = w == "recover" || (w == "discard" && c.s.offered_recovery);
      if (about_recovery ? !c.s.offered_recovery : c.s.pending == Pending::kNone)
        return c.fail("nothing is being asked");
      answer(c.s, w == "save"      ? Answer::kSave
                  : w == "discard" ? Answer::kDiscard
                  : w == "recover" ? Answer::kRecover
                                   : Answer::kCancel);
      return c.s.error.empty() || c.fail(c.s.error);
    });
    table.add("expect-recovery", Needs::kNothing, [](const ActionCall& c) {
      std::error_code ec;
      const bool kept =
          !c.s.recovery_file.empty() && std::filesystem::exists(path_from_utf8(c.s.recovery_file), ec);
      return kept == (c.word(0) == "yes") ||
             c.fail(kept ? "a recovery copy is kept" : "no recovery copy is kept");
    });
    table.add("expect-title", Needs::kNothing, [](const ActionCall& c) {
      return c.s.title == c.word(0) || c.fail("the window's title is '" + c.s.title + "'");
    });
    table.add("expect-prompt", Needs::kNothing, [](const ActionCall& c) {
      const std::string asked = c.s.offered_recovery            ? "recovery"
                                : c.s.pending != Pending::kNone ? "unsaved"
                                                                : "none";
      return asked == c.word(0) || c.fail("the prompt shown is: " + asked);
    });
  }
};

}  // namespace

std::unique_ptr<Panel> make_prompts_panel() {
  return std::make_unique<PromptsPanel>();
}

}  // namespace ossa::viewer
