#include "ossa/serialize/ossa_file.h"

#include "ossa/asset/value_ranges.h"
#include "ossa/core/file_io.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <type_traits>

namespace ossa {
namespace {

constexpr char kMagic[8] = {'O', 'S', 'S', 'A', '\r', '\n', '\x1a', '\n'};
constexpr uint32_t kByteOrder = 0x01020304;
constexpr size_t kHeaderSize = 32, kEntrySize = 32;
enum SectionType : uint32_t {
  kSkeleton = 1,
  kMesh = 2,
  kClip = 3,
  kMaterials = 4,
  kNotifies = 5,
  kRootMotion = 6,
  kMorphTargets = 7,    // version 3: one per mesh with targets (index: the mesh)
  kMorphWeights = 8,    // version 3: one per clip with morph weights (index: the clip)
  kAnimGraph = 9,       // the animation graph's JSON text (older readers skip it)
  kMotionDatabase = 10  // the motion-matching database (older readers skip it)
};
constexpr uint32_t kOldestReadableVersion = 2;  // version 2 is version 3 without morph sections

// ----------------------------------------------------------------------------------------------- writing

class Writer {
 public:
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  template <class T>
  void put_array(std::span<const T> values) {
    put(static_cast<uint64_t>(values.size()));
    const auto* p = reinterpret_cast<const uint8_t*>(values.data());
    bytes.insert(bytes.end(), p, p + values.size_bytes());
  }
  void put_string(const std::string& s) { put_array(std::span<const char>(s.data(), s.size())); }
  std::vector<uint8_t> bytes;
};

std::vector<uint8_t> encode_skeleton(const Skeleton& s) {
  Writer w;
  w.put(static_cast<uint32_t>(s.joint_count()));
  for (int j = 0; j < s.joint_count(); ++j) {
    w.put(static_cast<int32_t>(s.parents()[j]));
    w.put(s.rest_pose()[j]);
    w.put(s.inverse_binds()[j]);
    w.put_string(s.name(j));
  }
  return w.bytes;
}

std::vector<uint8_t> encode_mesh(const SkinnedMesh& m) {
  Writer w;
  w.put_string(m.name());
  w.put(static_cast<int32_t>(m.material()));
  w.put(static_cast<uint32_t>(m.influences()));
  w.put_array(m.positions());
  w.put_array(m.normals());
  w.put_array(m.tangents());
  w.put_array(m.uvs());
  w.put_array(m.indices());
  w.put_array(m.joint_indices());
  w.put_array(m.joint_weights());
  w.put_array(m.joint_remap());
  w.put_array(m.inverse_binds());
  return w.bytes;
}

std::vector<uint8_t> encode_clip(const Clip& c) {
  Writer w;
  w.put_string(c.name());
  w.put(static_cast<uint32_t>(c.layout()));
  w.put(c.duration());
  w.put(static_cast<uint32_t>(c.joint_count()));
  switch (c.layout()) {
    case Clip::Layout::kKeyed:
      w.put_array(c.channel_first());
      w.put_array(c.key_times());
      w.put_array(c.key_values());
      break;
    case Clip::Layout::kFixedRate:
      w.put(c.frame_rate());
      w.put(static_cast<uint32_t>(c.frame_count()));
      w.put_array(c.frames());
      break;
    case Clip::Layout::kQuantized:
      w.put(c.frame_rate());
      w.put(static_cast<uint32_t>(c.frame_count()));
      w.put(static_cast<uint32_t>(c.segment_frames()));
      w.put_array(c.constant_channels());
      w.put_array(c.quantized_channels());
      w.put_array(c.segment_channels());
      w.put_array(c.packed());
      break;
  }
  return w.bytes;
}

std::vector<uint8_t> encode_morph_targets(const MorphTargets& m) {
  Writer w;
  w.put(static_cast<uint32_t>(m.count()));
  for (const std::string& name : m.names()) w.put_string(name);
  w.put_array(m.default_weights());
  w.put_array(m.target_first());
  w.put_array(m.vertices());
  w.put_array(m.position_deltas());
  w.put_array(m.normal_deltas());
  w.put_array(m.tangent_deltas());
  return w.bytes;
}

std::vector<uint8_t> encode_morph_weights(const MorphWeightTracks& m) {
  Writer w;
  w.put(static_cast<uint32_t>(m.quantized() ? 1 : 0));
  w.put(static_cast<uint32_t>(m.tracks().size()));
  for (const MorphWeightTracks::Track& t : m.tracks()) {
    w.put(static_cast<int32_t>(t.mesh));
    w.put(static_cast<uint32_t>(t.targets));
    w.put(t.key_count);
  }
  w.put_array(m.key_times());
  if (m.quantized()) {
    w.put_array(m.channels());
    w.put_array(m.packed());
  } else {
    w.put_array(m.key_weights());
  }
  return w.bytes;
}

std::vector<uint8_t> encode_materials(const std::vector<Material>& materials,
                                      const std::vector<Texture>& textures, bool flip_textures) {
  Writer w;
  w.put(static_cast<uint32_t>(materials.size()));
  for (const Material& m : materials) {
    w.put_string(m.name);
    w.put(m.base_color);
    w.put(static_cast<int32_t>(m.diffuse_texture));
    w.put(static_cast<int32_t>(m.normal_texture));
    w.put(static_cast<int32_t>(m.specular_texture));
  }
  w.put(static_cast<uint32_t>(textures.size()));
  for (const Texture& t : textures) {
    w.put_string(t.path);
    w.put_string(std::string());  // where the writer found the image: never stored (it names local files)
    w.put(static_cast<uint8_t>(t.embedded || !t.data.empty()));
    w.put_string(t.format_hint);
    w.put_array(std::span<const uint8_t>(t.data));
  }
  w.put(static_cast<uint8_t>(flip_textures));  // version 4
  return w.bytes;
}

std::vector<uint8_t> encode_root_motion(const RootMotionTrack& t) {
  Writer w;
  w.put(static_cast<int32_t>(t.joint));
  w.put(t.frame_rate);
  w.put(t.duration);
  w.put_array(std::span<const RootDelta>(t.frames));
  return w.bytes;
}

std::vector<uint8_t> encode_motion_database(const MotionDatabase& db) {
  Writer w;
  w.put(db.frame_rate);
  for (int t : db.trajectory_frames) w.put(static_cast<int32_t>(t));
  for (int j : {db.left_foot, db.right_foot, db.hips}) w.put(static_cast<int32_t>(j));
  w.put(static_cast<uint32_t>(db.ranges.size()));
  for (const MotionDatabase::Range& r : db.ranges) {
    w.put(static_cast<int32_t>(r.clip));
    w.put(static_cast<int32_t>(r.first));
    w.put(static_cast<int32_t>(r.count));
    w.put(r.start);
  }
  w.put_array(std::span<const float>(db.offset));
  w.put_array(std::span<const float>(db.scale));
  w.put_array(std::span<const float>(db.features));
  w.put_array(std::span<const uint32_t>(db.tags));
  w.put(static_cast<uint32_t>(db.tag_names.size()));
  for (const std::string& name : db.tag_names) w.put_string(name);
  w.put_array(std::span<const RootDelta>(db.roots));
  w.put_array(std::span<const uint8_t>(db.contacts));
  return w.bytes;
}

// ----------------------------------------------------------------------------------------------- reading

class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, std::string where) : bytes_(bytes), where_(std::move(where)) {}
  template <class T>
  bool get(T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (bytes_.size() - pos_ < sizeof(T)) return fail("ends early");
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  template <class T>
  bool get_array(std::vector<T>& out) {
    uint64_t count = 0;
    if (!get(count)) return false;
    if (count > (bytes_.size() - pos_) / sizeof(T))
      return fail("an array count (" + std::to_string(count) + ") exceeds the section");
    out.resize(count);
    if (count) std::memcpy(out.data(), bytes_.data() + pos_, count * sizeof(T));
    pos_ += count * sizeof(T);
    return true;
  }
  bool get_string(std::string& s) {
    std::vector<char> chars;
    if (!get_array(chars)) return false;
    s.assign(chars.begin(), chars.end());
    return true;
  }
  bool fail(const std::string& what) {
    if (error.empty()) error = where_ + ": " + what;
    return false;
  }
  bool at_end() const { return pos_ == bytes_.size(); }
  size_t remaining() const { return bytes_.size() - pos_; }
  std::string error;

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  std::string where_;
};

bool finite(const JointPose& p) {
  for (int i = 0; i < 4; ++i)
    if (!std::isfinite(p.translation[i]) || !std::isfinite(p.rotation[i]) || !std::isfinite(p.scale[i]))
      return false;
  return true;
}

template <class T>
bool all_finite(const std::vector<T>& v) {
  if constexpr (std::is_same_v<T, float>) {
    return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
  } else if constexpr (std::is_same_v<T, JointPose>) {
    return std::all_of(v.begin(), v.end(), [](const JointPose& p) { return finite(p); });
  } else if constexpr (std::is_same_v<T, Mat4>) {
    return std::all_of(v.begin(), v.end(), [](const Mat4& m) { return is_finite(m); });
  } else {
    return true;
  }
}

std::string decode_skeleton(Reader& r, std::optional<Skeleton>& out) {
  uint32_t count = 0;
  if (!r.get(count)) return r.error;
  if (count == 0 || count > 65535) return "skeleton: joint count " + std::to_string(count) + " out of range";
  RawSkeleton raw;
  raw.joints.resize(count);
  for (uint32_t j = 0; j < count; ++j) {
    int32_t parent = -1;
    JointPose rest;
    Mat4 inverse_bind;
    if (!r.get(parent) || !r.get(rest) || !r.get(inverse_bind) || !r.get_string(raw.joints[j].name))
      return r.error;
    if (!finite(rest) || !is_finite(inverse_bind))
      return "skeleton: joint " + std::to_string(j) + " is not finite";
    raw.joints[j].parent = parent;
    raw.joints[j].rest = to_transform(rest);
    raw.joints[j].inverse_bind = inverse_bind;
    raw.joints[j].has_file_bind = true;
  }
  if (!r.at_end()) return "skeleton: trailing bytes";
  auto built = Skeleton::build(raw);
  if (!built) return "skeleton: " + built.error();
  out = std::move(built).value();
  return {};
}

std::string decode_mesh(Reader& r, const Skeleton* skeleton, std::vector<SkinnedMesh>& out) {
  if (!skeleton) return "a mesh section needs a skeleton section before it";
  RawMesh raw;
  int32_t material = -1;
  uint32_t influences = 0;
  std::vector<float> positions, normals, tangents, uvs, weights;
  std::vector<uint16_t> joints, remap;
  if (!r.get_string(raw.name) || !r.get(material) || !r.get(influences) || !r.get_array(positions) ||
      !r.get_array(normals) || !r.get_array(tangents) || !r.get_array(uvs) || !r.get_array(raw.indices) ||
      !r.get_array(joints) || !r.get_array(weights) || !r.get_array(remap) || !r.get_array(raw.inverse_binds))
    return r.error;
  if (!r.at_end()) return "mesh '" + raw.name + "': trailing bytes";
  const std::string where = "mesh '" + raw.name + "'";
  const size_t n = positions.size() / 3;
  if (positions.size() % 3 || (!normals.empty() && normals.size() != n * 3) ||
      (!tangents.empty() && tangents.size() != n * 4) || (!uvs.empty() && uvs.size() != n * 2))
    return where + ": vertex streams differ in length";
  if (influences < 1 || influences > 4 || joints.size() != n * influences || weights.size() != n * influences)
    return where + ": influence streams do not match the vertices";
  if (remap.size() != raw.inverse_binds.size())
    return where + ": palette map and inverse binds differ in length";
  if (!all_finite(positions) || !all_finite(normals) || !all_finite(tangents) || !all_finite(uvs) ||
      !all_finite(weights) || !all_finite(raw.inverse_binds))
    return where + ": a value is not finite";
  for (uint32_t i : raw.indices)
    if (i >= n) return where + ": an index points past the vertices";
  raw.material = material;
  raw.influences_per_vertex = static_cast<int>(influences);
  raw.skinned = true;
  for (size_t v = 0; v < n; ++v)
    raw.positions.push_back({positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]});
  for (size_t v = 0; v < normals.size() / 3; ++v)
    raw.normals.push_back({normals[3 * v], normals[3 * v + 1], normals[3 * v + 2]});
  for (size_t v = 0; v < tangents.size() / 4; ++v)
    raw.tangents.push_back({tangents[4 * v], tangents[4 * v + 1], tangents[4 * v + 2], tangents[4 * v + 3]});
  for (size_t v = 0; v < uvs.size() / 2; ++v) raw.uvs.push_back({uvs[2 * v], uvs[2 * v + 1]});
  raw.influence_joints = std::move(joints);
  raw.influence_weights = std::move(weights);
  raw.joint_remap.assign(remap.begin(), remap.end());
  auto mesh = SkinnedMesh::build(raw, *skeleton);
  if (!mesh) return mesh.error();
  out.push_back(std::move(mesh).value());
  return {};
}

