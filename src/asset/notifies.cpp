#include "ossa/asset/notifies.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ossa {

int match_clip_name(const std::vector<std::string>& names, const std::string& query) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == query) return static_cast<int>(i);
  int match = -1;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    if (n.size() > query.size() && n.compare(n.size() - query.size(), query.size(), query) == 0 &&
        n[n.size() - query.size() - 1] == '|')
      match = match == -1 ? static_cast<int>(i) : -2;
  }
  return match >= 0 ? match : -1;
}

int NotifySet::find_name(const std::string& name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

Result<NotifySet> parse_notifies(const std::string& text, const std::string& source,
                                 const std::vector<ClipTiming>& clips) {
  auto fail = [&](const std::string& what) { return Result<NotifySet>::failure(source + ": " + what); };
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) return fail("not valid JSON");
  if (!doc.is_object() || !doc.contains("clips") || !doc["clips"].is_object())
    return fail("expected an object {\"clips\": {CLIP: [notify, ...]}}");
  NotifySet set;
  set.clips.resize(clips.size());
  std::vector<std::string> clip_names;
  for (const ClipTiming& c : clips) clip_names.push_back(c.name);
  for (auto& [clip_name, list] : doc["clips"].items()) {
    int ci = match_clip_name(clip_names, clip_name);
    if (ci < 0) {
      std::string known;
      for (const std::string& n : clip_names) known += (known.empty() ? "" : ", ") + ("'" + n + "'");
      return fail("clip '" + clip_name + "' is not in the model (clips: " + known + ")");
    }
    if (!list.is_array()) return fail("clip '" + clip_name + "': expected an array of notifies");
    const float duration = clips[ci].duration;
    for (size_t i = 0; i < list.size(); ++i) {
      const nlohmann::json& e = list[i];
      const std::string where = "clip '" + clip_name + "', notify " + std::to_string(i);
      if (!e.is_object()) return fail(where + ": expected an object");
      if (!e.contains("name") || !e["name"].is_string() || e["name"].get<std::string>().empty())
        return fail(where + ": needs a non-empty \"name\"");
      const std::string name = e["name"].get<std::string>();
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
      if (e.contains("payload")) n.payload = e["payload"].dump();
      int id = set.find_name(name);
      if (id < 0) {
        id = static_cast<int>(set.names.size());
        set.names.push_back(name);
      }
      n.name_id = id;
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
  std::ifstream in(path, std::ios::binary);
  if (!in) return Result<NotifySet>::failure(path + ": cannot open");
  std::stringstream text;
  text << in.rdbuf();
  return parse_notifies(text.str(), path, clips);
}

}  // namespace ossa
