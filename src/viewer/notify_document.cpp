#include "viewer/notify_document.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <span>
#include <utility>

#include "ossa/asset/clip_names.h"
#include "ossa/core/file_io.h"
#include "ossa/serialize/load.h"
#include "viewer/text.h"

namespace ossa::viewer {

namespace {

// The sidecar nests a payload inside {"clips": {CLIP: [{"payload": ...}]}}: four levels the library's depth
// limit (json_nesting_error's default, 64) also counts.
constexpr int kSidecarNesting = 4;
constexpr int kMaxPayloadNesting = 64 - kSidecarNesting;
// Snapshots are whole documents: the oldest steps are dropped beyond this many.
constexpr size_t kMaxUndoSteps = 1000;

bool same_content(const EditableNotify& a, const EditableNotify& b) {
  return a.name == b.name && a.time == b.time && a.duration == b.duration && a.payload == b.payload;
}
bool same_notify(const EditableNotify& a, const EditableNotify& b) {
  return a.id == b.id && same_content(a, b);
}

template <class Same>
bool same_lists(const std::vector<std::vector<EditableNotify>>& a,
                const std::vector<std::vector<EditableNotify>>& b, Same same) {
  if (a.size() != b.size()) return false;
  for (size_t c = 0; c < a.size(); ++c)
    if (!std::equal(a[c].begin(), a[c].end(), b[c].begin(), b[c].end(), same)) return false;
  return true;
}

// Clip durations come from checked assets, but a document must hold its invariants whatever it is given.
float sane_duration(float duration) {
  return std::isfinite(duration) && duration > 0 ? duration : 0.f;
}

// The longest duration <= `duration` for which time + duration <= clip_duration holds in float arithmetic,
// which is what the loader checks (clip_duration - time can round up by an ulp).
float fit_duration(float time, float duration, float clip_duration) {
  duration = std::clamp(duration, 0.f, std::max(0.f, clip_duration - time));
  while (duration > 0 && time + duration > clip_duration) duration = std::nextafter(duration, 0.f);
  return duration;
}

// The latest start <= `time` at which a state of `duration` ends inside the clip.
float fit_start(float time, float duration, float clip_duration) {
  time = std::clamp(time, 0.f, std::max(0.f, clip_duration - duration));
  while (time > 0 && time + duration > clip_duration) time = std::nextafter(time, 0.f);
  return time;
}

// Canonical payload text: what the library's loader makes of the payload (nlohmann::json's dump, keys
// sorted), so that the document shows what a game receives and round trips compare equal as strings.
std::string canonical_payload(const std::string& text) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return {};
  return nlohmann::json::parse(text).dump();
}

// A float as the JSON number with the fewest digits that reads back as exactly that float ("0.4", not
// "0.4000000059604645"), at most `limit` (the loader compares times with the clip's duration in double).
double json_number(float value, float limit) {
  char text[32];
  auto [end, error] = std::to_chars(text, text + sizeof text, value);
  double shortest = 0;
  if (error == std::errc() && std::from_chars(text, end, shortest).ec == std::errc() &&
      static_cast<float>(shortest) == value && shortest <= static_cast<double>(limit))
    return shortest;
  return value;
}

std::string dump(const nlohmann::ordered_json& json) {
  // Names are checked to be UTF-8 when edited; `replace` only keeps a surprise from throwing.
  return json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

const std::vector<EditableNotify> kNoNotifies;

}  // namespace

NotifyDocument::NotifyDocument(const NotifySet& set, std::vector<ClipTiming> clips)
    : clips_(std::move(clips)) {
  for (ClipTiming& clip : clips_) clip.duration = sane_duration(clip.duration);
  lists_ = read_lists(set);
  saved_ = loaded_ = lists_;
}

NotifyDocument::Lists NotifyDocument::read_lists(const NotifySet& set) {
  Lists lists(clips_.size());
  for (size_t c = 0; c < clips_.size() && c < set.clips.size(); ++c) {
    std::vector<EditableNotify>& list = lists[c];
    const float clip_duration = clips_[c].duration;
    for (const auto* kind : {&set.clips[c].instants, &set.clips[c].states}) {
      for (const Notify& n : *kind) {
        if (n.name_id < 0 || static_cast<size_t>(n.name_id) >= set.names.size()) continue;
        EditableNotify e;
        e.name = set.names[n.name_id];
        // The loader allows ends up to 1e-6 s past the clip; the document holds them exactly inside.
        e.time = std::isfinite(n.time) ? std::clamp(n.time, 0.f, clip_duration) : 0.f;
        e.duration = std::isfinite(n.duration) ? fit_duration(e.time, n.duration, clip_duration) : 0.f;
        if (payload_error(n.payload).empty()) e.payload = canonical_payload(n.payload);
        if (!e.name.empty()) list.push_back(std::move(e));
      }
    }
    std::stable_sort(list.begin(), list.end(),
                     [](const EditableNotify& a, const EditableNotify& b) { return a.time < b.time; });
    for (EditableNotify& e : list) e.id = next_id_++;
  }
  return lists;
}

bool NotifyDocument::restore(const NotifySet& set) {
  Lists restored = read_lists(set);
  if (same_lists(restored, lists_, same_content)) return false;
  undo_.push_back(std::move(lists_));
  if (undo_.size() > kMaxUndoSteps) undo_.erase(undo_.begin());
  redo_.clear();
  lists_ = std::move(restored);
  return true;
}

void NotifyDocument::keep_source(const std::string& sidecar_text) {
  source_text_.clear(), source_keys_.clear(), source_entries_.clear();
  if (!json_nesting_error(sidecar_text).empty()) return;
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(sidecar_text, nullptr, false);
  if (!doc.is_object() || !doc.contains("clips") || !doc["clips"].is_object()) return;
  source_text_ = sidecar_text;
  source_keys_.assign(clips_.size(), "");
  std::vector<std::string> names;
  for (const ClipTiming& c : clips_) names.push_back(c.name);
  for (auto it = doc["clips"].begin(); it != doc["clips"].end(); ++it) {
    const int c = match_clip_name(names, it.key());
    if (c < 0 || !source_keys_[c].empty() || !it.value().is_array()) continue;
    source_keys_[c] = it.key();
    // Each loaded notify's entry: the first unclaimed entry that loads to the same notify (as the loader and
    // the constructor read it).
    const float clip_duration = clips_[c].duration;
    std::vector<bool> claimed(loaded_[c].size(), false);
    for (const nlohmann::ordered_json& e : it.value()) {
      if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) continue;
      const bool ratio = e.contains("ratio");
      const nlohmann::ordered_json& value = ratio ? e["ratio"] : e.contains("time") ? e["time"] : e;
      if (!value.is_number()) continue;
      double t = value.get<double>();
      if (ratio) t *= clip_duration;
      const float time =
          std::clamp(static_cast<float>(std::min<double>(t, clip_duration)), 0.f, clip_duration);
      const float duration =
          e.contains("duration") && e["duration"].is_number()
              ? fit_duration(time, static_cast<float>(e["duration"].get<double>()), clip_duration)
              : 0.f;
      const std::string payload = e.contains("payload") ? nlohmann::json(e["payload"]).dump() : "";
      for (size_t i = 0; i < loaded_[c].size(); ++i) {
        const EditableNotify& n = loaded_[c][i];
        if (claimed[i] || n.name != e["name"].get<std::string>() || n.time != time ||
            n.duration != duration || n.payload != payload)
          continue;
        claimed[i] = true;
        source_entries_.push_back({n.id, dump(e)});
        break;
      }
    }
  }
}

