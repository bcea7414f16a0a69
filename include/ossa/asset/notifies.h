// ossa/asset/notifies.h — events authored at clip times ("FootL at 0.25 s", "Swing from 0.4 s for 0.2 s").
//
// Authored outside the model, in a sidecar JSON next to it (MODEL.notifies.json):
//   {"clips": {"Walk": [{"name": "FootL", "time": 0.25},
//                       {"name": "Swing", "time": 0.4, "duration": 0.2, "payload": {"sound": "whoosh"}},
//                       {"name": "Half", "ratio": 0.5}]}}
// `time` is seconds from the clip start, or `ratio` (0-1) of its duration; a `duration` > 0 makes a state
// (begin/end events) instead of an instant. Clip names match exactly, or as the part after "|" when exactly
// one clip ends that way ("Walk" finds Blender's "Armature|Walk"). Errors name the file and the entry. A
// clip the model lacks is not an error: one sidecar often serves a model's FBX, glTF and COLLADA exports,
// whose clip names differ ("Armature|Walk", "Walk", "Armature_Armature"); its notifies are left off and
// NotifySet::warnings says which clips (tools print it).
// Names are interned: `name_id` indexes NotifySet::names, so handlers are found by index, not by string.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ossa/asset/clip_names.h"
#include "ossa/core/result.h"

namespace ossa {

// A top-level member of a payload object, read at load time so a game needs no JSON parser of its own.
struct NotifyField {
  std::string key;
  std::string text;  // a string member's characters; any other member's JSON text ("0.8", "[1,2]")
  bool is_string = false;
  bool is_number = false;  // a number or a boolean (true 1, false 0)
  double number = 0;
};

struct Notify {
  int name_id = 0;
  float time = 0;                   // seconds from the clip start
  float duration = 0;               // 0: instant; > 0: a state over [time, time + duration]
  std::string payload;              // JSON text ("" when none)
  std::vector<NotifyField> fields;  // the payload's members, sorted by key, when it is an object
};

// One clip's notifies, each list sorted by time.
struct ClipNotifies {
  std::vector<Notify> instants;
  std::vector<Notify> states;
};

struct ClipTiming {
  std::string name;
  float duration = 0;
};

struct NotifySet {
  std::vector<std::string> names;                // interned notify names
  std::vector<ClipNotifies> clips;               // parallel to the clips given to the loader
  int find_notify(std::string_view name) const;  // index into names, -1 when absent
  // What was left off, one line each: clips the sidecar names that the model lacks.
  std::vector<std::string> warnings;
};

constexpr long long kMaxNotifyFileBytes = 64ll << 20;  // sidecar files larger than this are refused
Result<NotifySet> load_notifies(const std::string& path, const std::vector<ClipTiming>& clips);
Result<NotifySet> parse_notifies(const std::string& json_text, const std::string& source_name,
                                 const std::vector<ClipTiming>& clips);

// Every JSON text Ossa accepts is checked with this first: "" when no array or object nests deeper than
// `max_depth`, else why (recursive consumers of a parsed document would overflow the stack).
std::string json_nesting_error(std::string_view json_text, int max_depth = 64);

}  // namespace ossa