std::string decode_clip(Reader& r, const Skeleton* skeleton, std::vector<Clip>& out) {
  std::string name;
  uint32_t layout = 0, joints = 0;
  float duration = 0;
  if (!r.get_string(name) || !r.get(layout) || !r.get(duration) || !r.get(joints)) return r.error;
  if (skeleton && joints != static_cast<uint32_t>(skeleton->joint_count()))
    return "clip '" + name + "': made for " + std::to_string(joints) + " joints, the skeleton has " +
           std::to_string(skeleton->joint_count());
  if (joints == 0 || joints > 65535) return "clip '" + name + "': joint count out of range";
  Result<Clip> clip = Result<Clip>::failure("clip '" + name + "': unknown layout " + std::to_string(layout));
  if (layout == static_cast<uint32_t>(Clip::Layout::kKeyed)) {
    std::vector<uint32_t> first;
    std::vector<float> times, values;
    if (!r.get_array(first) || !r.get_array(times) || !r.get_array(values)) return r.error;
    clip = Clip::from_keys(name, duration, static_cast<int>(joints), std::move(first), std::move(times),
                           std::move(values));
  } else if (layout == static_cast<uint32_t>(Clip::Layout::kFixedRate)) {
    float rate = 0;
    uint32_t frames = 0;
    std::vector<JointPose> data;
    if (!r.get(rate) || !r.get(frames) || !r.get_array(data)) return r.error;
    if (data.size() != static_cast<size_t>(frames) * joints)
      return "clip '" + name + "': frame data has the wrong size";
    if (!all_finite(data)) return "clip '" + name + "': a frame is not finite";
    clip = Clip::from_frames(name, duration, rate, static_cast<int>(joints), std::move(data));
  } else if (layout == static_cast<uint32_t>(Clip::Layout::kQuantized)) {
    float rate = 0;
    uint32_t frames = 0, segment_frames = 0;
    Clip::QuantizedParts parts;
    if (!r.get(rate) || !r.get(frames) || !r.get(segment_frames) || !r.get_array(parts.constants) ||
        !r.get_array(parts.channels) || !r.get_array(parts.segment_channels) || !r.get_array(parts.packed))
      return r.error;
    if (frames > (1u << 24) || segment_frames > frames)
      return "clip '" + name + "': frame or segment count out of range";
    if (!skeleton) return "clip '" + name + "': a compressed clip needs the file's skeleton (its rest pose)";
    parts.frame_count = static_cast<int>(frames);
    parts.segment_frames = static_cast<int>(segment_frames);
    clip = Clip::from_quantized(name, duration, rate, skeleton->rest_pose(), std::move(parts));
  }
  if (!clip) return clip.error();
  if (!r.at_end()) return "clip '" + name + "': trailing bytes";
  out.push_back(std::move(clip).value());
  return {};
}