std::string NotifyDocument::source_json() const {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(source_text_);
  nlohmann::ordered_json& clips = doc["clips"];
  auto same = [](const EditableNotify& a, const EditableNotify& b) {
    return a.name == b.name && a.time == b.time && a.duration == b.duration && a.payload == b.payload;
  };
  for (size_t c = 0; c < clips_.size(); ++c) {
    if (!clip_error(static_cast<int>(c)).empty()) continue;
    const std::string key = source_keys_[c].empty() ? clips_[c].name : source_keys_[c];
    const std::vector<EditableNotify>& list = lists_[c];
    const bool unchanged =
        list.size() == loaded_[c].size() && std::equal(list.begin(), list.end(), loaded_[c].begin(), same);
    if (!source_keys_[c].empty() && unchanged) continue;  // as it was, entries and order
    if (source_keys_[c].empty() && list.empty()) continue;
    const float clip_duration = clips_[c].duration;
    bool all_ratio = !source_keys_[c].empty();
    for (const auto& [id, text] : source_entries_)
      for (const EditableNotify& n : loaded_[c])
        if (n.id == id) all_ratio = all_ratio && text.find("\"ratio\"") != std::string::npos;
    nlohmann::ordered_json array = nlohmann::ordered_json::array();
    for (const EditableNotify& e : list) {
      const std::string* entry = nullptr;
      for (const auto& [id, text] : source_entries_)
        if (id == e.id) entry = &text;
      const EditableNotify* before = nullptr;
      for (const EditableNotify& n : loaded_[c])
        if (n.id == e.id) before = &n;
      if (entry && before && same(*before, e)) {
        array.push_back(nlohmann::ordered_json::parse(*entry));
        continue;
      }
      const bool ratio = entry ? nlohmann::ordered_json::parse(*entry).contains("ratio") : all_ratio;
      nlohmann::ordered_json out;
      out["name"] = e.name;
      if (ratio && clip_duration > 0)
        out["ratio"] = static_cast<double>(e.time) / clip_duration;
      else
        out["time"] = json_number(e.time, clip_duration);
      if (e.duration > 0) out["duration"] = json_number(e.duration, clip_duration);
      if (!e.payload.empty()) out["payload"] = nlohmann::ordered_json::parse(e.payload);
      array.push_back(std::move(out));
    }
    clips[key] = std::move(array);
  }
  // One notify per line, as people write sidecars by hand; the document's other members after "clips".
  std::string text = "{\"clips\": {";
  bool first_clip = true;
  for (auto it = clips.begin(); it != clips.end(); ++it) {
    text += first_clip ? "\n  " : ",\n  ";
    first_clip = false;
    text += dump(it.key()) + ": [";
    if (it.value().is_array()) {
      for (size_t i = 0; i < it.value().size(); ++i) text += (i ? ",\n    " : "\n    ") + dump(it.value()[i]);
      text += it.value().empty() ? "]" : "\n  ]";
    } else {
      text.pop_back(), text += dump(it.value());  // not a list: as it was (the loader refuses it anyway)
    }
  }
  text += first_clip ? "}" : "\n}";
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (it.key() != "clips") text += ",\n" + dump(it.key()) + ": " + dump(it.value());
  return text + "}\n";
}

