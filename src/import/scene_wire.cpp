#include "scene_wire.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace ossa::detail {
namespace {

constexpr char kMagic[8] = {'O', 'S', 'S', 'A', 'W', 'I', 'R', 'E'};

// Structs made only of floats: written and read as their bytes, every float checked on the way in.
template <class T>
constexpr bool kFloatStruct = std::is_same_v<T, float> || std::is_same_v<T, Vec2> ||
                              std::is_same_v<T, Vec3> || std::is_same_v<T, Vec4> || std::is_same_v<T, Quat> ||
                              std::is_same_v<T, Mat4> || std::is_same_v<T, Transform>;
template <class T>
constexpr bool kPlain = kFloatStruct<T> || std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t> ||
                        std::is_same_v<T, uint32_t> || std::is_same_v<T, int32_t> ||
                        std::is_same_v<T, uint64_t> || std::is_same_v<T, double>;
static_assert(std::is_same_v<int, int32_t>, "ints travel as int32_t");
static_assert(sizeof(Transform) == 10 * sizeof(float) && sizeof(Mat4) == 16 * sizeof(float),
              "float structs must have no padding");

// ---------------------------------------------------------------------------------------------- writing

// One pass with `out` null counts the bytes; the second writes them into a buffer of exactly that size.
class Writer {
 public:
  explicit Writer(char* out) : out_(out) {}
  size_t size() const { return size_; }

  void bytes(const void* p, size_t n) {
    if (out_ && n) std::memcpy(out_ + size_, p, n);
    size_ += n;
  }
  template <class T>
  void put(const T& v) {
    static_assert(kPlain<T>);
    bytes(&v, sizeof v);
  }
  void put(bool v) { put(static_cast<uint8_t>(v ? 1 : 0)); }
  void put(const std::string& s) {
    put(static_cast<uint64_t>(s.size()));
    bytes(s.data(), s.size());
  }
  template <class T>
  void put(const std::vector<T>& v) {
    put(static_cast<uint64_t>(v.size()));
    if constexpr (kPlain<T>) {
      bytes(v.data(), v.size() * sizeof(T));
    } else {
      for (const T& e : v) put(e);
    }
  }

  void put(const RawJoint& j) {
    put(j.name), put(j.parent), put(j.rest), put(j.inverse_bind);
    put(j.has_file_bind), put(j.weighted), put(j.is_mesh_node);
  }
  void put(const RawMorphTarget& t) {
    put(t.name), put(t.vertices), put(t.position_deltas), put(t.normal_deltas), put(t.tangent_deltas);
  }
  void put(const RawMesh& m) {
    put(m.name), put(m.node_joint), put(m.material), put(m.skinned);
    put(m.positions), put(m.normals), put(m.tangents), put(m.uvs), put(m.indices), put(m.base_vertex);
    put(m.influences_per_vertex), put(m.influence_joints), put(m.influence_weights);
    put(m.joint_remap), put(m.inverse_binds);
    const InfluenceStats& s = m.influence_stats;
    put(s.max_found), put(s.vertices_cut), put(s.largest_dropped), put(s.unweighted_vertices);
    put(m.morph_targets), put(m.morph_default_weights);
  }
  void put(const RawTrack& t) {
    put(t.joint), put(t.translation_times), put(t.translations), put(t.rotation_times), put(t.rotations);
    put(t.scale_times), put(t.scales);
  }
  void put(const RawMorphTrack& t) { put(t.mesh), put(t.times), put(t.weights); }
  void put(const RawClip& c) {
    put(c.name), put(c.duration), put(c.ticks_per_second), put(c.tracks), put(c.morph_tracks);
    put(c.converted_step_channels), put(c.converted_cubic_channels);
  }
  void put(const Material& m) {
    put(m.name), put(m.base_color), put(m.diffuse_texture), put(m.normal_texture), put(m.specular_texture);
  }
  void put(const Texture& t) {
    put(t.path), put(t.resolved_path), put(t.embedded), put(t.data), put(t.format_hint);
  }
  void put(const SpaceConversion& s) {
    put(s.source_up), put(s.source_front), put(s.unit_scale), put(s.left_handed), put(s.file_to_canonical);
    put(s.note);
  }
  void put(const ImportedScene& s) {
    bytes(kMagic, sizeof kMagic);
    put(s.source_path), put(s.format), put(s.skeleton.joints), put(s.meshes), put(s.clips);
    put(s.materials), put(s.textures), put(s.space), put(s.warnings), put(s.source_files);
  }