// A mesh's targets, checked for shape here and for vertex range, order and finite values by
// MorphTargets::build once the mesh (its vertex count) is known.
struct PendingTargets {
  std::vector<RawMorphTarget> targets;
  std::vector<float> default_weights;
};

std::string decode_morph_targets(Reader& r, PendingTargets& out) {
  uint32_t count = 0;
  if (!r.get(count)) return r.error;
  if (count == 0 || count > static_cast<uint32_t>(MorphTargets::kMaxTargets) ||
      count > r.remaining() / 8)  // each name takes at least its 8-byte length
    return "morph targets: target count " + std::to_string(count) + " out of range (1-" +
           std::to_string(MorphTargets::kMaxTargets) + ")";
  out.targets.resize(count);
  for (RawMorphTarget& t : out.targets)
    if (!r.get_string(t.name)) return r.error;
  std::vector<uint32_t> first, vertices;
  std::vector<float> positions, normals, tangents;
  if (!r.get_array(out.default_weights) || !r.get_array(first) || !r.get_array(vertices) ||
      !r.get_array(positions) || !r.get_array(normals))
    return r.error;
  // The tangent deltas' array came last, after the first version 3 files: a section that ends before it
  // has none.
  if (!r.at_end() && !r.get_array(tangents)) return r.error;
  if (!r.at_end()) return "morph targets: trailing bytes";
  if (out.default_weights.size() != count || first.size() != size_t{count} + 1 || first[0] != 0 ||
      first.back() != vertices.size() || positions.size() != vertices.size() * 3 ||
      (!normals.empty() && normals.size() != positions.size()) ||
      (!tangents.empty() && tangents.size() != positions.size()))
    return "morph targets: arrays do not match the target count";
  // Every offset is checked before any entry is read: ascending, and so within the arrays (the last is their
  // size).
  for (uint32_t t = 0; t < count; ++t)
    if (first[t + 1] < first[t]) return "morph targets: target offsets are not ascending";
  for (uint32_t t = 0; t < count; ++t) {
    RawMorphTarget& target = out.targets[t];
    for (uint32_t e = first[t]; e < first[t + 1]; ++e) {
      target.vertices.push_back(vertices[e]);
      target.position_deltas.push_back({positions[e * 3], positions[e * 3 + 1], positions[e * 3 + 2]});
      if (!normals.empty())
        target.normal_deltas.push_back({normals[e * 3], normals[e * 3 + 1], normals[e * 3 + 2]});
      if (!tangents.empty())
        target.tangent_deltas.push_back({tangents[e * 3], tangents[e * 3 + 1], tangents[e * 3 + 2]});
    }
  }
  return {};
}