const std::vector<EditableNotify>& NotifyDocument::notifies(int clip) const {
  return clip >= 0 && static_cast<size_t>(clip) < lists_.size() ? lists_[clip] : kNoNotifies;
}

const EditableNotify* NotifyDocument::find(int clip, uint32_t id) const {
  for (const EditableNotify& e : notifies(clip))
    if (e.id == id) return &e;
  return nullptr;
}

EditableNotify* NotifyDocument::find_mutable(int clip, uint32_t id) {
  return const_cast<EditableNotify*>(find(clip, id));
}

std::string NotifyDocument::clip_error(int clip) const {
  if (clip < 0 || static_cast<size_t>(clip) >= clips_.size()) return "no clip " + std::to_string(clip);
  const std::string& name = clips_[clip].name;
  if (!is_utf8(name))
    return "clip " + std::to_string(clip) + "'s name is not UTF-8: a sidecar cannot name it";
  // The loader gives a name's notifies to the first clip of that name.
  for (int earlier = 0; earlier < clip; ++earlier)
    if (clips_[earlier].name == name)
      return "clip " + std::to_string(clip) + " has the name of clip " + std::to_string(earlier) + " ('" +
             name + "'): a sidecar can only name the first";
  return {};
}

void NotifyDocument::commit(int clip, Lists before) {
  std::stable_sort(lists_[clip].begin(), lists_[clip].end(),
                   [](const EditableNotify& a, const EditableNotify& b) {
                     return a.time < b.time || (a.time == b.time && a.id < b.id);
                   });
  if (same_lists(before, lists_, same_notify)) return;  // nothing changed: no undo step
  if (group_depth_ > 0) {
    group_changed_ = true;
    return;
  }
  undo_.push_back(std::move(before));
  if (undo_.size() > kMaxUndoSteps) undo_.erase(undo_.begin());
  redo_.clear();
}

