#include "ossa/asset/notifies.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "ossa/core/file_io.h"
#include "ossa/core/printable.h"

namespace ossa {

namespace {
// The clip-name rule (notifies.h) as an index: exact names, and every part after a '|' ("Walk" and
// "Armature|Walk" of "Rig|Armature|Walk"), each found in constant time.
class ClipNameIndex {
 public:
  explicit ClipNameIndex(const std::vector<std::string>& names) {
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string_view name = names[i];
      exact_.emplace(name, static_cast<int>(i));  // the first of equal names wins
      for (size_t bar = name.find('|'); bar != std::string_view::npos; bar = name.find('|', bar + 1)) {
        auto [it, added] = suffix_.emplace(name.substr(bar + 1), static_cast<int>(i));
        if (!added && it->second != static_cast<int>(i)) it->second = -2;  // ambiguous
      }
    }
  }
  int find(std::string_view query) const {
    if (auto it = exact_.find(query); it != exact_.end()) return it->second;
    auto it = suffix_.find(query);
    return it != suffix_.end() && it->second >= 0 ? it->second : -1;
  }

 private:
  std::unordered_map<std::string_view, int> exact_, suffix_;
};
}  // namespace

int match_clip_name(const std::vector<std::string>& names, const std::string& query) {
  return ClipNameIndex(names).find(query);
}

int NotifySet::find_notify(std::string_view name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

std::string json_nesting_error(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // the escaped character cannot end the string
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return "JSON nested deeper than " + std::to_string(max_depth) + " levels (at byte " +
               std::to_string(i) + ")";
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return {};
}

Result<NotifySet> parse_notifies(const std::string& text, const std::string& source,
                                 const std::vector<ClipTiming>& clips) {
  auto fail = [&](const std::string& what) { return Result<NotifySet>::failure(source + ": " + what); };
  // nlohmann's parser is iterative, but dumping and comparing values recurse: depth is capped first.
  if (std::string nested = json_nesting_error(text); !nested.empty()) return fail(nested);
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) return fail("not valid JSON");
  if (!doc.is_object() || !doc.contains("clips") || !doc["clips"].is_object())
    return fail("expected an object {\"clips\": {CLIP: [notify, ...]}}");
  NotifySet set;
  set.clips.resize(clips.size());
  std::unordered_map<std::string, int> ids;  // interning by hash: files with 100k names stay linear
  std::vector<std::string> clip_names;
  for (const ClipTiming& c : clips) clip_names.push_back(c.name);
  const ClipNameIndex clip_index(clip_names);
  for (auto& [clip_name, list] : doc["clips"].items()) {
    int ci = clip_index.find(clip_name);
    if (!list.is_array()) return fail("clip '" + clip_name + "': expected an array of notifies");
    if (ci < 0) {  // another export of the model (its clip names differ): left off, said
      std::string known;
      for (size_t k = 0; k < clip_names.size() && k < 20; ++k)
        known += (k ? ", '" : "'") + clip_names[k] + "'";
      if (clip_names.size() > 20) known += ", ... " + std::to_string(clip_names.size() - 20) + " more";
      if (set.warnings.size() < 100)
        set.warnings.push_back(printable(source + ": clip '" + clip_name +
                                         "' is not in the model (clips: " + known + "): its " +
                                         std::to_string(list.size()) + " notifies are left off"));
      continue;
    }
    const float duration = clips[ci].duration;
    for (size_t i = 0; i < list.size(); ++i) {
      const nlohmann::json& e = list[i];
      const std::string where = "clip '" + clip_name + "', notify " + std::to_string(i);
      if (!e.is_object()) return fail(where + ": expected an object");
      if (!e.contains("name") || !e["name"].is_string() || e["name"].get<std::string>().empty())
        return fail(where + ": needs a non-empty \"name\"");
      const std::string name = e["name"].get<std::string>();
      // A NUL ("\u0000" in the JSON) would cut the name short wherever it is printed or compared as C text.
      if (name.find('\0') != std::string::npos) return fail(where + ": the name holds a NUL character");
      const std::string named = where + " ('" + name + "')";
      const bool has_time = e.contains("time"), has_ratio = e.contains("ratio");
      if (has_time == has_ratio)
        return fail(named + ": give exactly one of \"time\" (seconds) or \"ratio\" (0-1)");
      const nlohmann::json& value = has_time ? e["time"] : e["ratio"];
      if (!value.is_number())
        return fail(named + ": \"" + (has_time ? "time" : "ratio") + "\" must be a number");
      double t = value.get<double>();
      if (has_ratio) {
        if (!(t >= 0 && t <= 1)) return fail(named + ": ratio " + value.dump() + " is outside 0-1");
        t *= duration;
      } else if (!(t >= 0 && t <= duration + 1e-6)) {
        return fail(named + ": time " + value.dump() + " s is outside the clip (0-" +
                    std::to_string(duration) + " s)");
      }
      Notify n;
      n.time = static_cast<float>(std::min<double>(t, duration));
      if (e.contains("duration")) {
        if (!e["duration"].is_number() || !(e["duration"].get<double>() >= 0))
          return fail(named + ": \"duration\" must be a number >= 0");
        n.duration = static_cast<float>(e["duration"].get<double>());
        if (n.time + n.duration > duration + 1e-6)
          return fail(named + ": ends at " + std::to_string(n.time + n.duration) +
                      " s, after the clip's end (" + std::to_string(duration) + " s)");
      }
      if (e.contains("payload")) {
        const nlohmann::json& payload = e["payload"];
        n.payload = payload.dump();
        if (payload.is_object())
          for (const auto& [key, value] : payload.items()) {
            NotifyField& f = n.fields.emplace_back();
            f.key = key;
            f.text = value.is_string() ? value.get<std::string>() : value.dump();
            f.is_string = value.is_string();
            f.is_number = value.is_number() || value.is_boolean();
            if (value.is_boolean())
              f.number = value.get<bool>() ? 1 : 0;
            else if (value.is_number())
              f.number = value.get<double>();
          }
      }
      auto [it, added] = ids.emplace(name, static_cast<int>(set.names.size()));
      if (added) set.names.push_back(name);
      n.name_id = it->second;
      (n.duration > 0 ? set.clips[ci].states : set.clips[ci].instants).push_back(std::move(n));
    }
  }
  for (ClipNotifies& c : set.clips) {
    auto by_time = [](const Notify& a, const Notify& b) { return a.time < b.time; };
    std::stable_sort(c.instants.begin(), c.instants.end(), by_time);
    std::stable_sort(c.states.begin(), c.states.end(), by_time);
  }
  return set;
}

Result<NotifySet> load_notifies(const std::string& path, const std::vector<ClipTiming>& clips) {
  std::ifstream in(path_from_utf8(path), std::ios::binary | std::ios::ate);
  if (!in) return Result<NotifySet>::failure(path + ": cannot open");
  const std::streamoff size = in.tellg();
  if (size < 0 || size > kMaxNotifyFileBytes)
    return Result<NotifySet>::failure(path + ": larger than " + std::to_string(kMaxNotifyFileBytes >> 20) +
                                      " MB (or not a regular file)");
  in.seekg(0);
  std::stringstream text;
  text << in.rdbuf();
  return parse_notifies(text.str(), path, clips);
}

}  // namespace ossa