std::string decode_morph_weights(Reader& r, const std::string& where, MorphWeightTracks& out) {
  uint32_t layout = 0, count = 0;
  if (!r.get(layout) || !r.get(count)) return r.error;
  if (layout > 1) return "morph weights: unknown layout " + std::to_string(layout);
  if (count == 0 || count > r.remaining() / 12)
    return "morph weights: track count " + std::to_string(count) + " out of range";
  std::vector<MorphWeightTracks::QuantizedTrack> shapes(count);
  for (MorphWeightTracks::QuantizedTrack& q : shapes) {
    int32_t mesh = -1;
    uint32_t targets = 0;
    if (!r.get(mesh) || !r.get(targets) || !r.get(q.key_count)) return r.error;
    if (targets == 0 || targets > static_cast<uint32_t>(MorphTargets::kMaxTargets) || q.key_count == 0)
      return "morph weights: a track's target or key count is out of range";
    q.mesh = mesh;
    q.targets = static_cast<int>(targets);
  }
  std::vector<float> times;
  if (!r.get_array(times)) return r.error;
  Result<MorphWeightTracks> built = Result<MorphWeightTracks>::failure("");
  if (layout == 1) {
    std::vector<MorphWeightTracks::WeightChannel> channels;
    std::vector<uint8_t> packed;
    if (!r.get_array(channels) || !r.get_array(packed)) return r.error;
    if (!r.at_end()) return "morph weights: trailing bytes";
    built = MorphWeightTracks::from_quantized(shapes, std::move(times), std::move(channels),
                                              std::move(packed), where);
  } else {
    std::vector<float> weights;
    if (!r.get_array(weights)) return r.error;
    if (!r.at_end()) return "morph weights: trailing bytes";
    std::vector<RawMorphTrack> raw(count);
    uint64_t key = 0, weight = 0;
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t keys = shapes[i].key_count, values = keys * static_cast<uint64_t>(shapes[i].targets);
      if (keys > times.size() - key || values > weights.size() - weight)
        return "morph weights: tracks claim more keys than the section holds";
      raw[i].mesh = shapes[i].mesh;
      raw[i].times.assign(times.begin() + key, times.begin() + key + keys);
      raw[i].weights.assign(weights.begin() + weight, weights.begin() + weight + values);
      key += keys, weight += values;
    }
    if (key != times.size() || weight != weights.size()) return "morph weights: unused keys";
    built = MorphWeightTracks::build(raw, where);
  }
  if (!built) return built.error();
  out = std::move(built).value();
  return {};
}