 private:
  char* out_;
  size_t size_ = 0;
};

// ---------------------------------------------------------------------------------------------- reading

// Each get() returns false and records the first problem once the bytes are inconsistent; later calls then
// do nothing, so a decode function can chain them and check once.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  const std::string& error() const { return error_; }
  bool at_end() const { return pos_ == bytes_.size(); }

  bool fail(const std::string& what) {
    if (error_.empty())
      error_ = what + " (at byte " + std::to_string(pos_) + " of " + std::to_string(bytes_.size()) + ")";
    return false;
  }
  bool take(void* out, size_t n) {
    if (!error_.empty()) return false;
    if (bytes_.size() - pos_ < n) return fail("ends early");
    if (n) std::memcpy(out, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }

  template <class T>
  bool get(T& v) {
    static_assert(kPlain<T>);
    if (!take(&v, sizeof v)) return false;
    if constexpr (kFloatStruct<T>) {
      if (!all_finite(&v, 1)) return fail("a number is not finite");
    } else if constexpr (std::is_same_v<T, double>) {
      if (!std::isfinite(v)) return fail("a number is not finite");
    }
    return true;
  }
  bool get(bool& v) {
    uint8_t x = 0;
    if (!get(x)) return false;
    if (x > 1) return fail("a flag is neither 0 nor 1");
    v = x == 1;
    return true;
  }
  // A count of elements that take at least `min_bytes` each in what is left: never more than could follow.
  bool count(uint64_t& n, size_t min_bytes) {
    if (!get(n)) return false;
    if (n > (bytes_.size() - pos_) / min_bytes)
      return fail("a count (" + std::to_string(n) + ") exceeds the bytes left");
    return true;
  }
  bool get(std::string& s) {
    uint64_t n = 0;
    if (!count(n, 1)) return false;
    s.assign(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return true;
  }
  template <class T>
  bool get(std::vector<T>& v) {
    uint64_t n = 0;
    if constexpr (kPlain<T>) {
      if (!count(n, sizeof(T))) return false;
      v.resize(n);
      if (!take(v.data(), n * sizeof(T))) return false;
      if constexpr (kFloatStruct<T>)
        if (!all_finite(v.data(), n)) return fail("a number is not finite");
      return true;
    } else {
      // Elements are decoded one by one, so the vector grows only as their bytes are actually there.
      if (!count(n, min_bytes(static_cast<const T*>(nullptr)))) return false;
      v.clear();
      v.reserve(n);
      for (uint64_t i = 0; i < n; ++i)
        if (!get(v.emplace_back())) return false;
      return true;
    }
  }

  // An index into a list: -1 (none) or at least 0; the upper bound is validate_scene's.
  bool get_index(int& v) {
    if (!get(v)) return false;
    if (v < -1) return fail("an index is negative (" + std::to_string(v) + ")");
    return true;
  }

  // The fewest bytes each element can take (its fixed fields plus 8 per string or array): bounds reserve().
  static constexpr size_t min_bytes(const RawJoint*) { return 8 + 4 + sizeof(Transform) + sizeof(Mat4) + 3; }
  static constexpr size_t min_bytes(const RawMorphTarget*) { return 5 * 8; }
  static constexpr size_t min_bytes(const RawMesh*) { return 8 * 12 + 4 * 4 + 1 + sizeof(InfluenceStats); }
  static constexpr size_t min_bytes(const RawTrack*) { return 4 + 6 * 8; }
  static constexpr size_t min_bytes(const RawMorphTrack*) { return 4 + 2 * 8; }
  static constexpr size_t min_bytes(const RawClip*) { return 8 + 4 + 8 + 2 * 8; }
  static constexpr size_t min_bytes(const Material*) { return 8 + sizeof(Vec4) + 3 * 4; }
  static constexpr size_t min_bytes(const Texture*) { return 4 * 8 + 1; }
  static constexpr size_t min_bytes(const std::string*) { return 8; }

  bool get(RawJoint& j) {
    return get(j.name) && get(j.parent) && get(j.rest) && get(j.inverse_bind) && get(j.has_file_bind) &&
           get(j.weighted) && get(j.is_mesh_node);
  }
  bool get(RawMorphTarget& t) {
    return get(t.name) && get(t.vertices) && get(t.position_deltas) && get(t.normal_deltas) &&
           get(t.tangent_deltas);
  }
  bool get(RawMesh& m) {
    InfluenceStats& s = m.influence_stats;
    return get(m.name) && get_index(m.node_joint) && get_index(m.material) && get(m.skinned) &&
           get(m.positions) && get(m.normals) && get(m.tangents) && get(m.uvs) && get(m.indices) &&
           get(m.base_vertex) && get(m.influences_per_vertex) && get(m.influence_joints) &&
           get(m.influence_weights) && get(m.joint_remap) && get(m.inverse_binds) && get(s.max_found) &&
           get(s.vertices_cut) && get(s.largest_dropped) && get(s.unweighted_vertices) &&
           get(m.morph_targets) && get(m.morph_default_weights);
  }
  bool get(RawTrack& t) {
    return get(t.joint) && get(t.translation_times) && get(t.translations) && get(t.rotation_times) &&
           get(t.rotations) && get(t.scale_times) && get(t.scales);
  }
  bool get(RawMorphTrack& t) { return get(t.mesh) && get(t.times) && get(t.weights); }
  bool get(RawClip& c) {
    return get(c.name) && get(c.duration) && get(c.ticks_per_second) && get(c.tracks) &&
           get(c.morph_tracks) && get(c.converted_step_channels) && c.converted_step_channels >= 0 &&
           get(c.converted_cubic_channels) && c.converted_cubic_channels >= 0;
  }
  bool get(Material& m) {
    return get(m.name) && get(m.base_color) && get_index(m.diffuse_texture) && get_index(m.normal_texture) &&
           get_index(m.specular_texture);
  }
  bool get(Texture& t) {
    return get(t.path) && get(t.resolved_path) && get(t.embedded) && get(t.data) && get(t.format_hint);
  }
  bool get(SpaceConversion& s) {
    if (!(get(s.source_up) && get(s.source_front) && get(s.unit_scale))) return false;
    if (!(s.unit_scale > 0)) return fail("the unit scale is not positive");
    return get(s.left_handed) && get(s.file_to_canonical) && get(s.note);
  }
  bool get(ImportedScene& s) {
    char magic[sizeof kMagic];
    if (!take(magic, sizeof magic)) return false;
    if (std::memcmp(magic, kMagic, sizeof magic) != 0) return fail("not a scene");
    return get(s.source_path) && get(s.format) && get(s.skeleton.joints) && get(s.meshes) && get(s.clips) &&
           get(s.materials) && get(s.textures) && get(s.space) && get(s.warnings) && get(s.source_files);
  }

 private:
  template <class T>
  static bool all_finite(const T* values, size_t n) {
    const auto* f = reinterpret_cast<const float*>(values);
    bool finite = true;
    for (size_t i = 0; i < n * (sizeof(T) / sizeof(float)); ++i) finite &= std::isfinite(f[i]);
    return finite;
  }

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  std::string error_;
};

// ------------------------------------------------------------------------------------------- comparing

class Comparer {
 public:
  std::string difference;

  template <class T>
  bool same_bits(const T& a, const T& b) {
    static_assert(std::is_trivially_copyable_v<T>);
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  }
  bool eq(const std::string& a, const std::string& b, const std::string& where) {
    return check(a == b, where);
  }
  bool eq(bool a, bool b, const std::string& where) { return check(a == b, where); }
  template <class T>
  requires kPlain<T>
  bool eq(const T& a, const T& b, const std::string& where) { return check(same_bits(a, b), where); }
  template <class T>
  bool eq(const std::vector<T>& a, const std::vector<T>& b, const std::string& where) {
    if (!check(a.size() == b.size(), where + ".size()")) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if constexpr (kPlain<T>) {  // no name built for the (many) equal values
        if (same_bits(a[i], b[i])) continue;
      }
      if (!eq(a[i], b[i], where + "[" + std::to_string(i) + "]")) return false;
    }
    return true;
  }

  bool eq(const RawJoint& a, const RawJoint& b, const std::string& w) {
    return eq(a.name, b.name, w + ".name") && eq(a.parent, b.parent, w + ".parent") &&
           eq(a.rest, b.rest, w + ".rest") && eq(a.inverse_bind, b.inverse_bind, w + ".inverse_bind") &&
           eq(a.has_file_bind, b.has_file_bind, w + ".has_file_bind") &&
           eq(a.weighted, b.weighted, w + ".weighted") &&
           eq(a.is_mesh_node, b.is_mesh_node, w + ".is_mesh_node");
  }
  bool eq(const RawMorphTarget& a, const RawMorphTarget& b, const std::string& w) {
    return eq(a.name, b.name, w + ".name") && eq(a.vertices, b.vertices, w + ".vertices") &&
           eq(a.position_deltas, b.position_deltas, w + ".position_deltas") &&
           eq(a.normal_deltas, b.normal_deltas, w + ".normal_deltas") &&
           eq(a.tangent_deltas, b.tangent_deltas, w + ".tangent_deltas");
  }
  bool eq(const RawMesh& a, const RawMesh& b, const std::string& w) {
    const InfluenceStats &s = a.influence_stats, &t = b.influence_stats;
    return eq(a.name, b.name, w + ".name") && eq(a.node_joint, b.node_joint, w + ".node_joint") &&
           eq(a.material, b.material, w + ".material") && eq(a.skinned, b.skinned, w + ".skinned") &&
           eq(a.positions, b.positions, w + ".positions") && eq(a.normals, b.normals, w + ".normals") &&
           eq(a.tangents, b.tangents, w + ".tangents") && eq(a.uvs, b.uvs, w + ".uvs") &&
           eq(a.indices, b.indices, w + ".indices") && eq(a.base_vertex, b.base_vertex, w + ".base_vertex") &&
           eq(a.influences_per_vertex, b.influences_per_vertex, w + ".influences_per_vertex") &&
           eq(a.influence_joints, b.influence_joints, w + ".influence_joints") &&
           eq(a.influence_weights, b.influence_weights, w + ".influence_weights") &&
           eq(a.joint_remap, b.joint_remap, w + ".joint_remap") &&
           eq(a.inverse_binds, b.inverse_binds, w + ".inverse_binds") &&
           eq(s.max_found, t.max_found, w + ".influence_stats.max_found") &&
           eq(s.vertices_cut, t.vertices_cut, w + ".influence_stats.vertices_cut") &&
           eq(s.largest_dropped, t.largest_dropped, w + ".influence_stats.largest_dropped") &&
           eq(s.unweighted_vertices, t.unweighted_vertices, w + ".influence_stats.unweighted_vertices") &&
           eq(a.morph_targets, b.morph_targets, w + ".morph_targets") &&
           eq(a.morph_default_weights, b.morph_default_weights, w + ".morph_default_weights");
  }
  bool eq(const RawTrack& a, const RawTrack& b, const std::string& w) {
    return eq(a.joint, b.joint, w + ".joint") &&
           eq(a.translation_times, b.translation_times, w + ".translation_times") &&
           eq(a.translations, b.translations, w + ".translations") &&
           eq(a.rotation_times, b.rotation_times, w + ".rotation_times") &&
           eq(a.rotations, b.rotations, w + ".rotations") &&
           eq(a.scale_times, b.scale_times, w + ".scale_times") && eq(a.scales, b.scales, w + ".scales");
  }
  bool eq(const RawMorphTrack& a, const RawMorphTrack& b, const std::string& w) {
    return eq(a.mesh, b.mesh, w + ".mesh") && eq(a.times, b.times, w + ".times") &&
           eq(a.weights, b.weights, w + ".weights");
  }
  bool eq(const RawClip& a, const RawClip& b, const std::string& w) {
    return eq(a.name, b.name, w + ".name") && eq(a.duration, b.duration, w + ".duration") &&
           eq(a.ticks_per_second, b.ticks_per_second, w + ".ticks_per_second") &&
           eq(a.tracks, b.tracks, w + ".tracks") && eq(a.morph_tracks, b.morph_tracks, w + ".morph_tracks") &&
           eq(a.converted_step_channels, b.converted_step_channels, w + ".converted_step_channels") &&
           eq(a.converted_cubic_channels, b.converted_cubic_channels, w + ".converted_cubic_channels");
  }
  bool eq(const Material& a, const Material& b, const std::string& w) {
    return eq(a.name, b.name, w + ".name") && eq(a.base_color, b.base_color, w + ".base_color") &&
           eq(a.diffuse_texture, b.diffuse_texture, w + ".diffuse_texture") &&
           eq(a.normal_texture, b.normal_texture, w + ".normal_texture") &&
           eq(a.specular_texture, b.specular_texture, w + ".specular_texture");
  }
  bool eq(const Texture& a, const Texture& b, const std::string& w) {
    return eq(a.path, b.path, w + ".path") && eq(a.resolved_path, b.resolved_path, w + ".resolved_path") &&
           eq(a.embedded, b.embedded, w + ".embedded") && eq(a.data, b.data, w + ".data") &&
           eq(a.format_hint, b.format_hint, w + ".format_hint");
  }
  bool eq(const SpaceConversion& a, const SpaceConversion& b, const std::string& w) {
    return eq(a.source_up, b.source_up, w + ".source_up") &&
           eq(a.source_front, b.source_front, w + ".source_front") &&
           eq(a.unit_scale, b.unit_scale, w + ".unit_scale") &&
           eq(a.left_handed, b.left_handed, w + ".left_handed") &&
           eq(a.file_to_canonical, b.file_to_canonical, w + ".file_to_canonical") &&
           eq(a.note, b.note, w + ".note");
  }

 private:
  bool check(bool same, const std::string& where) {
    if (!same && difference.empty()) difference = where;
    return same;
  }
};

}  // namespace

