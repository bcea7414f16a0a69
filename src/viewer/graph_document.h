// The viewer's animation graph as a plain class: a graph file beside the open character, its instance driven
// by the panel's parameters, reloaded when the file changes on disk (a designer edits it in a text editor and
// sees the result at once).
//
// A reload that fails (the file mid-save, an error in it) keeps the graph that plays and reports why; one
// that succeeds starts a new instance with the parameter values carried over by name.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "ossa/core/result.h"
#include "ossa/runtime/anim_graph.h"
#include "ossa/serialize/load.h"

namespace ossa::viewer {

class GraphDocument {
 public:
  static Result<GraphDocument> open(const std::string& path,
                                    std::shared_ptr<const LoadedCharacter> character);

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

 private:
  std::string path_;
  std::shared_ptr<const LoadedCharacter> character_;
  std::unique_ptr<AnimGraphInstance> instance_;
  std::filesystem::file_time_type stamp_{};
  uintmax_t size_ = 0;
  std::string error_;
};

}  // namespace ossa::viewer
