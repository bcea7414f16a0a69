#include "viewer/settings.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <system_error>
#include <type_traits>
#include <utility>

#include "ossa/asset/notifies.h"
#include "ossa/core/file_io.h"
#include "viewer/text.h"

namespace ossa::viewer {

namespace {

constexpr int kMinWindowSide = ViewerSettings::kMinWindowSide,
              kMaxWindowSide = ViewerSettings::kMaxWindowSide;
constexpr size_t kMaxSettingsBytes = 1 << 20;  // a settings file is a few hundred bytes
constexpr size_t kMaxPathBytes = 4096;

// The names ossa/render's to_string(LightingMode) gives (parse_lighting_mode also reads "blinn" and
// "texture"); the viewer core does not link the renderer.
constexpr std::array<const char*, 5> kLightingModes = {"phong", "blinn-phong", "lambert", "unlit",
                                                       "texture-only"};

// The canonical lighting name for `name`, "" when it is none.
std::string lighting_name(const std::string& name) {
  for (const char* mode : kLightingModes)
    if (name == mode) return name;
  if (name == "blinn") return "blinn-phong";
  if (name == "texture") return "texture-only";
  return {};
}

void add_warning(std::string* warning, const std::string& message) {
  if (warning) *warning += (warning->empty() ? "" : "; ") + message;
}

}  // namespace

void ViewerSettings::add_recent(const std::string& path) {
  if (path.empty()) return;
  std::erase(recent_files, path);
  recent_files.insert(recent_files.begin(), path);
  if (recent_files.size() > static_cast<size_t>(kMaxRecentFiles)) recent_files.resize(kMaxRecentFiles);
}

std::string default_settings_path() {
#ifdef _WIN32
  const char* appdata = std::getenv("APPDATA");
  if (appdata && *appdata) return std::string(appdata) + "\\ossa\\viewer.json";
  return {};
#else
  // XDG: a relative $XDG_CONFIG_HOME is invalid and is ignored.
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/ossa/viewer.json";
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return std::string(home) + "/.config/ossa/viewer.json";
  return {};
#endif
}

std::string settings_to_json(const ViewerSettings& settings) {
  const ViewerSettings defaults;
  nlohmann::ordered_json json;
  json["window_width"] = std::clamp(settings.window_width, kMinWindowSide, kMaxWindowSide);
  json["window_height"] = std::clamp(settings.window_height, kMinWindowSide, kMaxWindowSide);
  nlohmann::ordered_json recent = nlohmann::ordered_json::array();
  // Paths that are not UTF-8 cannot be stored in JSON: they are not remembered.
  for (const std::string& path : settings.recent_files)
    if (!path.empty() && path.size() <= kMaxPathBytes && is_utf8(path) &&
        recent.size() < static_cast<size_t>(ViewerSettings::kMaxRecentFiles))
      recent.push_back(path);
  json["recent_files"] = std::move(recent);
  const std::string lighting = lighting_name(settings.lighting);
  json["lighting"] = lighting.empty() ? defaults.lighting : lighting;
  json["grid"] = settings.grid;
  json["skeleton"] = settings.skeleton;
  json["left_panel"] = std::clamp(settings.left_panel, ViewerSettings::kMinPanel, ViewerSettings::kMaxPanel);
  json["right_panel"] =
      std::clamp(settings.right_panel, ViewerSettings::kMinPanel, ViewerSettings::kMaxPanel);
  json["bottom_panel"] =
      std::clamp(settings.bottom_panel, ViewerSettings::kMinPanel, ViewerSettings::kMaxPanel);
  json["font_scale"] =
      std::isfinite(settings.font_scale)
          ? std::clamp(settings.font_scale, ViewerSettings::kMinFontScale, ViewerSettings::kMaxFontScale)
          : 1.0;
  return json.dump(2) + "\n";
}

ViewerSettings settings_from_json(const std::string& text, std::string* warning) {
  ViewerSettings settings;
  if (warning) warning->clear();
  if (text.size() > kMaxSettingsBytes) {
    add_warning(warning, "larger than " + std::to_string(kMaxSettingsBytes) + " bytes: defaults used");
    return settings;
  }
  if (std::string nested = json_nesting_error(text); !nested.empty()) {
    add_warning(warning, nested + ": defaults used");
    return settings;
  }
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    add_warning(warning, std::string(json.is_discarded() ? "not valid JSON" : "not a JSON object") +
                             ": defaults used");
    return settings;
  }
  // Each value on its own: one bad value does not lose the others.
  auto number_in = [&](const char* key, double lo, double hi, bool whole, auto& out) {
    if (!json.contains(key)) return;
    const nlohmann::json& value = json[key];
    if (!value.is_number()) return add_warning(warning, std::string(key) + " is not a number");
    const double number = value.get<double>();
    if (!std::isfinite(number)) return add_warning(warning, std::string(key) + " is not finite");
    const double clamped = std::clamp(whole ? std::round(number) : number, lo, hi);
    if (clamped != number) add_warning(warning, std::string(key) + " " + value.dump() + " clamped");
    out = static_cast<std::remove_reference_t<decltype(out)>>(clamped);
  };
  auto side = [&](const char* key, int& out) { number_in(key, kMinWindowSide, kMaxWindowSide, true, out); };
  side("window_width", settings.window_width);
  side("window_height", settings.window_height);
  for (auto [key, out] : {std::pair<const char*, int*>{"left_panel", &settings.left_panel},
                          {"right_panel", &settings.right_panel},
                          {"bottom_panel", &settings.bottom_panel}})
    number_in(key, ViewerSettings::kMinPanel, ViewerSettings::kMaxPanel, true, *out);
  number_in("font_scale", ViewerSettings::kMinFontScale, ViewerSettings::kMaxFontScale, false,
            settings.font_scale);
  if (json.contains("recent_files")) {
    const nlohmann::json& list = json["recent_files"];
    if (!list.is_array()) {
      add_warning(warning, "recent_files is not a list");
    } else {
      std::vector<std::string> paths;
      for (const nlohmann::json& entry : list) {
        if (!entry.is_string() || entry.get_ref<const std::string&>().empty() ||
            entry.get_ref<const std::string&>().size() > kMaxPathBytes) {
          add_warning(warning, "recent_files holds something that is not a path");
          continue;
        }
        const std::string& path = entry.get_ref<const std::string&>();
        if (std::find(paths.begin(), paths.end(), path) == paths.end() &&
            paths.size() < static_cast<size_t>(ViewerSettings::kMaxRecentFiles))
          paths.push_back(path);
      }
      settings.recent_files = std::move(paths);
    }
  }
  if (json.contains("lighting")) {
    const nlohmann::json& value = json["lighting"];
    const std::string name = value.is_string() ? lighting_name(value.get<std::string>()) : "";
    if (name.empty())
      add_warning(warning, "lighting " +
                               value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                               " is not a lighting mode");
    else
      settings.lighting = name;
  }
  auto flag = [&](const char* key, bool& out) {
    if (!json.contains(key)) return;
    if (!json[key].is_boolean()) return add_warning(warning, std::string(key) + " is not true or false");
    out = json[key].get<bool>();
  };
  flag("grid", settings.grid);
  flag("skeleton", settings.skeleton);
  return settings;
}

