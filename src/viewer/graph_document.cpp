#include "viewer/graph_document.h"

#include <cmath>
#include <cstdlib>

#include "ossa/core/file_io.h"

namespace ossa::viewer {

Result<GraphDocument> GraphDocument::open(const std::string& path,
                                          std::shared_ptr<const LoadedCharacter> character,
                                          std::shared_ptr<const NotifySet> notifies) {
  if (!character) return Result<GraphDocument>::failure("no character is open");
  auto graph = AnimGraph::load(path, character->asset);
  if (!graph) return Result<GraphDocument>::failure(graph.error());
  GraphDocument doc;
  doc.path_ = path;
  doc.character_ = std::move(character);
  // The character's own set, kept alive by the character (an aliasing pointer: no copy).
  doc.notifies_ = notifies ? std::move(notifies)
                           : std::shared_ptr<const NotifySet>(doc.character_, &doc.character_->notifies);
  doc.graph_ = std::move(graph).value();
  doc.instance_ = std::make_unique<AnimGraphInstance>(doc.graph_, doc.character_->asset, doc.notifies_.get());
  std::error_code ec;
  doc.stamp_ = std::filesystem::last_write_time(path_from_utf8(path), ec);
  doc.size_ = std::filesystem::file_size(path_from_utf8(path), ec);
  return doc;
}

bool GraphDocument::reload_if_changed() {
  std::error_code ec, size_ec;
  const auto stamp = std::filesystem::last_write_time(path_from_utf8(path_), ec);
  const uintmax_t size = std::filesystem::file_size(path_from_utf8(path_), size_ec);
  if (ec || size_ec || (stamp == stamp_ && size == size_)) return false;
  stamp_ = stamp, size_ = size;
  auto graph = AnimGraph::load(path_, character_->asset);
  if (!graph) {
    error_ = graph.error();
    return false;
  }
  graph_ = std::move(graph).value();
  restart();
  error_.clear();
  return true;
}

void GraphDocument::set_notifies(std::shared_ptr<const NotifySet> notifies) {
  if (!notifies) return;
  notifies_ = std::move(notifies);
  restart();
}

void GraphDocument::restart() {
  auto next = std::make_unique<AnimGraphInstance>(graph_, character_->asset, notifies_.get());
  for (const AnimGraphParameter& p : instance_->graph().parameters()) {  // the values set so far, by name
    const int to = next->parameter(p.name);
    if (to < 0 || next->graph().parameters()[to].type != p.type) continue;
    const float v = instance_->value(instance_->parameter(p.name));
    if (p.type == AnimGraphParameter::kFloat) next->set_float(to, v);
    if (p.type == AnimGraphParameter::kBool) next->set_bool(to, v != 0);
    if (p.type == AnimGraphParameter::kTrigger && v != 0) next->set_trigger(to);
  }
  instance_ = std::move(next);
}

void GraphDocument::update(float dt) {
  instance_->update(dt);
  const AnimGraph& graph = instance_->graph();
  for (const AnimGraphEvent& e : instance_->events()) {
    const AnimGraphLayer& layer = graph.layers()[e.layer];
    GraphLoggedEvent logged;
    logged.step = step_;
    logged.layer = layer.name;
    logged.state = instance_->state_name(e);
    if (e.from_state >= 0 && e.from_state < static_cast<int>(layer.states.size()))
      logged.from = layer.states[e.from_state].name;
    if (e.type == AnimGraphEvent::kNotify) {
      const auto& clips = character_->asset.clips;
      logged.notify = true;
      logged.type = to_string(e.notify.type);
      logged.clip = e.notify.clip >= 0 && e.notify.clip < static_cast<int>(clips.size())
                        ? clips[e.notify.clip].name()
                        : "";
      logged.name = e.notify.name ? *e.notify.name : "";
      logged.time = e.notify.time;
      logged.loop = e.notify.loop;
      logged.payload = e.notify.payload ? *e.notify.payload : "";
    } else {
      logged.type = e.type == AnimGraphEvent::kStateEnter        ? "state_enter"
                    : e.type == AnimGraphEvent::kStateExit       ? "state_exit"
                    : e.type == AnimGraphEvent::kTransitionBegin ? "transition_begin"
                    : e.type == AnimGraphEvent::kTransitionEnd   ? "transition_end"
                                                                 : "transition_interrupted";
      logged.time = e.time;
    }
    events_.push_back(std::move(logged));
    if (events_.size() > kMaxLoggedEvents) events_.pop_front();
  }
  ++step_;
}

std::string GraphDocument::set(const std::string& name, const std::string& value) {
  const int p = instance_->parameter(name);
  if (p < 0) return "the graph has no parameter '" + name + "'";
  switch (instance_->graph().parameters()[p].type) {
    case AnimGraphParameter::kFloat: {
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end || !std::isfinite(v) || std::fabs(v) > 1e9)
        return "'" + name + "' is a float: give a number, not '" + value + "'";
      instance_->set_float(p, static_cast<float>(v));
      return "";
    }
    case AnimGraphParameter::kBool:
      if (value != "true" && value != "false") return "'" + name + "' is a bool: give true or false";
      instance_->set_bool(p, value == "true");
      return "";
    case AnimGraphParameter::kTrigger:
      if (value != "set" && value != "reset") return "'" + name + "' is a trigger: give set or reset";
      if (value == "set")
        instance_->set_trigger(p);
      else
        instance_->reset_trigger(p);
      return "";
  }
  return "";
}

}  // namespace ossa::viewer