std::string NotifyDocument::add(int clip, const std::string& name, float time, float duration,
                                uint32_t* id_out) {
  if (std::string error = clip_error(clip); !error.empty()) return error;
  if (name.empty()) return "a notify needs a name";
  if (!is_utf8(name)) return "the name is not UTF-8 text";
  if (!std::isfinite(time) || !std::isfinite(duration)) return "time and duration must be finite numbers";
  Lists before = lists_;
  const float clip_duration = clips_[clip].duration;
  EditableNotify e;
  e.id = next_id_++;
  e.name = name;
  e.time = std::clamp(time, 0.f, clip_duration);
  e.duration = fit_duration(e.time, duration, clip_duration);
  if (id_out) *id_out = e.id;
  lists_[clip].push_back(std::move(e));
  commit(clip, std::move(before));
  return {};
}

std::string NotifyDocument::move(int clip, uint32_t id, float time) {
  if (std::string error = clip_error(clip); !error.empty()) return error;
  if (!std::isfinite(time)) return "the time must be a finite number";
  if (!find(clip, id)) return "no notify " + std::to_string(id) + " in clip " + std::to_string(clip);
  Lists before = lists_;
  EditableNotify* e = find_mutable(clip, id);
  e->time = fit_start(time, e->duration, clips_[clip].duration);
  commit(clip, std::move(before));
  return {};
}

std::string NotifyDocument::set_duration(int clip, uint32_t id, float duration) {
  if (std::string error = clip_error(clip); !error.empty()) return error;
  if (!std::isfinite(duration)) return "the duration must be a finite number";
  if (!find(clip, id)) return "no notify " + std::to_string(id) + " in clip " + std::to_string(clip);
  Lists before = lists_;
  EditableNotify* e = find_mutable(clip, id);
  e->duration = fit_duration(e->time, duration, clips_[clip].duration);
  commit(clip, std::move(before));
  return {};
}

std::string NotifyDocument::rename(int clip, uint32_t id, const std::string& name) {
  if (std::string error = clip_error(clip); !error.empty()) return error;
  if (name.empty()) return "a notify needs a name";
  if (!is_utf8(name)) return "the name is not UTF-8 text";
  if (!find(clip, id)) return "no notify " + std::to_string(id) + " in clip " + std::to_string(clip);
  Lists before = lists_;
  find_mutable(clip, id)->name = name;
  commit(clip, std::move(before));
  return {};
}

std::string NotifyDocument::set_payload(int clip, uint32_t id, const std::string& json_text) {
  if (std::string error = clip_error(clip); !error.empty()) return error;
  if (std::string error = payload_error(json_text); !error.empty()) return error;
  if (!find(clip, id)) return "no notify " + std::to_string(id) + " in clip " + std::to_string(clip);
  Lists before = lists_;
  find_mutable(clip, id)->payload = canonical_payload(json_text);
  commit(clip, std::move(before));
  return {};
}

std::string NotifyDocument::remove(int clip, uint32_t id) {
  if (std::string error = clip_error(clip); !error.empty()) return error;
  if (!find(clip, id)) return "no notify " + std::to_string(id) + " in clip " + std::to_string(clip);
  Lists before = lists_;
  std::erase_if(lists_[clip], [id](const EditableNotify& e) { return e.id == id; });
  commit(clip, std::move(before));
  return {};
}

