// A panel: one room of the viewer (the clip list, the crossfade section, the timeline, the joint tree, the
// graph, a prompt...), in a file of its own under src/viewer/panels/, that draws itself, reacts to its keys
// and runs the script verbs that drive it.
//
// Why a small abstract class rather than free functions: most panels keep state between frames that no other
// panel should see (text being typed, a cache of curves, a drag in progress), and a script verb of a panel
// needs that state too, so the verb's code lives beside the drawing code and captures the panel. Panels never
// call one another: what they share is ViewState (view_state.h: the document, what drives the character, the
// selection, the camera, the time axis, requests such as "open the file browser"). The window (viewer_window
// .cpp) owns the panels in one list, built by make_panels() (panels/panels.h); a panel's place in its dock is
// its place in that list. Adding a panel: a file with its class and a make_ function, and one line in
// make_panels().
//
// Docks: kMenu draws the main menu bar; kLeft panels are sections of the left window, one under the other;
// kInspect and kBottom panels are tabs of the right and bottom windows; kEvents is the bottom-right window;
// kModal panels draw their own popups and windows over everything (file browser, export prompts, the error
// panel, unsaved-edit prompts); kScene is the 3D view (ScenePanel, panels.h). kLeft, kInspect, kBottom and
// kEvents panels are drawn only while a document is open.
//
// Script verbs (src/viewer/script.h's grammar, which checks every line before a run) are dispatched through
// an ActionTable: each panel adds its verbs in add_actions(), and running an action is a lookup.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "viewer/app/view_state.h"
#include "viewer/key_input.h"
#include "viewer/script.h"

namespace ossa::viewer {

// One script action being run: its words and numbers, and the way to fail it.
class ActionCall {
 public:
  ActionCall(ViewState& state, const ScriptAction& action, const std::string& script_path)
      : s(state), a(action), script_path_(script_path) {}
  ViewState& s;
  const ScriptAction& a;

  const std::string& word(size_t i) const { return a.words[i]; }
  size_t words() const { return a.words.size(); }
  double number(size_t i) const { return i < a.numbers.size() ? a.numbers[i] : 0.0; }
  float number_f(size_t i) const { return static_cast<float>(number(i)); }
  bool on(size_t i) const { return i < a.words.size() && a.words[i] == "on"; }
  // Prints "ossa view: SCRIPT:LINE: VERB: message", makes the run's status 1 and ends it. False.
  bool fail(const std::string& message) const;
  // "" is success; else fails with it.
  bool check(const std::string& refusal) const { return refusal.empty() || fail(refusal); }
  // The document's clip of that name, or -1 (failed: "no clip 'NAME'").
  int find_clip(const std::string& name) const;
  // A notify edit's refusal ("" when made): the Animator gets the new set, or the action fails.
  bool edit(const std::string& refusal) const;

 private:
  const std::string& script_path_;
};

class ActionTable {
 public:
  enum class Needs { kNothing, kDocument };  // kDocument: fails "no file is open" without one
  using Run = std::function<bool(const ActionCall&)>;

  // Each verb once (a second add of a verb is a programming error: the first is kept and this returns false).
  bool add(const std::string& verb, Needs needs, Run run);
  bool has(const std::string& verb) const { return entries_.count(verb) > 0; }
  // Runs the verb's entry; a verb no panel added fails ("not available in the viewer").
  bool run(const ActionCall& call) const;

 private:
  struct Entry {
    Needs needs;
    Run run;
  };
  std::map<std::string, Entry> entries_;
};

enum class Dock { kMenu, kLeft, kInspect, kBottom, kEvents, kModal, kScene };

class Panel {
 public:
  virtual ~Panel() = default;
  virtual const char* name() const = 0;  // a tab's label, a section's title
  virtual Dock dock() const = 0;
  // Draws the panel into its dock's window (kMenu, kModal: its own menus, popups and windows).
  virtual void draw(ViewState& s) = 0;
  // This frame's keys (key_input.h: pressed() is once per press), not while a text field has them.
  virtual void keys(ViewState&, const KeyInput&, bool /*ctrl*/) {}
  virtual void add_actions(ActionTable&) {}
  // A new document was opened: forget what belonged to the last one.
  virtual void opened(ViewState&) {}
  // kInspect: the tab asks to be brought forward this frame (a joint picked in the view, a graph opened).
  virtual bool wants_forward(const ViewState&) const { return false; }
  // kInspect: whether its tab appears for the document open (a tab with nothing to show for it stays away).
  virtual bool shown(const ViewState&) const { return true; }
};

}  // namespace ossa::viewer