std::string decode_materials(Reader& r, OssaFile& file) {
  uint32_t count = 0;
  if (!r.get(count)) return r.error;
  if (count > 100000) return "materials: count out of range";
  for (uint32_t i = 0; i < count; ++i) {
    Material m;
    int32_t d = -1, n = -1, s = -1;
    if (!r.get_string(m.name) || !r.get(m.base_color) || !r.get(d) || !r.get(n) || !r.get(s)) return r.error;
    m.diffuse_texture = d, m.normal_texture = n, m.specular_texture = s;
    file.materials.push_back(std::move(m));
  }
  if (!r.get(count)) return r.error;
  if (count > 100000) return "textures: count out of range";
  for (uint32_t i = 0; i < count; ++i) {
    Texture t;
    uint8_t embedded = 0;
    if (!r.get_string(t.path) || !r.get_string(t.resolved_path) || !r.get(embedded) ||
        !r.get_string(t.format_hint) || !r.get_array(t.data))
      return r.error;
    t.embedded = embedded != 0;
    t.resolved_path.clear();  // a .ossa never makes its reader open a file it names
    file.textures.push_back(std::move(t));
  }
  for (const Material& m : file.materials)
    for (int tex : {m.diffuse_texture, m.normal_texture, m.specular_texture})
      if (tex < -1 || tex >= static_cast<int>(file.textures.size()))
        return "materials: a texture index is out of range";
  // Version 4: the images' orientation (earlier files end here and hold FBX/COLLADA's, v = 0 at the bottom).
  if (file.version >= 4) {
    uint8_t flip = 1;
    if (!r.get(flip)) return r.error;
    if (flip > 1) return "materials: the texture orientation is neither 0 nor 1";
    file.flip_textures = flip != 0;
  }
  return r.at_end() ? "" : "materials: trailing bytes";
}

std::string decode_root_motion(Reader& r, RootMotionTrack& t) {
  int32_t joint = -1;
  if (!r.get(joint) || !r.get(t.frame_rate) || !r.get(t.duration) || !r.get_array(t.frames)) return r.error;
  t.joint = joint;
  if (!(t.frame_rate > 0) || t.frame_rate > Clip::kMaxFrameRate || !(t.duration >= 0) ||
      t.duration > Clip::kMaxDuration ||
      static_cast<int64_t>(t.frames.size()) != Clip::frame_count_for(t.duration, t.frame_rate))
    return "root motion: invalid track (rate, duration and frame count disagree)";
  // Within +-1e7 (value_ranges.h), yaw included: the deltas are summed over a clip and then over its passes.
  for (const RootDelta& d : t.frames)
    if (!value_ranges::within(d.x, value_ranges::kMaxCoordinate) ||
        !value_ranges::within(d.z, value_ranges::kMaxCoordinate) ||
        !value_ranges::within(d.yaw, value_ranges::kMaxCoordinate))
      return "root motion: a step is not finite or lies outside +-1e7";
  return r.at_end() ? "" : "root motion: trailing bytes";
}

