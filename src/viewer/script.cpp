#include "viewer/script.h"

#include "viewer/text.h"

#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "ossa/core/file_io.h"
#include "viewer/key_input.h"
#include "viewer/notify_document.h"

namespace ossa::viewer {

namespace {

constexpr size_t kMaxLineBytes = 64 * 1024;
constexpr int kMaxReportedErrors = 10;
constexpr double kMaxSeconds = 1e7;  // Clip::kMaxDuration
constexpr double kMaxFrames = 1e7;   // wait / step
constexpr double kMaxPixels = 1e5;   // window coordinates
constexpr double kMaxCrowd = 10000;

// What one argument of an action must be.
struct Arg {
  enum Kind { kText, kNumber, kInteger, kChoice, kJsonRest, kKeys } kind = kText;
  double min = 0, max = 0;           // kNumber, kInteger
  std::vector<const char*> choices;  // kChoice
  const char* what = "";             // names the argument in errors
};

Arg text(const char* what) {
  return {Arg::kText, 0, 0, {}, what};
}
Arg number(const char* what, double min, double max) {
  return {Arg::kNumber, min, max, {}, what};
}
Arg integer(const char* what, double min, double max) {
  return {Arg::kInteger, min, max, {}, what};
}
Arg keys(const char* what) {
  return {Arg::kKeys, 0, 0, {}, what};
}
Arg choice(const char* what, std::vector<const char*> choices) {
  return {Arg::kChoice, 0, 0, std::move(choices), what};
}

struct ActionSpec {
  const char* name;
  int min_words;
  std::vector<Arg> args;  // args.size() is the most words
};

const std::vector<ActionSpec>& action_table() {
  static const std::vector<ActionSpec> table = {
      {"open", 1, {text("PATH")}},
      {"play", 1, {text("CLIP")}},
      {"pause", 0, {}},
      {"resume", 0, {}},
      {"seek", 1, {number("SECONDS", 0, kMaxSeconds)}},
      {"speed", 1, {number("FACTOR", -100, 100)}},
      {"step", 1, {integer("FRAMES", -kMaxFrames, kMaxFrames)}},
      {"loop", 1, {choice("mode", {"once", "repeat", "pingpong"})}},
      {"crossfade", 2, {text("CLIP"), number("SECONDS", 0, kMaxSeconds), choice("option", {"sync"})}},
      {"root-motion", 1, {choice("switch", {"on", "off"})}},
      {"lighting", 1, {choice("mode", {"phong", "blinn-phong", "lambert", "unlit", "texture-only"})}},
      {"skinning", 1, {choice("path", {"gpu", "cpu", "baked"})}},
      {"blend-sample", 2, {text("CLIP"), number("X", -1e6, 1e6), number("Y", -1e6, 1e6)}},
      {"blend", 1, {choice("mode", {"1d", "2d", "off"}), text("MARKERS")}},
      {"blend-param", 1, {number("X", -1e6, 1e6), number("Y", -1e6, 1e6)}},
      {"morph", 2, {text("TARGET"), number("WEIGHT", 0, 1)}},
      {"morph-off", 1, {text("TARGET")}},
      {"feet", 1, {choice("switch", {"on", "off"}), choice("ground", {"flat", "slope"})}},
      {"crowd", 1, {integer("N", 0, kMaxCrowd)}},
      {"skeleton", 1, {choice("switch", {"on", "off"})}},
      // `layer off` is checked apart (its one word is not a clip).
      {"layer", 2, {text("CLIP"), number("WEIGHT", 0, 1), text("JOINT")}},
      {"select-joint", 1, {text("NAME")}},
      {"expect-joint-shown", 1, {text("NAME")}},
      {"graph", 1, {text("PATH")}},
      {"graph-set", 2, {text("NAME"), text("VALUE")}},
      {"expect-state", 2, {text("LAYER"), text("STATE")}},
      {"retarget", 1, {text("PATH"), text("MAP")}},
      {"map-bone", 2, {text("TARGET"), text("SOURCE")}},
      {"save-map", 0, {text("PATH")}},
      {"add-notify", 1, {text("NAME"), number("DURATION", 0, kMaxSeconds)}},
      {"move-notify", 2, {text("NAME"), number("SECONDS", 0, kMaxSeconds)}},
      {"duration-notify", 2, {text("NAME"), number("SECONDS", 0, kMaxSeconds)}},
      {"rename-notify", 2, {text("NAME"), text("NEW")}},
      {"payload-notify", 1, {text("NAME"), {Arg::kJsonRest, 0, 0, {}, "JSON"}}},
      {"delete-notify", 1, {text("NAME")}},
      {"undo", 0, {}},
      {"redo", 0, {}},
      {"save", 0, {text("PATH")}},
      {"export", 1, {text("PATH")}},
      {"export-view", 1, {text("PATH")}},
      {"click", 2, {number("X", 0, kMaxPixels), number("Y", 0, kMaxPixels)}},
      {"tap", 2, {number("X", 0, kMaxPixels), number("Y", 0, kMaxPixels)}},
      {"key", 1, {keys("KEYS")}},
      {"hold", 2, {keys("KEYS"), integer("FRAMES", 1, kMaxFrames)}},
      {"type", 1, {text("TEXT")}},
      {"click-field", 1, {text("LABEL")}},
      {"expect-text", 2, {text("LABEL"), text("TEXT")}},
      {"expect-notifies", 1, {integer("N", 0, 1e9)}},
      {"expect-paused", 1, {choice("state", {"yes", "no"})}},
      {"expect-notify", 1, {text("NAME")}},
      {"close", 0, {}},
      {"browse", 1, {text("FOLDER")}},
      {"browse-pick", 1, {text("NAME")}},
      {"expect-browser-entry", 1, {text("NAME")}},
      {"expect-layout",
       3,
       {number("LEFT", 0, kMaxPixels), number("RIGHT", 0, kMaxPixels), number("BOTTOM", 0, kMaxPixels)}},
      {"font-scale", 1, {number("SCALE", 0.75, 2.5)}},
      {"view", 1, {choice("view", {"front", "side", "top"})}},
      {"follow", 1, {choice("switch", {"on", "off"})}},
      {"mm", 1, {choice("switch", {"on", "off", "restart"})}},
      {"mm-stick", 2, {number("X", -1, 1), number("Y", -1, 1), choice("run", {"run"})}},
      {"mm-keys", 0, {}},
      {"expect-mm-travel", 1, {number("METRES", 0, 1e6), number("MAX", 0, 1e6)}},
      {"onion", 1, {choice("switch", {"on", "off"})}},
      {"trail", 1, {choice("switch", {"on", "off"})}},
      {"joint-names", 1, {choice("switch", {"on", "off"})}},
      {"joint-axes", 1, {choice("switch", {"on", "off"})}},
      {"bind-pose", 1, {choice("switch", {"on", "off"})}},
      {"frame", 1, {integer("FRAME", 0, kMaxFrames)}},
      {"loop-range", 1, {number("IN", 0, kMaxSeconds), number("OUT", 0, kMaxSeconds)}},
      {"expect-time", 1, {number("SECONDS", 0, kMaxSeconds)}},
      {"bottom-tab", 1, {choice("tab", {"notifies", "dope", "curves"})}},
      {"dope-row", 1, {text("NAME")}},
      {"expect-dope-rows", 1, {integer("N", 0, 1e9)}},
      {"curve", 1, {choice("channel", {"t", "r", "s"}), choice("form", {"euler", "quat"})}},
      {"zoom", 1, {number("FACTOR", 1e-3, 1e3)}},
      {"answer", 1, {choice("answer", {"save", "discard", "cancel", "recover"})}},
      {"expect-title", 1, {text("TEXT")}},
      {"expect-recovery", 1, {choice("state", {"yes", "no"})}},
      {"expect-prompt", 1, {choice("prompt", {"none", "unsaved", "recovery"})}},
      {"drag",
       4,
       {number("X0", 0, kMaxPixels), number("Y0", 0, kMaxPixels), number("X1", 0, kMaxPixels),
        number("Y1", 0, kMaxPixels)}},
      {"screenshot", 1, {text("PATH.png")}},
      {"wait", 1, {integer("FRAMES", 0, kMaxFrames)}},
      {"expect-error", 0, {text("TEXT")}},
      {"expect-clip", 1, {text("NAME")}},
      {"expect-events", 1, {integer("N", 0, 1e9)}},
      {"quit", 0, {integer("STATUS", 0, 255)}},
  };
  return table;
}

const ActionSpec* find_action(std::string_view name) {
  for (const ActionSpec& spec : action_table())
    if (name == spec.name) return &spec;
  return nullptr;
}

bool parse_number(const std::string& word, double& value) {
  std::string_view digits = word;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  if (digits.empty() || digits.front() == '+') return false;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return error == std::errc() && end == digits.data() + digits.size();
}

std::string format_number(double value) {
  char text[32];
  auto [end, error] = std::to_chars(text, text + sizeof text, value);
  return error == std::errc() ? std::string(text, end) : "?";
}

// Splits `line` into words (quoted words may hold spaces, \" and \\). For an action whose last argument is
// the rest of the line, stops after `words_before_rest` words and returns the rest verbatim in `rest`.
std::string split_words(std::string_view line, std::vector<std::string>& words, int words_before_rest,
                        std::string* rest) {
  size_t i = 0;
  auto skip_spaces = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  };
  for (;;) {
    skip_spaces();
    if (i >= line.size() || line[i] == '#') return {};  // '#' at the start of a word: a comment
    if (rest && static_cast<int>(words.size()) == words_before_rest + 1) {
      std::string_view tail = line.substr(i);
      while (!tail.empty() && (tail.back() == ' ' || tail.back() == '\t')) tail.remove_suffix(1);
      *rest = tail;
      return {};
    }
    std::string word;
    if (line[i] == '"') {
      for (++i;; ++i) {
        if (i >= line.size()) return "a quoted word has no closing '\"'";
        if (line[i] == '"') break;
        if (line[i] == '\\' && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\')) ++i;
        word += line[i];
      }
      ++i;
      if (i < line.size() && line[i] != ' ' && line[i] != '\t') return "a quoted word must end at a space";
    } else {
      for (; i < line.size() && line[i] != ' ' && line[i] != '\t'; ++i) {
        if (line[i] == '"') return "a '\"' inside a word (quote the whole word)";
        word += line[i];
      }
    }
    words.push_back(std::move(word));
  }
}

// Checks one line's words against its action's table row; "" when it is valid.
std::string check_action(ScriptAction& action) {
  const ActionSpec* spec = find_action(action.action);
  if (!spec) return "unknown action '" + action.action + "'";
  const auto& args = spec->args;
  const int count = static_cast<int>(action.words.size());
  if (action.action == "layer" && count == 1) {
    if (action.words[0] == "off") return {};
    return "expected 'layer CLIP WEIGHT [JOINT]' or 'layer off'";
  }
  if (action.action == "loop-range" && count == 1) {
    if (action.words[0] == "off") return {};
    return "expected 'loop-range IN OUT' or 'loop-range off'";
  }
  if (count < spec->min_words || count > static_cast<int>(args.size())) {
    std::string usage = spec->name;
    for (size_t k = 0; k < args.size(); ++k) {
      const bool optional = static_cast<int>(k) >= spec->min_words;
      std::string what = args[k].what;
      if (args[k].kind == Arg::kChoice) {
        what.clear();
        for (const char* c : args[k].choices) {
          if (!what.empty()) what += '|';
          what += c;
        }
      }
      usage += optional ? " [" + what + "]" : " " + what;
    }
    return "'" + action.action + "' takes " +
           (spec->min_words == static_cast<int>(args.size())
                ? std::to_string(args.size())
                : std::to_string(spec->min_words) + " to " + std::to_string(args.size())) +
           " argument" + (args.size() == 1 && spec->min_words == 1 ? "" : "s") + ", got " +
           std::to_string(count) + " (usage: " + usage + ")";
  }
  for (int k = 0; k < count; ++k) {
    const Arg& arg = args[k];
    const std::string& word = action.words[k];
    switch (arg.kind) {
      case Arg::kText:
        if (word.empty()) return std::string(arg.what) + " is empty";
        break;
      case Arg::kChoice: {
        bool known = false;
        std::string options;
        for (const char* c : arg.choices) {
          known = known || word == c;
          if (!options.empty()) options += ", ";
          options += c;
        }
        if (!known) return "'" + action.action + "': '" + word + "' is not one of " + options;
        break;
      }
      case Arg::kNumber:
      case Arg::kInteger: {
        double value = 0;
        if (!parse_number(word, value)) return std::string(arg.what) + " '" + word + "' is not a number";
        if (!std::isfinite(value)) return std::string(arg.what) + " '" + word + "' is not a finite number";
        if (arg.kind == Arg::kInteger && value != std::floor(value))
          return std::string(arg.what) + " '" + word + "' is not a whole number";
        if (value < arg.min || value > arg.max)
          return std::string(arg.what) + " " + word + " is outside " + format_number(arg.min) + " to " +
                 format_number(arg.max);
        action.numbers.push_back(value);
        break;
      }
      case Arg::kKeys:
        if (parse_key_combo(word).empty())
          return std::string(arg.what) + " '" + word +
                 "' is not a key combination (a-z, 0-9, space, enter, tab, backspace, delete, escape, left, "
                 "right, up, down, home, end, f1-f12, joined by '+' to ctrl, shift, alt)";
        break;
      case Arg::kJsonRest:
        if (std::string error = NotifyDocument::payload_error(word); !error.empty())
          return "the payload is not valid JSON: " + error;
        break;
    }
  }
  if (action.action == "screenshot") {
    const std::string& path = action.words[0];
    std::string suffix = path.size() >= 4 ? path.substr(path.size() - 4) : "";
    for (char& c : suffix) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (suffix != ".png") return "a screenshot is written as PNG: the path must end with .png";
  }
  return {};
}

}  // namespace

std::vector<std::string> script_action_names() {
  std::vector<std::string> names;
  for (const ActionSpec& spec : action_table()) names.push_back(spec.name);
  return names;
}

Result<std::vector<ScriptAction>> parse_script(const std::string& text, const std::string& source_name) {
  using R = Result<std::vector<ScriptAction>>;
  if (static_cast<long long>(text.size()) > kMaxScriptBytes)
    return R::failure(source_name + ": larger than " + std::to_string(kMaxScriptBytes) + " bytes (" +
                      std::to_string(text.size()) + ")");
  std::vector<ScriptAction> actions;
  std::string errors;
  int error_count = 0;
  auto report = [&](int line, const std::string& message) {
    if (++error_count <= kMaxReportedErrors)
      errors += (errors.empty() ? "" : "\n") + source_name + ":" + std::to_string(line) + ": " + message;
  };
  int line_number = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > kMaxLineBytes) {
      report(line_number, "line longer than " + std::to_string(kMaxLineBytes) + " bytes");
      continue;
    }
    if (!is_utf8(line)) {
      report(line_number, "not UTF-8 text");
      continue;
    }
    bool control = false;
    for (char c : line) control = control || (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7F;
    if (control) {
      report(line_number, "control character in the line (binary data?)");
      continue;
    }
    ScriptAction action;
    action.line = line_number;
    // The action decides how the rest splits (payload-notify keeps its JSON whole), so it is read first.
    const size_t action_begin = line.find_first_not_of(" \t");
    const std::string_view action_word =
        action_begin == std::string_view::npos
            ? std::string_view()
            : line.substr(action_begin, line.find_first_of(" \t", action_begin) - action_begin);
    const bool json_rest = action_word == "payload-notify";
    std::vector<std::string> words;
    std::string rest;
    if (std::string error = split_words(line, words, 1, json_rest ? &rest : nullptr); !error.empty()) {
      report(line_number, error);
      continue;
    }
    if (words.empty()) continue;  // blank or comment
    action.action = words[0];
    action.words.assign(words.begin() + 1, words.end());
    if (json_rest && !rest.empty()) action.words.push_back(rest);
    if (std::string error = check_action(action); !error.empty()) {
      report(line_number, error);
      continue;
    }
    if (static_cast<int>(actions.size()) == kMaxScriptActions) {
      report(line_number, "more than " + std::to_string(kMaxScriptActions) + " actions");
      break;
    }
    actions.push_back(std::move(action));
  }
  if (error_count > kMaxReportedErrors)
    errors += "\n" + source_name + ": " + std::to_string(error_count - kMaxReportedErrors) + " more errors";
  if (error_count > 0) return R::failure(errors);
  return actions;
}

Result<std::vector<ScriptAction>> load_script(const std::string& path) {
  using R = Result<std::vector<ScriptAction>>;
  std::error_code ec;
  if (std::filesystem::is_directory(path_from_utf8(path), ec)) return R::failure(path + ": is a folder");
  std::ifstream in(path_from_utf8(path), std::ios::binary);
  if (!in) return R::failure(path + ": cannot open");
  // Read at most one byte more than allowed: no trust in what the size of a FIFO or /proc file claims.
  std::string text(static_cast<size_t>(kMaxScriptBytes) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return R::failure(path + ": cannot read");
  text.resize(static_cast<size_t>(in.gcount()));
  if (static_cast<long long>(text.size()) > kMaxScriptBytes)
    return R::failure(path + ": larger than " + std::to_string(kMaxScriptBytes) + " bytes");
  return parse_script(text, path);
}

}  // namespace ossa::viewer