std::string encode_scene(const ImportedScene& scene) {
  Writer count(nullptr);
  count.put(scene);
  std::string bytes(count.size(), '\0');
  Writer write(bytes.data());
  write.put(scene);
  return bytes;
}

Result<ImportedScene> decode_scene(std::span<const uint8_t> bytes) {
  Reader reader(bytes);
  ImportedScene scene;
  if (!reader.get(scene)) return Result<ImportedScene>::failure(reader.error());
  if (!reader.at_end()) {
    reader.fail("bytes follow the scene");
    return Result<ImportedScene>::failure(reader.error());
  }
  if (std::string invalid = validate_scene(scene); !invalid.empty())
    return Result<ImportedScene>::failure(invalid);
  return scene;
}

std::string scene_difference(const ImportedScene& a, const ImportedScene& b) {
  Comparer c;
  c.eq(a.source_path, b.source_path, "source_path") && c.eq(a.format, b.format, "format") &&
      c.eq(a.skeleton.joints, b.skeleton.joints, "skeleton.joints") && c.eq(a.meshes, b.meshes, "meshes") &&
      c.eq(a.clips, b.clips, "clips") && c.eq(a.materials, b.materials, "materials") &&
      c.eq(a.textures, b.textures, "textures") && c.eq(a.space, b.space, "space") &&
      c.eq(a.warnings, b.warnings, "warnings") && c.eq(a.source_files, b.source_files, "source_files");
  return c.difference;
}

}  // namespace ossa::detail
