// The viewer's animation graph as a plain class: a graph file beside the open character, its instance driven
// by the panel's parameters, reloaded when the file changes on disk (a designer edits it in a text editor and
// sees the result at once).
//
// A reload that fails (the file mid-save, an error in it) keeps the graph that plays and reports why; one
// that succeeds starts a new instance with the parameter values carried over by name. The notifies it fires
// are the document's as edited (set_notifies(): a new instance too, the values carried over), and the events
// each update fired are kept in a log (the oldest dropped past kMaxLoggedEvents), as `ossa play --graph`
// prints them.
#pragma once

#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "ossa/core/result.h"
#include "ossa/runtime/anim_graph.h"
#include "ossa/serialize/load.h"

namespace ossa::viewer {

// One event the graph fired.
struct GraphLoggedEvent {
  long long step = 0;  // the update it fired in (counted from the graph's opening)
  std::string layer;
  // state_enter, state_exit, transition_begin, transition_end, transition_interrupted; a notify's type
  // (instant, begin, end, loop, finished: to_string(EventType)).
  std::string type;
  std::string state;  // entered, exited, the transition's target; the state whose clip fired the notify
  std::string from;   // transitions: their source state
  std::string clip;   // notifies: the clip
  std::string name;   // notifies: the notify's name ("" for loop and finished)
  float time = 0;     // notifies: the clip time; the others: the normalised time of `state`
  int loop = 0;       // notifies
  std::string payload;
  bool notify = false;  // a clip's notify, loop or finished event
};

class GraphDocument {
 public:
  static constexpr size_t kMaxLoggedEvents = 2000;

  // `notifies`: what the graph's clips fire (null: the character's own).
  static Result<GraphDocument> open(const std::string& path, std::shared_ptr<const LoadedCharacter> character,
                                    std::shared_ptr<const NotifySet> notifies = nullptr);

  const std::string& path() const { return path_; }
  const AnimGraph& graph() const { return instance_->graph(); }
  AnimGraphInstance& instance() { return *instance_; }
  const AnimGraphInstance& instance() const { return *instance_; }

  // Reloads when the file's modification time or size changed since the last look: true when a new graph
  // now plays. A failed reload keeps the old graph; error() says why (cleared by the next good one).
  bool reload_if_changed();
  const std::string& error() const { return error_; }

  // A parameter by name from text: a float's number, a bool's true/false, a trigger's "set" or "reset".
  // "" or why not.
  std::string set(const std::string& name, const std::string& value);

  // Advances the instance by dt and logs the events it fired.
  void update(float dt);
  const std::deque<GraphLoggedEvent>& events() const { return events_; }
  void clear_events() { events_.clear(); }
  long long step() const { return step_; }

  // The notifies the clips fire from now on (the document's after an edit): a new instance from the entry
  // states, the parameter values carried over by name.
  void set_notifies(std::shared_ptr<const NotifySet> notifies);

 private:
  // A new instance of graph_, the current one's parameter values carried over by name.
  void restart();

  std::string path_;
  std::shared_ptr<const LoadedCharacter> character_;
  std::shared_ptr<const AnimGraph> graph_;     // what the instance plays
  std::shared_ptr<const NotifySet> notifies_;  // what the instance fires (kept alive for it)
  std::unique_ptr<AnimGraphInstance> instance_;
  std::deque<GraphLoggedEvent> events_;
  long long step_ = 0;
  std::filesystem::file_time_type stamp_{};
  uintmax_t size_ = 0;
  std::string error_;
};

}  // namespace ossa::viewer