// Counts are checked against the bytes left before anything is sized by them; the arrays against each other
// by MotionDatabase::check(), and against the file's skeleton and clips by decode_ossa.
std::string decode_motion_database(Reader& r, MotionDatabase& db) {
  int32_t trajectory[3], joints[3];
  uint32_t ranges = 0, names = 0;
  if (!r.get(db.frame_rate) || !r.get(trajectory) || !r.get(joints) || !r.get(ranges)) return r.error;
  if (ranges > r.remaining() / 16) return "motion database: range count out of range";
  for (int i = 0; i < 3; ++i) db.trajectory_frames[i] = trajectory[i];
  db.left_foot = joints[0], db.right_foot = joints[1], db.hips = joints[2];
  db.ranges.resize(ranges);
  for (MotionDatabase::Range& range : db.ranges) {
    int32_t clip = 0, first = 0, count = 0;
    if (!r.get(clip) || !r.get(first) || !r.get(count) || !r.get(range.start)) return r.error;
    range.clip = clip, range.first = first, range.count = count;
  }
  if (!r.get_array(db.offset) || !r.get_array(db.scale) || !r.get_array(db.features) ||
      !r.get_array(db.tags) || !r.get(names))
    return r.error;
  if (names > static_cast<uint32_t>(MotionDatabase::kMaxTags)) return "motion database: over 31 tag names";
  db.tag_names.resize(names);
  for (std::string& name : db.tag_names)
    if (!r.get_string(name)) return r.error;
  if (!r.get_array(db.roots) || !r.get_array(db.contacts)) return r.error;
  if (!r.at_end()) return "motion database: trailing bytes";
  if (db.tags.size() > static_cast<size_t>(std::numeric_limits<int>::max() / MotionDatabase::kStride))
    return "motion database: too many frames";
  if (std::string problem = db.check(); !problem.empty()) return "motion database: " + problem;
  return {};
}

}  // namespace

std::vector<uint8_t> encode_ossa(const OssaFile& file) {
  struct Section {
    uint32_t type, index;
    std::vector<uint8_t> bytes;
  };
  std::vector<Section> sections;
  if (file.skeleton) sections.push_back({kSkeleton, 0, encode_skeleton(*file.skeleton)});
  for (size_t i = 0; i < file.meshes.size(); ++i)
    sections.push_back({kMesh, static_cast<uint32_t>(i), encode_mesh(file.meshes[i])});
  for (size_t i = 0; i < file.clips.size(); ++i)
    sections.push_back({kClip, static_cast<uint32_t>(i), encode_clip(file.clips[i])});
  if (!file.materials.empty() || !file.textures.empty())
    sections.push_back({kMaterials, 0, encode_materials(file.materials, file.textures, file.flip_textures)});
  if (!file.notifies_json.empty())
    sections.push_back(
        {kNotifies, 0, std::vector<uint8_t>(file.notifies_json.begin(), file.notifies_json.end())});
  if (!file.anim_graph_json.empty())
    sections.push_back(
        {kAnimGraph, 0, std::vector<uint8_t>(file.anim_graph_json.begin(), file.anim_graph_json.end())});
  for (size_t i = 0; i < file.meshes.size(); ++i)
    if (!file.meshes[i].morph_targets().empty())
      sections.push_back(
          {kMorphTargets, static_cast<uint32_t>(i), encode_morph_targets(file.meshes[i].morph_targets())});
  for (size_t i = 0; i < file.clips.size(); ++i)
    if (!file.clips[i].morph_weights().empty())
      sections.push_back(
          {kMorphWeights, static_cast<uint32_t>(i), encode_morph_weights(file.clips[i].morph_weights())});
  for (size_t i = 0; i < file.root_motion.size(); ++i)
    if (file.root_motion[i])
      sections.push_back({kRootMotion, static_cast<uint32_t>(i), encode_root_motion(*file.root_motion[i])});
  if (file.motion_database)
    sections.push_back({kMotionDatabase, 0, encode_motion_database(*file.motion_database)});

  auto align = [](uint64_t v) { return (v + 15) & ~uint64_t{15}; };
  uint64_t offset = align(kHeaderSize + kEntrySize * sections.size());
  std::vector<uint64_t> offsets;
  for (const Section& s : sections) {
    offsets.push_back(offset);
    offset = align(offset + s.bytes.size());
  }
  std::vector<uint8_t> out(offset, 0);
  auto put = [&](size_t at, const auto& v) { std::memcpy(out.data() + at, &v, sizeof v); };
  std::memcpy(out.data(), kMagic, 8);
  put(8, kOssaFormatVersion);
  put(12, kByteOrder);
  put(16, static_cast<uint32_t>(sections.size()));
  put(20, static_cast<uint32_t>(file.left_handed ? 1 : 0));
  put(24, static_cast<uint64_t>(out.size()));
  for (size_t i = 0; i < sections.size(); ++i) {
    const size_t entry = kHeaderSize + kEntrySize * i;
    put(entry, sections[i].type);
    put(entry + 4, sections[i].index);
    put(entry + 8, offsets[i]);
    put(entry + 16, static_cast<uint64_t>(sections[i].bytes.size()));
    put(entry + 24, static_cast<uint64_t>(XXH3_64bits(sections[i].bytes.data(), sections[i].bytes.size())));
    std::memcpy(out.data() + offsets[i], sections[i].bytes.data(), sections[i].bytes.size());
  }
  return out;
}

Result<bool> write_ossa(const OssaFile& file, const std::string& path) {
  return write_file_atomically(path, encode_ossa(file));
}