void NotifyDocument::begin_group() {
  if (group_depth_++ == 0) {
    group_before_ = lists_;
    group_changed_ = false;
  }
}

void NotifyDocument::end_group() {
  if (group_depth_ == 0 || --group_depth_ > 0) return;
  // A drag that ends where it started changes nothing: no step.
  if (group_changed_ && !same_lists(group_before_, lists_, same_notify)) {
    undo_.push_back(std::move(group_before_));
    if (undo_.size() > kMaxUndoSteps) undo_.erase(undo_.begin());
    redo_.clear();
  }
  group_before_.clear();
  group_changed_ = false;
}

bool NotifyDocument::can_undo() const {
  return !undo_.empty() || (group_depth_ > 0 && group_changed_);
}
bool NotifyDocument::can_redo() const {
  return !redo_.empty() && !(group_depth_ > 0 && group_changed_);
}

bool NotifyDocument::undo() {
  if (group_depth_ > 0) {  // undo during a drag ends the drag, then undoes it
    group_depth_ = 1;
    end_group();
  }
  if (undo_.empty()) return false;
  redo_.push_back(std::move(lists_));
  lists_ = std::move(undo_.back());
  undo_.pop_back();
  return true;
}

bool NotifyDocument::redo() {
  if (group_depth_ > 0) {
    group_depth_ = 1;
    end_group();
  }
  if (redo_.empty()) return false;
  undo_.push_back(std::move(lists_));
  lists_ = std::move(redo_.back());
  redo_.pop_back();
  return true;
}

bool NotifyDocument::dirty() const {
  return !same_lists(lists_, saved_, same_content);
}
void NotifyDocument::mark_saved() {
  saved_ = lists_;
}

std::string NotifyDocument::to_json() const {
  if (!source_text_.empty()) return source_json();
  // One notify per line, as people write sidecars by hand (and diffs stay readable).
  std::string text = "{\"clips\": {";
  bool first_clip = true;
  for (size_t c = 0; c < clips_.size(); ++c) {
    if (lists_[c].empty() || !clip_error(static_cast<int>(c)).empty()) continue;
    text += first_clip ? "\n  " : ",\n  ";
    first_clip = false;
    text += dump(clips_[c].name) + ": [";
    const float clip_duration = clips_[c].duration;
    for (size_t i = 0; i < lists_[c].size(); ++i) {
      const EditableNotify& e = lists_[c][i];
      nlohmann::ordered_json entry;
      entry["name"] = e.name;
      entry["time"] = json_number(e.time, clip_duration);
      if (e.duration > 0) entry["duration"] = json_number(e.duration, clip_duration);
      if (!e.payload.empty()) entry["payload"] = nlohmann::ordered_json::parse(e.payload);
      text += (i ? ",\n    " : "\n    ") + dump(entry);
    }
    text += "\n  ]";
  }
  text += first_clip ? "}}\n" : "\n}}\n";
  return text;
}

Result<NotifySet> NotifyDocument::to_notify_set(const CharacterAsset& asset) const {
  return parse_notifies_for(asset, to_json(), "the notifies being edited");
}

Result<bool> NotifyDocument::save(const std::string& path) {
  const std::string text = to_json();
  auto written = write_file_atomically(
      path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  if (!written) return written;
  mark_saved();
  return true;
}

std::string NotifyDocument::payload_error(const std::string& json_text) {
  if (json_text.find_first_not_of(" \t\r\n") == std::string::npos) return {};
  // Depth first: nlohmann's dump and comparisons recurse, and the library refuses deeper sidecars.
  if (std::string nested = json_nesting_error(json_text, kMaxPayloadNesting); !nested.empty()) return nested;
  try {
    const nlohmann::json parsed = nlohmann::json::parse(json_text);
    return {};
  } catch (const nlohmann::json::exception& e) {
    return "not valid JSON: " + explain_error(e.what()).headline;
  }
}

}  // namespace ossa::viewer