ViewerSettings load_settings(const std::string& path, std::string* warning) {
  if (warning) warning->clear();
  if (path.empty()) return {};
  const std::filesystem::path file = path_from_utf8(path);
  std::error_code ec;
  if (!std::filesystem::exists(file, ec) && !ec) return {};  // first run: nothing remembered yet, no warning
  if (!std::filesystem::is_regular_file(file, ec)) {
    add_warning(warning, path + ": not a file, defaults used");
    return {};
  }
  std::ifstream in(file, std::ios::binary);
  std::string text(kMaxSettingsBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (!in && !in.eof()) {
    add_warning(warning, path + ": cannot read, defaults used");
    return {};
  }
  text.resize(static_cast<size_t>(in.gcount()));
  std::string problems;
  ViewerSettings settings = settings_from_json(text, &problems);
  if (!problems.empty()) add_warning(warning, path + ": " + problems);
  return settings;
}

Result<bool> save_settings(const std::string& path, const ViewerSettings& settings) {
  if (path.empty()) return Result<bool>::failure("no settings path (no config folder)");
  const std::filesystem::path file = path_from_utf8(path);
  if (file.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec) return Result<bool>::failure(path + ": cannot create its folder: " + ec.message());
  }
  const std::string text = settings_to_json(settings);
  return write_file_atomically(
      path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace ossa::viewer