Result<OssaFile> decode_ossa(std::span<const uint8_t> bytes, const std::string& name) {
  auto fail = [&](const std::string& what) { return Result<OssaFile>::failure(name + ": " + what); };
  if (bytes.size() < kHeaderSize) return fail("not an .ossa file (too short for the header)");
  if (std::memcmp(bytes.data(), kMagic, 8) != 0) return fail("not an .ossa file (bad magic)");
  uint32_t version, order, count, flags;
  uint64_t size;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&order, bytes.data() + 12, 4);
  std::memcpy(&count, bytes.data() + 16, 4);
  std::memcpy(&flags, bytes.data() + 20, 4);
  std::memcpy(&size, bytes.data() + 24, 8);
  if (order != kByteOrder) return fail("written with the other byte order (not supported)");
  if (version < kOldestReadableVersion || version > kOssaFormatVersion)
    return fail("unsupported version " + std::to_string(version) + " (this build reads versions " +
                std::to_string(kOldestReadableVersion) + " to " + std::to_string(kOssaFormatVersion) + ")");
  if (size != bytes.size())
    return fail("truncated or padded: the header says " + std::to_string(size) + " bytes, the file has " +
                std::to_string(bytes.size()));
  if (count > (bytes.size() - kHeaderSize) / kEntrySize)
    return fail("the section table does not fit the file");

  OssaFile file;
  file.version = version;
  file.left_handed = (flags & 1) != 0;
  struct Entry {
    uint32_t type, index;
    std::span<const uint8_t> payload;
  };
  std::vector<Entry> entries;
  entries.reserve(count);
  int skeleton_entry = -1;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* entry = bytes.data() + kHeaderSize + kEntrySize * i;
    uint32_t type, index;
    uint64_t offset, length, checksum;
    std::memcpy(&type, entry, 4);
    std::memcpy(&index, entry + 4, 4);
    std::memcpy(&offset, entry + 8, 8);
    std::memcpy(&length, entry + 16, 8);
    std::memcpy(&checksum, entry + 24, 8);
    const std::string where = "section " + std::to_string(i);
    if (offset > bytes.size() || length > bytes.size() - offset)
      return fail(where + " lies outside the file");
    if (offset < kHeaderSize + kEntrySize * count) return fail(where + " overlaps the section table");
    std::span<const uint8_t> payload = bytes.subspan(offset, length);
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION  // fuzzers mutate what lies behind the checksum
    if (XXH3_64bits(payload.data(), payload.size()) != checksum)
      return fail(where + ": checksum mismatch (damaged)");
