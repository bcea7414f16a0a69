// BVH text -> ImportedScene, as Blender's io_anim_bvh/import_bvh.py reads it (see bvh_file.h for what is
// made, docs/asset-pipeline.md "BVH motion capture" for the rules and where they come from).
//
// The hierarchy is read token by token (a '{' may share a line with its ROOT or JOINT, and a name is the rest
// of its line, its words joined with '_'), the motion line by line: every non-empty line after Frame Time is
// a frame, as in Blender, and holds at least one value per channel.
#include "bvh_file.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <vector>

#include "space.h"

namespace ossa::detail {
namespace {

constexpr double kPi = 3.14159265358979323846;

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// Input quoted in a message: at most 40 bytes, control bytes, DEL and bytes past ASCII as \xNN.
std::string quote(std::string_view text) {
  std::string out = "'";
  size_t shown = 0;
  for (unsigned char c : text) {
    if (shown++ == 40) {
      out += "...";
      break;
    }
    if (c < 0x20 || c >= 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "'";
}

std::string line_prefix(int line) {
  return "line " + std::to_string(line) + ": ";
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

// Lines of the text: "\n", "\r\n" and a lone "\r" each end one (Blender splits a file that has only '\r').
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}

  // The next line (without its end) into `line`; false at the end of the text, or with `error` set when the
  // line is longer than kBvhMaxLineBytes.
  bool next(std::string_view& line, std::string& error) {
    if (pos_ >= text_.size()) return false;
    ++number_;
    const size_t limit = std::min(text_.size(), pos_ + kBvhMaxLineBytes + 1);
    size_t end = pos_;
    while (end < limit && text_[end] != '\n' && text_[end] != '\r') ++end;
    if (end - pos_ > kBvhMaxLineBytes) {
      error = "line " + std::to_string(number_) + " is longer than " + std::to_string(kBvhMaxLineBytes) +
              " bytes: not a BVH file, or a damaged one";
      return false;
    }
    line = text_.substr(pos_, end - pos_);
    pos_ = end;
    if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '\n' && (pos_ == end || text_[end] == '\r')) ++pos_;
    return true;
  }
  int number() const { return number_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int number_ = 0;
};

void split(std::string_view line, std::vector<std::string_view>& tokens) {
  tokens.clear();
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
}

// The hierarchy's tokens, line by line.
class Tokens {
 public:
  explicit Tokens(std::string_view text) : lines_(text) {}

  // The next token, crossing lines; false at the end of the text (error() says whether a line was too long).
  bool next(std::string_view& token) {
    while (at_ == tokens_.size()) {
      std::string_view line;
      if (!lines_.next(line, error_)) return false;
      split(line, tokens_);
      at_ = 0;
    }
    token = tokens_[at_++];
    return true;
  }
  // What is left of the current line (consumed).
  std::span<const std::string_view> rest_of_line() {
    std::span<const std::string_view> rest(tokens_.data() + at_, tokens_.size() - at_);
    at_ = tokens_.size();
    return rest;
  }
  int line() const { return lines_.number(); }
  const std::string& error() const { return error_; }
  LineReader& lines() { return lines_; }

 private:
  LineReader lines_;
  std::vector<std::string_view> tokens_;
  size_t at_ = 0;
  std::string error_;
};

// A number as Python's float() reads it (Blender's reader): "" when it is one, finite and within +-1e7, else
// what is wrong, starting with the quoted token.
std::string parse_number(std::string_view token, double& out) {
  std::string_view digits = token;
  if (!digits.empty() && digits[0] == '+') {
    digits.remove_prefix(1);
    if (digits.empty() || digits[0] == '+' || digits[0] == '-') return quote(token) + " is not a number";
  }
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, out);
  if (ptr != end || (ec != std::errc() && ec != std::errc::result_out_of_range))
    return quote(token) + " is not a number";
  if (ec == std::errc::result_out_of_range) out = std::numeric_limits<double>::infinity();
  if (!std::isfinite(out)) {
    // from_chars turns a finite number too large for a double into an error, "inf" and "nan" into values.
    const bool named = std::any_of(digits.begin(), digits.end(), [](char c) {
      return std::isalpha(static_cast<unsigned char>(c)) && c != 'e' && c != 'E';
    });
    return quote(token) + (named ? " is not a finite number" : " is outside +-1e7");
  }
  if (std::fabs(out) > kBvhMaxValue) return quote(token) + " is outside +-1e7";
  return {};
}

struct Vec3d {
  double x = 0, y = 0, z = 0;
  Vec3d operator+(const Vec3d& o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3d operator*(double s) const { return {x * s, y * s, z * s}; }
};
Vec3d cross(const Vec3d& a, const Vec3d& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
struct QuatD {
  double x = 0, y = 0, z = 0, w = 1;
};
QuatD multiply(const QuatD& a, const QuatD& b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

enum Channel { kXposition, kYposition, kZposition, kXrotation, kYrotation, kZrotation };
constexpr const char* kChannelNames[6] = {"Xposition", "Yposition", "Zposition",
                                          "Xrotation", "Yrotation", "Zrotation"};

struct BvhJoint {
  std::string name;  // as read (joined words), or "EndSite_<parent's name>"
  int parent = -1;
  bool end_site = false;
  bool has_offset = false, has_channels = false, has_child = false;
  double offset[3] = {0, 0, 0};
  int position[3] = {-1, -1, -1};  // value index in a motion line per axis, -1: none
  int rotation_axis[3] = {0, 0, 0};
  int rotation_value[3] = {-1, -1, -1};
  int rotations = 0;  // rotation channels, in file order
  bool has_position() const { return position[0] >= 0 || position[1] >= 0 || position[2] >= 0; }
};

class Reader {
 public:
  Reader(std::string_view text, const BvhOptions& options, ImportedScene& out)
      : tokens_(text),
        options_(options),
        out_(out),
        scale_(options.unit_scale > 0 ? options.unit_scale : 1.0) {}
  std::string run();

 private:
  std::string hierarchy(bool& has_motion);
  std::string open_joint(std::string_view keyword, int parent);
  std::string read_offset(BvhJoint& joint);
  std::string read_channels(BvhJoint& joint);
  std::string motion();
  std::string motion_line(std::string_view line, const std::vector<std::string_view>& tokens);
  void name_joints();
  std::string build(const SpaceMapper& mapper);
  void describe_space();
  void warn(std::string what) { out_.warnings.push_back(std::move(what)); }

  Tokens tokens_;
  const BvhOptions& options_;
  ImportedScene& out_;
  const double scale_;  // file units -> metres
  std::vector<BvhJoint> joints_;
  std::vector<int> open_;  // joints whose '}' is still to come, innermost last
  int channels_ = 0;       // values per motion line
  // Motion, per frame and joint with channels: file-space translations and rotations (composed in double
  // precision, kept as floats like the keys they become: about the size of the file's text).
  std::vector<int> animated_;                    // joints with channels, in file order
  std::vector<float> translations_, rotations_;  // frames x animated x 3 / x 4
  size_t frames_ = 0;
  double frame_time_ = 0;
  std::vector<double> values_;  // one motion line
  size_t long_lines_ = 0;
  int first_long_line_ = 0;
};

std::string Reader::run() {
  bool has_motion = false;
  if (std::string e = hierarchy(has_motion); !e.empty()) return e;
  if (has_motion) {
    if (std::string e = motion(); !e.empty()) return e;
  } else {
    warn("the file has no MOTION section: the skeleton only");
  }
  name_joints();
  out_.space = identity_space("", options_.left_handed);
  out_.space.unit_scale = scale_;
  const float s = static_cast<float>(scale_);
  out_.space.file_to_canonical = out_.space.file_to_canonical * scale_matrix({s, s, s});
  const SpaceMapper mapper(out_.space);
  if (std::string e = build(mapper); !e.empty()) return e;
  describe_space();
  return {};
}

std::string Reader::hierarchy(bool& has_motion) {
  std::string_view token;
  if (!tokens_.next(token)) return tokens_.error().empty() ? "the file is empty" : tokens_.error();
  if (!iequals(token, "HIERARCHY"))
    return line_prefix(tokens_.line()) + "a BVH file starts with HIERARCHY, got " + quote(token);
  if (auto rest = tokens_.rest_of_line(); !rest.empty())
    return line_prefix(tokens_.line()) + "unexpected " + quote(rest[0]) + " after HIERARCHY";
  while (true) {
    if (!tokens_.next(token)) {
      if (!tokens_.error().empty()) return tokens_.error();
      if (joints_.empty()) return line_prefix(tokens_.line()) + "the file ends before its first ROOT";
      return {};  // no MOTION: the skeleton only
    }
    if (iequals(token, "MOTION")) {
      if (joints_.empty()) return line_prefix(tokens_.line()) + "MOTION before any ROOT";
      if (auto rest = tokens_.rest_of_line(); !rest.empty())
        return line_prefix(tokens_.line()) + "unexpected " + quote(rest[0]) + " after MOTION";
      has_motion = true;
      return {};
    }
    if (!iequals(token, "ROOT"))
      return line_prefix(tokens_.line()) + "expected ROOT or MOTION, got " + quote(token);
    if (std::string e = open_joint("ROOT", -1); !e.empty()) return e;
    // The joint's body, down to its closing brace.
    while (!open_.empty()) {
      BvhJoint* joint = &joints_[open_.back()];
      if (!tokens_.next(token)) {
        if (!tokens_.error().empty()) return tokens_.error();
        return line_prefix(tokens_.line()) + "the file ends inside " +
               (joint->end_site ? "an End Site of " + quote(joints_[joint->parent].name)
                                : "joint " + quote(joint->name));
      }
      if (token == "}") {
        if (!joint->has_offset)
          return line_prefix(tokens_.line()) +
                 (joint->end_site ? "an End Site" : "joint " + quote(joint->name)) + " has no OFFSET";
        open_.pop_back();
        continue;
      }
      if (iequals(token, "OFFSET")) {
        if (std::string e = read_offset(*joint); !e.empty()) return e;
        continue;
      }
      if (joint->end_site)
        return line_prefix(tokens_.line()) + "expected OFFSET or '}' in an End Site, got " + quote(token);
      if (iequals(token, "CHANNELS")) {
        if (std::string e = read_channels(*joint); !e.empty()) return e;
        continue;
      }
      if (iequals(token, "JOINT") || iequals(token, "End")) {
        if (!joint->has_offset)
          return line_prefix(tokens_.line()) + "joint " + quote(joint->name) +
                 " has no OFFSET before its first child";
        joint->has_child = true;
        if (std::string e = open_joint(token, open_.back()); !e.empty()) return e;
        continue;
      }
      return line_prefix(tokens_.line()) + "expected OFFSET, CHANNELS, JOINT, End Site or '}', got " +
             quote(token);
    }
  }
}

// After ROOT, JOINT or End: the name (the rest of the line, words joined with '_' as Blender joins them; an
// End Site's name, if any, is ignored as Blender ignores it) and the opening brace.
std::string Reader::open_joint(std::string_view keyword, int parent) {
  const int line = tokens_.line();
  std::span<const std::string_view> words = tokens_.rest_of_line();
  bool brace = false;
  if (!words.empty() && words.back() == "{") brace = true, words = words.first(words.size() - 1);
  BvhJoint joint;
  joint.parent = parent;
  if (iequals(keyword, "End")) {
    if (words.empty() || !iequals(words[0], "Site"))
      return line_prefix(line) + "expected 'End Site', got 'End" +
             (words.empty() ? "'" : " " + quote(words[0]).substr(1));
    joint.end_site = true;
    joint.name = "EndSite_" + joints_[parent].name;  // assimp's name (name_joints() makes it final)
  } else {
    if (words.empty()) return line_prefix(line) + std::string(keyword) + " without a name";
    for (size_t i = 0; i < words.size(); ++i) joint.name += (i ? "_" : "") + std::string(words[i]);
    if (joint.name.size() > kBvhMaxNameBytes)
      return line_prefix(line) + "a joint name longer than " + std::to_string(kBvhMaxNameBytes) + " bytes";
    if (std::any_of(joint.name.begin(), joint.name.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      return line_prefix(line) + "the joint name " + quote(joint.name) + " has a control character";
  }
  if (joints_.size() >= kBvhMaxJoints)
    return line_prefix(line) + "more than " + std::to_string(kBvhMaxJoints) +
           " joints (End Sites included): more than a skeleton holds";
  if (!brace) {
    std::string_view token;
    if (!tokens_.next(token))
      return tokens_.error().empty() ? line_prefix(tokens_.line()) + "the file ends before the '{' of " +
                                           (joint.end_site ? "an End Site" : quote(joint.name))
                                     : tokens_.error();
    if (token != "{")
      return line_prefix(tokens_.line()) + "expected '{' after " +
             (joint.end_site ? "End Site" : std::string(keyword) + " " + quote(joint.name)) + ", got " +
             quote(token);
  }
  open_.push_back(static_cast<int>(joints_.size()));
  joints_.push_back(std::move(joint));
  return {};
}

std::string Reader::read_offset(BvhJoint& joint) {
  const int line = tokens_.line();
  if (joint.has_offset) return line_prefix(line) + "a second OFFSET in " + quote(joint.name);
  if (joint.has_child)
    return line_prefix(line) + "the OFFSET of " + quote(joint.name) + " after its first child";
  auto numbers = tokens_.rest_of_line();
  if (numbers.size() != 3)
    return line_prefix(line) + "OFFSET needs 3 numbers, the line has " + std::to_string(numbers.size());
  for (int a = 0; a < 3; ++a) {
    if (std::string e = parse_number(numbers[a], joint.offset[a]); !e.empty())
      return line_prefix(line) + "OFFSET: " + e;
    if (std::fabs(joint.offset[a]) * scale_ > kBvhMaxValue)
      return line_prefix(line) + "OFFSET: " + quote(numbers[a]) + " times the unit scale is outside +-1e7 m";
  }
  joint.has_offset = true;
  return {};
}

std::string Reader::read_channels(BvhJoint& joint) {
  const int line = tokens_.line();
  if (joint.has_channels) return line_prefix(line) + "a second CHANNELS line in " + quote(joint.name);
  // The motion lines hold the channels in the order their lines come in the file: after a child's, this
  // joint's would not be in joint order.
  if (joint.has_child)
    return line_prefix(line) + "the CHANNELS of " + quote(joint.name) + " after its first child";
  auto words = tokens_.rest_of_line();
  if (words.empty()) return line_prefix(line) + "CHANNELS needs a count";
  unsigned count = 0;
  const char* end = words[0].data() + words[0].size();
  if (auto [ptr, ec] = std::from_chars(words[0].data(), end, count); ptr != end || ec != std::errc())
    return line_prefix(line) + "CHANNELS needs a count, got " + quote(words[0]);
  if (count > 6)
    return line_prefix(line) + "CHANNELS " + std::string(words[0]) + ": a joint has at most 6 channels";
  if (words.size() - 1 != count)
    return line_prefix(line) + "CHANNELS says " + std::to_string(count) + ", the line names " +
           std::to_string(words.size() - 1);
  bool seen[6] = {};
  for (unsigned i = 1; i < words.size(); ++i) {
    int channel = -1;
    for (int c = 0; c < 6; ++c)
      if (iequals(words[i], kChannelNames[c])) channel = c;
    if (channel < 0) return line_prefix(line) + "unknown channel " + quote(words[i]);
    if (seen[channel]) return line_prefix(line) + "channel " + quote(words[i]) + " twice";
    seen[channel] = true;
    const int value = channels_++;
    if (channel <= kZposition) {
      joint.position[channel] = value;
    } else {
      joint.rotation_axis[joint.rotations] = channel - kXrotation;
      joint.rotation_value[joint.rotations++] = value;
    }
  }
  joint.has_channels = true;
  return {};
}

std::string Reader::motion() {
  LineReader& lines = tokens_.lines();
  std::string error;
  std::string_view line;
  std::vector<std::string_view> tokens;
  auto next_line = [&]() {
    while (lines.next(line, error)) {
      split(line, tokens);
      if (!tokens.empty()) return true;
    }
    return false;
  };
  auto trimmed = [&]() {
    const size_t b = line.find_first_not_of(" \t\v\f"), e = line.find_last_not_of(" \t\v\f");
    return line.substr(b, e - b + 1);
  };
  if (!next_line())
    return !error.empty() ? error : line_prefix(lines.number()) + "the file ends before 'Frames: <count>'";
  if (tokens.size() != 2 || !iequals(tokens[0], "Frames:"))
    return line_prefix(lines.number()) + "expected 'Frames: <count>', got " + quote(trimmed());
  unsigned long long header_frames = 0;
  const char* end = tokens[1].data() + tokens[1].size();
  if (auto [ptr, ec] = std::from_chars(tokens[1].data(), end, header_frames); ptr != end || ec != std::errc())
    return line_prefix(lines.number()) + "'Frames:' needs a count, got " + quote(tokens[1]);
  if (!next_line())
    return !error.empty() ? error
                          : line_prefix(lines.number()) + "the file ends before 'Frame Time: <seconds>'";
  if (tokens.size() != 3 || !iequals(tokens[0], "Frame") || !iequals(tokens[1], "Time:"))
    return line_prefix(lines.number()) + "expected 'Frame Time: <seconds>', got " + quote(trimmed());
  if (!parse_number(tokens[2], frame_time_).empty() || !(frame_time_ > 0))
    return line_prefix(lines.number()) + "Frame Time must be a positive number of seconds, got " +
           quote(tokens[2]);

  for (size_t j = 0; j < joints_.size(); ++j)
    if (joints_[j].has_position() || joints_[j].rotations > 0) animated_.push_back(static_cast<int>(j));
  values_.resize(channels_);
  // Every non-empty line to the end of the file is a frame (import_bvh.py reads to the end; Frames: only
  // sizes Blender's scene).
  while (next_line()) {
    if (frames_ == kBvhMaxFrames)
      return line_prefix(lines.number()) + "more than " + std::to_string(kBvhMaxFrames) + " motion lines";
    if (std::string e = motion_line(line, tokens); !e.empty()) return line_prefix(lines.number()) + e;
  }
  if (!error.empty()) return error;
  if (header_frames != frames_)
    warn("Frames: says " + std::to_string(header_frames) + ", the file has " + std::to_string(frames_) +
         (frames_ == 1 ? " motion line: read " : " motion lines: read ") + std::to_string(frames_));
  if (long_lines_)
    warn((long_lines_ == 1 ? "1 motion line (line " + std::to_string(first_long_line_) + ") has"
                           : std::to_string(long_lines_) + " motion lines (the first: line " +
                                 std::to_string(first_long_line_) + ") have") +
         " more values than the hierarchy's " + std::to_string(channels_) +
         (channels_ == 1 ? " channel" : " channels") +
         ": the extra values were ignored, as Blender ignores them");
  return {};
}

// One frame: at least a value per channel (import_bvh.py fails on fewer and ignores more).
std::string Reader::motion_line(std::string_view, const std::vector<std::string_view>& tokens) {
  if (tokens.size() < static_cast<size_t>(channels_))
    return std::to_string(tokens.size()) + (tokens.size() == 1 ? " value" : " values") +
           ", the hierarchy has " + std::to_string(channels_) + (channels_ == 1 ? " channel" : " channels");
  if (tokens.size() > static_cast<size_t>(channels_) && long_lines_++ == 0) first_long_line_ = tokens_.line();
  for (int i = 0; i < channels_; ++i)
    if (std::string e = parse_number(tokens[i], values_[i]); !e.empty())
      return "value " + std::to_string(i + 1) + " (" + e.substr(0, e.find(' ')) + ")" + e.substr(e.find(' '));
  for (int j : animated_)
    for (int value : joints_[j].position)
      if (value >= 0 && std::fabs(values_[value]) * scale_ > kBvhMaxValue)
        return "value " + std::to_string(value + 1) + " (" + quote(tokens[value]) +
               ") times the unit scale is outside +-1e7 m";
  for (int j : animated_) {
    const BvhJoint& joint = joints_[j];
    // Position channels replace the OFFSET (Blender: location = bvh_loc - rest_head_local on top of the rest
    // head), root or not; an axis without a channel is 0.
    for (int a = 0; a < 3; ++a)
      translations_.push_back(joint.position[a] >= 0 ? static_cast<float>(values_[joint.position[a]]) : 0.f);
    // Euler angles in degrees, multiplied in the CHANNELS line's order: Rfirst * Rsecond * Rthird (Blender:
    // Euler(angles, rot_order_str[::-1]), whose matrix applies the last channel first).
    QuatD q;
    for (int r = 0; r < joint.rotations; ++r) {
      const double half = values_[joint.rotation_value[r]] * (kPi / 360.0);
      const int axis = joint.rotation_axis[r];
      const double sin_half = std::sin(half);
      q = multiply(
          q, {axis == 0 ? sin_half : 0, axis == 1 ? sin_half : 0, axis == 2 ? sin_half : 0, std::cos(half)});
    }
    rotations_.insert(rotations_.end(), {static_cast<float>(q.x), static_cast<float>(q.y),
                                         static_cast<float>(q.z), static_cast<float>(q.w)});
  }
  ++frames_;
  return {};
}

// Names as Ossa gives duplicates (docs/conventions.md): the first keeps the name, later ones "#2", "#3", ...
void Reader::name_joints() {
  std::set<std::string> used;
  std::map<std::string, int> uses;
  size_t repeated = 0;  // names used more than once (a warning for each of the first 20)
  for (BvhJoint& joint : joints_) {
    // An End Site is named after its joint's final name (joints come before their children).
    if (joint.end_site) joint.name = "EndSite_" + joints_[joint.parent].name;
    if (used.insert(joint.name).second) continue;
    const std::string base = joint.name;
    int& n = uses[base];
    if (n == 0 && !joint.end_site && ++repeated <= 20)
      warn("joint name '" + base + "' appears more than once: the later ones are called '" + base + "#2', '" +
           base + "#3', ...");
    n = std::max(n, 1);
    do joint.name = base + "#" + std::to_string(++n);
    while (!used.insert(joint.name).second);
  }
  if (repeated > 20) warn(std::to_string(repeated - 20) + " more joint names appear more than once");
}

std::string Reader::build(const SpaceMapper& mapper) {
  std::vector<Vec3> world(joints_.size());  // file space, at rest
  for (size_t j = 0; j < joints_.size(); ++j) {
    const BvhJoint& b = joints_[j];
    const Vec3 offset{static_cast<float>(b.offset[0]), static_cast<float>(b.offset[1]),
                      static_cast<float>(b.offset[2])};
    world[j] = b.parent >= 0 ? world[b.parent] + offset : offset;
    RawJoint joint;
    joint.name = b.name;
    joint.parent = b.parent;
    joint.rest = mapper.local(Transform{offset, Quat{}, Vec3{1, 1, 1}});
    joint.inverse_bind = mapper.conjugate(translation_matrix(world[j] * -1.f));
    out_.skeleton.joints.push_back(std::move(joint));
  }
  if (frames_ == 0) return {};

  RawClip clip;
  clip.name = "Motion";  // as assimp named it: users' clip names do not change
  clip.ticks_per_second = 1.0 / frame_time_;
  std::vector<float> times(frames_);
  for (size_t k = 0; k < frames_; ++k) times[k] = static_cast<float>(static_cast<double>(k) * frame_time_);
  for (size_t k = 1; k < frames_; ++k)
    if (!(times[k] > times[k - 1]))
      return "Frame Time " + number_text(frame_time_) + " s is too short for " + std::to_string(frames_) +
             " motion lines: their times do not ascend in 32-bit floats";
  const double duration = static_cast<double>(frames_ - 1) * frame_time_;
  if (duration > 1e7)
    return "the motion lasts " + number_text(duration) + " s (Frame Time x motion lines): absurd";
  if (duration > 3600)
    warn("clip 'Motion': duration " + number_text(duration) + " s is implausibly long (Frame Time " +
         number_text(frame_time_) + " s)");
  clip.duration = static_cast<float>(duration);
  const size_t n = animated_.size();
  for (size_t a = 0; a < n; ++a) {
    const BvhJoint& b = joints_[animated_[a]];
    RawTrack track;
    track.joint = animated_[a];
    if (b.has_position()) {
      track.translation_times = times;
      track.translations.resize(frames_);
      for (size_t k = 0; k < frames_; ++k) {
        const float* t = &translations_[(k * n + a) * 3];
        track.translations[k] = mapper.translation({t[0], t[1], t[2]});
      }
    }
    if (b.rotations > 0) {
      track.rotation_times = times;
      track.rotations.resize(frames_);
      for (size_t k = 0; k < frames_; ++k) {
        const float* q = &rotations_[(k * n + a) * 4];
        Quat r = normalize(mapper.rotation(normalize(Quat{q[0], q[1], q[2], q[3]})));
        // One hemisphere from key to key (q and -q are the same rotation).
        if (k > 0 && dot(r, track.rotations[k - 1]) < 0) r = Quat{-r.x, -r.y, -r.z, -r.w};
        track.rotations[k] = r;
      }
    }
    clip.tracks.push_back(std::move(track));
  }
  out_.clips.push_back(std::move(clip));
  return {};
}

Vec3d rotate(const QuatD& q, const Vec3d& v) {
  // v + 2w (u x v) + 2 u x (u x v), u = q's vector part
  const Vec3d u{q.x, q.y, q.z};
  const Vec3d t = cross(u, v) * 2.0;
  return v + t * q.w + cross(u, t);
}

// BVH states no unit: the note says so, with the skeleton's height (file units: its extent along +Y at rest
// or in the first frame, whichever is larger, as some captures' rest pose lies along x) and the likely unit.
void Reader::describe_space() {
  const size_t n = joints_.size();
  auto extent = [](const std::vector<Vec3d>& points) {
    double low = 0, high = 0;
    for (size_t i = 0; i < points.size(); ++i) {
      low = i ? std::min(low, points[i].y) : points[i].y;
      high = i ? std::max(high, points[i].y) : points[i].y;
    }
    return high - low;
  };
  std::vector<Vec3d> rest(n), first(n);
  std::vector<QuatD> turned(n);
  std::vector<int> slot(n, -1);
  for (size_t a = 0; a < animated_.size(); ++a) slot[animated_[a]] = static_cast<int>(a);
  for (size_t j = 0; j < n; ++j) {
    const BvhJoint& b = joints_[j];
    const Vec3d offset{b.offset[0], b.offset[1], b.offset[2]};
    rest[j] = b.parent >= 0 ? rest[b.parent] + offset : offset;
    Vec3d t = offset;
    QuatD q;
    if (frames_ > 0 && slot[j] >= 0) {
      const size_t a = static_cast<size_t>(slot[j]);
      if (b.has_position()) t = {translations_[a * 3], translations_[a * 3 + 1], translations_[a * 3 + 2]};
      if (b.rotations > 0)
        q = {rotations_[a * 4], rotations_[a * 4 + 1], rotations_[a * 4 + 2], rotations_[a * 4 + 3]};
    }
    first[j] = b.parent >= 0 ? first[b.parent] + rotate(turned[b.parent], t) : t;
    turned[j] = b.parent >= 0 ? multiply(turned[b.parent], q) : q;
  }
  const double height = std::max(extent(rest), frames_ > 0 ? extent(first) : 0.0);
  std::string note;
  if (options_.unit_scale > 0) {
    note = "BVH has no unit: x" + number_text(scale_) +
           " to metres (--scale, ImportOptions::unit_scale); the skeleton is " +
           number_text(height * scale_) + " m tall";
  } else {
    const char* likely = height >= 50 && height <= 300     ? "centimetres: --scale 0.01"
                         : height >= 500 && height <= 3000 ? "millimetres: --scale 0.001"
                                                           : nullptr;
    note = "BVH has no unit: read as metres; the skeleton is " + number_text(height) + " units tall";
    if (likely) {
      note += std::string(", likely ") + likely;
      warn(note);
    }
  }
  out_.space.note = note + (options_.left_handed ? ", mirrored to left-handed" : "");
}

}  // namespace

std::string read_bvh(std::string_view text, const BvhOptions& options, ImportedScene& out) {
  return Reader(text, options, out).run();
}

}  // namespace ossa::detail
