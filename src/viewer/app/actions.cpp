// The script verbs' table (panel.h): each panel adds its own; running an action is a lookup.
#include <cstdio>

#include "viewer/app/panel.h"

namespace ossa::viewer {

bool ActionCall::fail(const std::string& message) const {
  std::fprintf(stderr, "ossa view: %s:%d: %s: %s\n", script_path_.c_str(), a.line, a.action.c_str(),
               message.c_str());
  s.status = 1;
  s.quit = true;
  return false;
}

int ActionCall::find_clip(const std::string& name) const {
  const int c = s.doc->character->asset.find_clip(name);
  if (c < 0) fail("no clip '" + name + "'");
  return c;
}

bool ActionCall::edit(const std::string& refusal) const {
  s.edited(refusal);
  return refusal.empty() || fail(refusal);
}

bool ActionTable::add(const std::string& verb, Needs needs, Run run) {
  return entries_.emplace(verb, Entry{needs, std::move(run)}).second;
}

bool ActionTable::run(const ActionCall& call) const {
  const auto entry = entries_.find(call.a.action);
  if (entry == entries_.end()) return call.fail("not available in the viewer");
  if (entry->second.needs == Needs::kDocument && !call.s.doc)
    return call.fail("no file is open" + (call.s.error.empty() ? "" : " (" + call.s.error + ")"));
  return entry->second.run(call);
}

}  // namespace ossa::viewer