#endif
    if (type == kSkeleton) {
      if (skeleton_entry >= 0) return fail("two skeleton sections");
      skeleton_entry = static_cast<int>(i);
    }
    entries.push_back({type, index, payload});
  }
  // The skeleton first, wherever the table puts it: meshes and clips are checked against it.
  if (skeleton_entry >= 0) {
    Reader r(entries[skeleton_entry].payload, "section " + std::to_string(skeleton_entry));
    if (std::string error = decode_skeleton(r, file.skeleton); !error.empty()) return fail(error);
  }
  const Skeleton* skeleton = file.skeleton ? &*file.skeleton : nullptr;
  std::vector<std::pair<uint32_t, RootMotionTrack>> tracks;
  std::vector<std::pair<uint32_t, PendingTargets>> morph_targets;
  std::vector<std::pair<uint32_t, MorphWeightTracks>> morph_weights;
  for (uint32_t i = 0; i < count; ++i) {
    const Entry& e = entries[i];
    if (version < 3 && (e.type == kMorphTargets || e.type == kMorphWeights))
      continue;  // unknown to version 2
    const std::string where = "section " + std::to_string(i);
    Reader r(e.payload, where);
    std::string error;
    switch (e.type) {
      case kSkeleton:
        break;  // decoded above
      case kMesh:
        error = decode_mesh(r, skeleton, file.meshes);
        break;
      case kClip:
        error = decode_clip(r, skeleton, file.clips);
        break;
      case kMaterials:
        if (!file.materials.empty() || !file.textures.empty()) return fail("two material sections");
        error = decode_materials(r, file);
        break;
      case kNotifies:
        if (!file.notifies_json.empty()) return fail("two notify sections");
        file.notifies_json.assign(e.payload.begin(), e.payload.end());
        break;
      case kAnimGraph:  // checked against the character by the loader (ossa/serialize/load.h)
        if (!file.anim_graph_json.empty()) return fail("two animation graph sections");
        file.anim_graph_json.assign(e.payload.begin(), e.payload.end());
        if (file.anim_graph_json.empty()) return fail("an empty animation graph section");
        break;
      case kRootMotion: {
        RootMotionTrack track;
        error = decode_root_motion(r, track);
        if (error.empty()) tracks.emplace_back(e.index, std::move(track));
        break;
      }
      case kMorphTargets: {
        PendingTargets pending;
        error = decode_morph_targets(r, pending);
        if (error.empty()) morph_targets.emplace_back(e.index, std::move(pending));
        break;
      }
      case kMorphWeights: {
        MorphWeightTracks weights;
        error = decode_morph_weights(r, "clip " + std::to_string(e.index), weights);
        if (error.empty()) morph_weights.emplace_back(e.index, std::move(weights));
        break;
      }
      case kMotionDatabase: {
        if (file.motion_database) return fail("two motion database sections");
        MotionDatabase db;
        error = decode_motion_database(r, db);
        if (error.empty()) file.motion_database = std::move(db);
        break;
      }
      default:
        break;  // unknown sections (from newer writers) are skipped
    }
    if (!error.empty()) return fail(error);
  }
  file.root_motion.resize(file.clips.size());
  for (auto& [index, track] : tracks) {
    if (index >= file.clips.size()) return fail("root motion for a missing clip");
    if (file.root_motion[index]) return fail("two root motion tracks for clip " + std::to_string(index));
    const Clip& clip = file.clips[index];
    if (track.duration != clip.duration()) return fail("root motion: its duration differs from its clip's");
    if (track.joint < 0 || track.joint >= clip.joint_count())
      return fail("root motion: joint " + std::to_string(track.joint) + " is not in its clip");
    file.root_motion[index] = std::move(track);
  }
  for (auto& [index, pending] : morph_targets) {
    if (index >= file.meshes.size()) return fail("morph targets for a missing mesh");
    SkinnedMesh& mesh = file.meshes[index];
    if (!mesh.morph_targets().empty())
      return fail("two morph target sections for mesh " + std::to_string(index));
    auto built = MorphTargets::build(pending.targets, pending.default_weights,
                                     static_cast<size_t>(mesh.vertex_count()), !mesh.tangents().empty(),
                                     "mesh '" + mesh.name() + "'");
    if (!built) return fail(built.error());
    mesh = SkinnedMesh::with_morph_targets(std::move(mesh), std::move(built).value());
  }
  for (auto& [index, weights] : morph_weights) {
    if (index >= file.clips.size()) return fail("morph weights for a missing clip");
    Clip& clip = file.clips[index];
    if (!clip.morph_weights().empty())
      return fail("two morph weight sections for clip " + std::to_string(index));
    // With meshes in the file, every track must fit one (an animation-only file's clips name the meshes of
    // the character they will play on; CharacterAsset::build checks them there).
    for (const MorphWeightTracks::Track& t : weights.tracks())
      if (!file.meshes.empty() && (static_cast<size_t>(t.mesh) >= file.meshes.size() ||
                                   file.meshes[t.mesh].morph_targets().count() != t.targets))
        return fail("clip '" + clip.name() + "': morph weights for mesh " + std::to_string(t.mesh) +
                    " do not fit the file's meshes");
    clip = Clip::with_morph_weights(std::move(clip), std::move(weights));
  }
  if (const auto& db = file.motion_database) {
    // Its joints are the skeleton's, its ranges parts of the file's clips.
    if (!skeleton) return fail("a motion database without a skeleton");
    for (int j : {db->left_foot, db->right_foot, db->hips})
      if (j >= skeleton->joint_count())
        return fail("motion database: a followed joint is not in the skeleton");
    for (const MotionDatabase::Range& range : db->ranges) {
      if (range.clip >= static_cast<int>(file.clips.size()))
        return fail("motion database: a range names a missing clip");
      const double end = range.start + (range.count - 1) / static_cast<double>(db->frame_rate);
      if (end > file.clips[range.clip].duration() + 1e-3)
        return fail("motion database: a range runs past the end of clip '" + file.clips[range.clip].name() +
                    "'");
    }
  }
  for (const SkinnedMesh& m : file.meshes)
    if (m.material() >= static_cast<int>(file.materials.size()))
      return fail("mesh '" + m.name() + "': material out of range");
  if (!file.notifies_json.empty()) {
    std::vector<ClipTiming> timings;
    for (const Clip& c : file.clips) timings.push_back({c.name(), c.duration()});
    auto parsed = parse_notifies(file.notifies_json, name + " (notifies)", timings);
    if (!parsed) return Result<OssaFile>::failure(parsed.error());
  }
  return file;
}

Result<OssaFile> read_ossa(const std::string& path) {
  std::ifstream in(path_from_utf8(path), std::ios::binary | std::ios::ate);
  if (!in) return Result<OssaFile>::failure(path + ": cannot open");
  std::streamsize size = in.tellg();
  if (size < 0) return Result<OssaFile>::failure(path + ": cannot read");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size))
    return Result<OssaFile>::failure(path + ": cannot read");
  return decode_ossa(bytes, path);
}

Result<CharacterAsset> OssaFile::character() && {
  if (!skeleton) return Result<CharacterAsset>::failure("the file has no skeleton");
  return CharacterAsset{std::move(*skeleton), std::move(clips), std::move(meshes)};
}

}  // namespace ossa
