#include "viewer/graph_document.h"

#include <cmath>
#include <cstdlib>

#include "ossa/core/file_io.h"

namespace ossa::viewer {

Result<GraphDocument> GraphDocument::open(const std::string& path,
                                          std::shared_ptr<const LoadedCharacter> character) {
  if (!character) return Result<GraphDocument>::failure("no character is open");
  auto graph = AnimGraph::load(path, character->asset);
  if (!graph) return Result<GraphDocument>::failure(graph.error());
  GraphDocument doc;
  doc.path_ = path;
  doc.character_ = std::move(character);
  doc.instance_ = std::make_unique<AnimGraphInstance>(std::move(graph).value(), doc.character_->asset,
                                                      &doc.character_->notifies);
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
  auto next =
      std::make_unique<AnimGraphInstance>(std::move(graph).value(), character_->asset, &character_->notifies);
  for (const AnimGraphParameter& p : instance_->graph().parameters()) {  // the values set so far, by name
    const int to = next->parameter(p.name);
    if (to < 0 || next->graph().parameters()[to].type != p.type) continue;
    const float v = instance_->value(instance_->parameter(p.name));
    if (p.type == AnimGraphParameter::kFloat) next->set_float(to, v);
    if (p.type == AnimGraphParameter::kBool) next->set_bool(to, v != 0);
    if (p.type == AnimGraphParameter::kTrigger && v != 0) next->set_trigger(to);
  }
  instance_ = std::move(next);
  error_.clear();
  return true;
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
