// glTF 2.0 export (ossa/serialize/gltf_export.h): runtime assets -> JSON + one binary buffer.
#include "ossa/serialize/gltf_export.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>

#include "../offline/gltf_key_reduction.h"
#include "../runtime/kernels/kernels.h"
#include "ossa/asset/root_motion.h"
#include "ossa/core/file_io.h"
#include "ossa/runtime/sample_job.h"

namespace ossa {
namespace {
using json = nlohmann::ordered_json;

// glTF's enums.
constexpr int kFloat = 5126, kUnsignedByte = 5121, kUnsignedShort = 5123, kUnsignedInt = 5125, kShort = 5122;
constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;

// The binary buffer and the accessors into it. Every accessor has its own buffer view, 4-byte aligned.
class BufferBuilder {
 public:
  std::vector<uint8_t> bytes;
  json views = json::array(), accessors = json::array();

  int add_view(const void* data, size_t size, int target = 0, int stride = 0) {
    while (bytes.size() % 4) bytes.push_back(0);
    json view = {{"buffer", 0}, {"byteOffset", bytes.size()}, {"byteLength", size}};
    if (stride) view["byteStride"] = stride;
    if (target) view["target"] = target;
    const auto* p = static_cast<const uint8_t*>(data);
    bytes.insert(bytes.end(), p, p + size);
    views.push_back(std::move(view));
    return static_cast<int>(views.size()) - 1;
  }
  // `components` floats per element; min/max written when `bounds` (POSITION and animation inputs need them).
  int add_floats(std::span<const float> values, int components, bool bounds, int target = 0) {
    const size_t count = values.size() / components;
    json accessor = {{"bufferView", add_view(values.data(), values.size_bytes(), target)},
                     {"componentType", kFloat},
                     {"count", count},
                     {"type", type_name(components)}};
    if (bounds) add_bounds(accessor, values, components);
    accessors.push_back(std::move(accessor));
    return static_cast<int>(accessors.size()) - 1;
  }
  // Unsigned integers of `component_type`, `components` per element.
  int add_uints(std::span<const uint32_t> values, int components, int component_type, int target) {
    std::vector<uint8_t> packed;
    const int size = component_type == kUnsignedByte ? 1 : component_type == kUnsignedShort ? 2 : 4;
    packed.resize(values.size() * size);
    for (size_t i = 0; i < values.size(); ++i) std::memcpy(&packed[i * size], &values[i], size);  // LE
    accessors.push_back({{"bufferView", add_view(packed.data(), packed.size(), target)},
                         {"componentType", component_type},
                         {"count", values.size() / components},
                         {"type", type_name(components)}});
    return static_cast<int>(accessors.size()) - 1;
  }
  // 16-bit integers (kShort or kUnsignedShort), `components` per element, normalized or not, with min/max
  // when `bounds`. Vertex attributes are 4-byte aligned element by element, so 3-component ones get a stride
  // of 8.
  int add_shorts(std::span<const int32_t> values, int components, int component_type, bool normalized,
                 bool bounds, int target = 0) {
    const size_t count = values.size() / components;
    const int element = 2 * components,
              stride = target == kArrayBuffer && element % 4 ? element + 2 : element;
    std::vector<uint8_t> packed(count * stride, 0);
    for (size_t i = 0; i < count; ++i)
      for (int c = 0; c < components; ++c) {
        const int32_t v = values[i * components + c];
        const uint16_t bits = static_cast<uint16_t>(v);  // two's complement for kShort
        std::memcpy(&packed[i * stride + 2 * c], &bits, 2);
      }
    json accessor = {
        {"bufferView", add_view(packed.data(), packed.size(), target, stride != element ? stride : 0)},
        {"componentType", component_type},
        {"count", count},
        {"type", type_name(components)}};
    if (normalized) accessor["normalized"] = true;
    if (bounds) {
      std::vector<int32_t> lo(components, INT32_MAX), hi(components, INT32_MIN);
      for (size_t i = 0; i < values.size(); ++i) {
        lo[i % components] = std::min(lo[i % components], values[i]);
        hi[i % components] = std::max(hi[i % components], values[i]);
      }
      accessor["min"] = lo;
      accessor["max"] = hi;
    }
    accessors.push_back(std::move(accessor));
    return static_cast<int>(accessors.size()) - 1;
  }

 private:
  static const char* type_name(int components) {
    static const char* names[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4", "", "", "",    "",
                                  "", "",       "",     "",     "",     "", "", "MAT4"};
    return names[components];
  }
  static void add_bounds(json& accessor, std::span<const float> values, int components) {
    std::vector<float> lo(components, INFINITY), hi(components, -INFINITY);
    for (size_t i = 0; i < values.size(); ++i) {
      const int c = static_cast<int>(i % components);
      lo[c] = std::min(lo[c], values[i]);
      hi[c] = std::max(hi[c], values[i]);
    }
    if (values.empty()) std::fill(lo.begin(), lo.end(), 0.0f), std::fill(hi.begin(), hi.end(), 0.0f);
    accessor["min"] = lo;
    accessor["max"] = hi;
  }
};

// Names unique the way Blender shows duplicates: the second "Head" is "Head.001".
class UniqueNames {
 public:
  std::string take(const std::string& name) {
    std::string out = name;
    for (int n = 1; !used_.insert(out).second; ++n) {
      char suffix[16];
      std::snprintf(suffix, sizeof suffix, ".%03d", n);
      out = name + suffix;
    }
    return out;
  }

 private:
  std::set<std::string> used_;
};

// Unit length, or `fallback` (counted) when the vector has none.
Vec3 unit_or(Vec3 v, Vec3 fallback, int& replaced) {
  const float len = length(v);
  if (!(len > 1e-12f) || !std::isfinite(len)) return ++replaced, fallback;
  return {v.x / len, v.y / len, v.z / len};
}

std::string image_mime_type(const std::vector<uint8_t>& data) {
  static const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (data.size() >= 8 && std::memcmp(data.data(), png, 8) == 0) return "image/png";
  if (data.size() >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff) return "image/jpeg";
  return "";
}

// A URI reference for a file name beside the .gltf (RFC 3986: unreserved characters kept, others escaped).
std::string uri_for(const std::string& name) {
  std::string out;
  for (unsigned char c : name) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

// A rotation of unit length, as glTF requires (its validator allows 5e-4): one within float rounding of it
// is kept bit for bit, so that the export animates exactly what the source did.
void unit_quaternion(float* q) {
  const double length_squared =
      double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3];
  if (std::fabs(length_squared - 1) <= 4e-6) return;
  const Quat n = normalize(Quat{q[0], q[1], q[2], q[3]});
  q[0] = n.x, q[1] = n.y, q[2] = n.z, q[3] = n.w;
}

bool same_pose_value(const float* a, const float* b, int components) {
  return std::memcmp(a, b, components * sizeof(float)) == 0;
}

// A STEP channel as Ossa's importer made it linear (gltf_interpolation.h: each key k > 0 preceded, one float
// earlier, by a key holding key k - 1's value; a last key may repeat the value before it) is turned back into
// STEP's own keys; any other channel is left as it is (false). `width` floats a key.
bool as_step_keys(std::vector<float>& times, std::vector<float>& values, size_t width) {
  const size_t n = times.size();
  auto same = [&](size_t a, size_t b) {
    return std::memcmp(&values[a * width], &values[b * width], width * sizeof(float)) == 0;
  };
  std::vector<size_t> kept = {0};
  size_t i = 1;
  for (; i + 1 < n; i += 2) {
    if (times[i + 1] != std::nextafter(times[i], INFINITY) || !same(i, i - 1)) return false;
    kept.push_back(i + 1);
  }
  if ((i < n && !same(i, i - 1)) || kept.size() < 2) return false;
  std::vector<float> t, v;
  for (size_t k : kept) {
    t.push_back(times[k]);
    v.insert(v.end(), values.begin() + k * width, values.begin() + (k + 1) * width);
  }
  times.swap(t), values.swap(v);
  return true;
}

// glTF wants a channel's inputs at or after 0 and strictly increasing. A clip's keys may lie before its start
// (FBX takes whose curves begin before the take's LocalStart: 3ds Max exports with take offsets) or after its
// end. What Ossa plays there is the clip's value at the boundary, so the keys outside [0, duration] are
// replaced by one key at each boundary holding that value (`at_start`, `at_end`: `components` floats); the
// motion inside is unchanged. A rotation's boundary value is put on the hemisphere of the key next to it.
void keys_within_clip(std::vector<float>& times, std::vector<float>& values, int components, bool rotation,
                      float duration, const float* at_start, const float* at_end) {
  if (times.empty() || (times.front() >= 0 && times.back() <= duration)) return;
  const bool before = times.front()<0, after = times.back()> duration;
  std::vector<float> kept_times, kept_values;
  auto add = [&](float t, const float* v) {
    kept_times.push_back(t);
    kept_values.insert(kept_values.end(), v, v + components);
  };
  auto add_aligned = [&](float t, const float* v, const float* neighbour) {
    std::vector<float> value(v, v + components);
    if (components == 4 && rotation && neighbour &&
        value[0] * neighbour[0] + value[1] * neighbour[1] + value[2] * neighbour[2] +
                value[3] * neighbour[3] <
            0)
      for (float& x : value) x = -x;
    add(t, value.data());
  };
  size_t first = 0, last = times.size();  // the keys kept: [first, last)
  while (first < last && (before ? times[first] <= 0 : times[first] < 0)) ++first;
  while (last > first && (after ? times[last - 1] >= duration : times[last - 1] > duration)) --last;
  if (before) add_aligned(0, at_start, first < last ? &values[first * components] : nullptr);
  for (size_t k = first; k < last; ++k) add(times[k], &values[k * components]);
  if (after && !(kept_times.size() && kept_times.back() >= duration))
    add_aligned(duration, at_end,
                kept_values.empty() ? nullptr : &kept_values[kept_values.size() - components]);
  times.swap(kept_times), values.swap(kept_values);
}

// One clip's joint poses at its frames (fixed-rate or quantized), frame-major.
struct ClipFrames {
  std::vector<float> times;
  std::vector<JointPose> poses;
};

ClipFrames clip_frames(const Clip& clip) {
  ClipFrames out;
  const int frames = clip.frame_count(), joints = clip.joint_count();
  out.poses.resize(static_cast<size_t>(frames) * joints);
  for (int f = 0; f < frames; ++f) {
    out.times.push_back(f + 1 == frames ? clip.duration()
                                        : static_cast<float>(f / double(clip.frame_rate())));
    if (clip.layout() == Clip::Layout::kQuantized)
      clip.decode_frame(f, &out.poses[static_cast<size_t>(f) * joints]);
  }
  if (clip.layout() == Clip::Layout::kFixedRate)
    std::copy(clip.frames().begin(), clip.frames().end(), out.poses.begin());
  // Times strictly increasing (a last frame closer than a float step to the one before it merges into it).
  for (size_t f = 1; f < out.times.size(); ++f)
    if (out.times[f] <= out.times[f - 1]) out.times[f] = std::nextafter(out.times[f - 1], INFINITY);
  return out;
}

Mat4 pose_matrix(const JointPose& p) {
  Transform t;
  t.translation = {p.translation[0], p.translation[1], p.translation[2]};
  t.rotation = {p.rotation[0], p.rotation[1], p.rotation[2], p.rotation[3]};
  t.scale = {p.scale[0], p.scale[1], p.scale[2]};
  return t.to_matrix();
}

// Puts a root-motion track's travel back into the frames of its in-place clip: the root joint's model
// transform becomes RM(t) * RM(0)^-1 * model, the inverse of extract_root_motion's correction.
void put_root_motion_back(ClipFrames& frames, const Skeleton& skeleton, const RootMotionTrack& track) {
  const int joints = skeleton.joint_count(), root = track.joint;
  if (root < 0 || root >= joints || track.frames.empty()) return;
  const auto parents = skeleton.parents();
  const RootDelta first = track.frames[0];
  for (size_t f = 0; f < frames.times.size(); ++f) {
    JointPose* pose = &frames.poses[f * joints];
    Mat4 parent_model;  // the root's parent chain at this frame
    std::vector<int> chain;
    for (int j = parents[root]; j >= 0; j = parents[j]) chain.push_back(j);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
      parent_model = parent_model * pose_matrix(pose[*it]);
    const RootDelta travel = track.at(frames.times[f]).then(first.inverse());
    const Mat4 move = translation_matrix({travel.x, 0, travel.z}) *
                      rotation_matrix(quat_from_axis_angle({0, 1, 0}, travel.yaw));
    const Mat4 model = move * parent_model * pose_matrix(pose[root]);
    const Transform local = decompose(inverse(parent_model) * model);
    JointPose& p = pose[root];
    const float* prev = f > 0 ? frames.poses[(f - 1) * joints + root].rotation : nullptr;
    p.translation[0] = local.translation.x, p.translation[1] = local.translation.y;
    p.translation[2] = local.translation.z;
    p.rotation[0] = local.rotation.x, p.rotation[1] = local.rotation.y, p.rotation[2] = local.rotation.z;
    p.rotation[3] = local.rotation.w;
    p.scale[0] = local.scale.x, p.scale[1] = local.scale.y, p.scale[2] = local.scale.z;
    if (prev && prev[0] * p.rotation[0] + prev[1] * p.rotation[1] + prev[2] * p.rotation[2] +
                        prev[3] * p.rotation[3] <
                    0)
      for (float& q : p.rotation) q = -q;
  }
}

class Exporter {
 public:
  Exporter(const LoadedCharacter& character, const GltfExportOptions& options, const std::string& stem)
      : c_(character), options_(options), stem_(stem) {}

  Result<GltfExport> run() {
    using R = Result<GltfExport>;
    if (c_.left_handed)
      return R::failure(
          c_.source_path +
          ": a left-handed .ossa cannot be exported (glTF is right-handed); export the model file "
          "or a .ossa converted without --left-handed");
    const Skeleton& skeleton = c_.asset.skeleton;
    if (skeleton.joint_count() == 0) return R::failure(c_.source_path + ": no skeleton to export");
    doc_["asset"] = {{"version", "2.0"}, {"generator", options_.generator}};
    write_nodes();
    write_materials();
    write_meshes();
    write_animations();
    return finish();
  }

 private:
  // Joints are nodes 0..J-1 (the node index is the joint index); mesh nodes follow.
  void write_nodes() {
    const Skeleton& skeleton = c_.asset.skeleton;
    const int joints = skeleton.joint_count();
    json nodes = json::array(), roots = json::array();
    std::vector<std::vector<int>> children(joints);
    for (int j = 0; j < joints; ++j)
      if (skeleton.parents()[j] >= 0) children[skeleton.parents()[j]].push_back(j);
    for (int j = 0; j < joints; ++j) {
      const JointPose& rest = skeleton.rest_pose()[j];
      json node = {{"name", names_.take(skeleton.name(j))}};
      if (!children[j].empty()) node["children"] = children[j];
      float r[4] = {rest.rotation[0], rest.rotation[1], rest.rotation[2], rest.rotation[3]};
      unit_quaternion(r);
      const Quat q{r[0], r[1], r[2], r[3]};
      if (rest.translation[0] || rest.translation[1] || rest.translation[2])
        node["translation"] = {rest.translation[0], rest.translation[1], rest.translation[2]};
      if (q.x || q.y || q.z || q.w != 1) node["rotation"] = {q.x, q.y, q.z, q.w};
      if (rest.scale[0] != 1 || rest.scale[1] != 1 || rest.scale[2] != 1)
        node["scale"] = {rest.scale[0], rest.scale[1], rest.scale[2]};
      nodes.push_back(std::move(node));
      if (skeleton.parents()[j] < 0) roots.push_back(j);
    }
    doc_["nodes"] = std::move(nodes);
    scene_roots_ = std::move(roots);
  }

  void write_materials() {
    json images = json::array(), textures = json::array();
    std::vector<int> texture_index(c_.textures.size(), -1);
    for (size_t t = 0; t < c_.textures.size(); ++t) {
      const Texture& tex = c_.textures[t];
      const std::string mime = image_mime_type(tex.data);
      if (mime.empty()) {
        dropped_.push_back("texture '" + tex.path + "': " +
                           (tex.data.empty()
                                ? std::string("its image could not be read")
                                : "not PNG or JPEG (" + tex.format_hint + "), which glTF cannot hold"));
        continue;
      }
      json image;
      if (options_.binary) {
        image = {{"bufferView", buffer_.add_view(tex.data.data(), tex.data.size())}, {"mimeType", mime}};
      } else {
        std::string file = stem_ + "_" + std::to_string(t) + (mime == "image/png" ? ".png" : ".jpg");
        image = {{"uri", uri_for(file)}};
        side_files_.push_back({file, tex.data});
      }
      images.push_back(std::move(image));
      textures.push_back({{"source", images.size() - 1}});
      texture_index[t] = static_cast<int>(textures.size()) - 1;
    }
    if (!images.empty()) doc_["images"] = std::move(images), doc_["textures"] = std::move(textures);
    texture_index_ = std::move(texture_index);
    json materials = json::array();
    for (const Material& m : c_.materials) materials.push_back(material_json(m, true));
    if (!materials.empty()) doc_["materials"] = std::move(materials);
    for (const Material& m : c_.materials)
      if (m.specular_texture >= 0) {
        dropped_.push_back("material '" + m.name + "': its specular map (glTF's core has none)");
      }
  }

  json material_json(const Material& m, bool with_textures) {
    json out = {{"name", m.name}};
    float color[4] = {m.base_color.x, m.base_color.y, m.base_color.z, m.base_color.w};
    bool clamped = false;
    for (float& v : color) {
      const float kept = std::isfinite(v) ? std::clamp(v, 0.0f, 1.0f) : 1.0f;
      clamped |= kept != v;
      v = kept;
    }
    if (clamped && with_textures)
      dropped_.push_back("material '" + m.name + "': base colour outside 0-1, clamped");
    json pbr = {{"baseColorFactor", color}, {"metallicFactor", 0.0}};
    auto texture = [&](int index) {
      return with_textures && index >= 0 && index < static_cast<int>(texture_index_.size())
                 ? texture_index_[index]
                 : -1;
    };
    if (texture(m.diffuse_texture) >= 0) pbr["baseColorTexture"] = {{"index", texture(m.diffuse_texture)}};
    out["pbrMetallicRoughness"] = std::move(pbr);
    if (texture(m.normal_texture) >= 0) out["normalTexture"] = {{"index", texture(m.normal_texture)}};
    return out;
  }

  // A mesh without UVs cannot use a textured material: it gets the material without its textures.
  int material_for(const SkinnedMesh& mesh) {
    const int m = mesh.material();
    if (m < 0 || m >= static_cast<int>(c_.materials.size())) return -1;
    const json& full = doc_["materials"][m];
    const bool textured =
        full["pbrMetallicRoughness"].contains("baseColorTexture") || full.contains("normalTexture");
    if (!mesh.uvs().empty() || !textured) return m;
    if (auto it = untextured_.find(m); it != untextured_.end()) return it->second;
    json copy = material_json(c_.materials[m], false);
    copy["name"] = c_.materials[m].name + " (no UVs)";
    doc_["materials"].push_back(std::move(copy));
    dropped_.push_back("mesh '" + mesh.name() + "': has no UVs, so its material's textures are left off it");
    return untextured_[m] = static_cast<int>(doc_["materials"].size()) - 1;
  }

  void write_meshes() {
    json meshes = json::array(), skins = json::array();
    std::map<std::string, int> skin_of_palette;  // meshes with the same palette share a skin
    for (const SkinnedMesh& mesh : c_.asset.meshes) {
      const int vertices = mesh.vertex_count();
      if (vertices == 0 || mesh.indices().empty()) {  // glTF refuses empty accessors and buffer views
        dropped_.push_back("mesh '" + mesh.name() +
                           "': no triangles to draw (a curve or points in the source file?), left out");
        mesh_nodes_.push_back(-1);
        continue;
      }
      json attributes;
      Mat4 dequantize;  // stored positions -> model space (compressed: 16-bit over the mesh's box)
      Vec3 position_step{1, 1, 1};
      if (options_.compress)
        attributes["POSITION"] = quantized_positions(mesh, dequantize, position_step);
      else
        attributes["POSITION"] = buffer_.add_floats(mesh.positions(), 3, true, kArrayBuffer);
      int replaced_normals = 0, replaced_tangents = 0;
      std::vector<Vec3> normals;
      if (!mesh.normals().empty()) {
        std::vector<float> out(mesh.normals().size());
        for (int v = 0; v < vertices; ++v) {
          const float* n = &mesh.normals()[v * 3];
          const Vec3 u = unit_or({n[0], n[1], n[2]}, {0, 1, 0}, replaced_normals);
          normals.push_back(u);
          out[v * 3] = u.x, out[v * 3 + 1] = u.y, out[v * 3 + 2] = u.z;
        }
        attributes["NORMAL"] = unit_vectors(out, 3);
      }
      if (!mesh.tangents().empty() && !normals.empty()) {
        std::vector<float> out(mesh.tangents().size());
        for (int v = 0; v < vertices; ++v) {
          const float* t = &mesh.tangents()[v * 4];
          const Vec3 n = normals[v];  // a fallback tangent perpendicular to the normal
          const Vec3 across = std::fabs(n.x) < 0.9f ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
          const Vec3 u = unit_or({t[0], t[1], t[2]}, normalize(cross(across, n)), replaced_tangents);
          out[v * 4] = u.x, out[v * 4 + 1] = u.y, out[v * 4 + 2] = u.z,
                  out[v * 4 + 3] = t[3] < 0 ? -1.0f : 1.0f;
        }
        attributes["TANGENT"] = unit_vectors(out, 4);
      } else if (!mesh.tangents().empty()) {
        dropped_.push_back("mesh '" + mesh.name() + "': tangents (glTF needs normals with them)");
      }
      if (replaced_normals)
        dropped_.push_back("mesh '" + mesh.name() + "': " + std::to_string(replaced_normals) +
                           " zero-length normals, written as +Y");
      if (replaced_tangents)
        dropped_.push_back("mesh '" + mesh.name() + "': " + std::to_string(replaced_tangents) +
                           " zero-length tangents, replaced by one across the normal");
      if (!mesh.uvs().empty()) {
        std::vector<float> uv(mesh.uvs().begin(), mesh.uvs().end());
        if (c_.flip_textures)
          for (size_t i = 1; i < uv.size(); i += 2) uv[i] = 1 - uv[i];
        const bool unit_range = std::all_of(uv.begin(), uv.end(), [](float x) { return x >= 0 && x <= 1; });
        if (options_.compress && unit_range) {
          std::vector<int32_t> q(uv.size());
          for (size_t i = 0; i < uv.size(); ++i) q[i] = static_cast<int32_t>(std::lround(uv[i] * 65535.0));
          attributes["TEXCOORD_0"] = buffer_.add_shorts(q, 2, kUnsignedShort, true, false, kArrayBuffer);
        } else {
          attributes["TEXCOORD_0"] = buffer_.add_floats(uv, 2, false, kArrayBuffer);
        }
      }
      Skinning skin = skinning_of(mesh);
      whole_skeleton(skin);
      if (options_.compress)  // skinning ignores node transforms: the dequantization goes into the binds
        for (Mat4& m : skin.inverse_binds) m = m * dequantize;
      write_influences(skin, vertices, attributes);

      json primitive = {{"attributes", std::move(attributes)}};
      std::vector<uint32_t> indices(mesh.indices().begin(), mesh.indices().end());
      primitive["indices"] = buffer_.add_uints(indices, 1, vertices < 65535 ? kUnsignedShort : kUnsignedInt,
                                               kElementArrayBuffer);
      if (const int material = material_for(mesh); material >= 0) primitive["material"] = material;
      json out = {{"name", mesh.name()}};
      write_morph_targets(mesh, position_step, primitive, out);
      out["primitives"] = json::array({std::move(primitive)});
      meshes.push_back(std::move(out));

      // The skin: the palette's joint nodes, with their inverse binds.
      std::string key(skin.palette.size() * sizeof(int) + skin.inverse_binds.size() * sizeof(Mat4), '\0');
      std::memcpy(key.data(), skin.palette.data(), skin.palette.size() * sizeof(int));
      std::memcpy(key.data() + skin.palette.size() * sizeof(int), skin.inverse_binds.data(),
                  skin.inverse_binds.size() * sizeof(Mat4));
      auto [it, added] = skin_of_palette.emplace(std::move(key), static_cast<int>(skins.size()));
      if (added) {
        std::vector<float> binds;
        for (const Mat4& m : skin.inverse_binds) binds.insert(binds.end(), m.m, m.m + 16);
        skins.push_back(
            {{"inverseBindMatrices", buffer_.add_floats(binds, 16, false)}, {"joints", skin.palette}});
      }
      json node = {{"name", names_.take(mesh.name())}, {"mesh", meshes.size() - 1}, {"skin", it->second}};
      mesh_nodes_.push_back(static_cast<int>(doc_["nodes"].size()));
      scene_roots_.push_back(doc_["nodes"].size());
      doc_["nodes"].push_back(std::move(node));
    }
    if (!meshes.empty()) doc_["meshes"] = std::move(meshes), doc_["skins"] = std::move(skins);
  }

  // KHR_mesh_quantization (GltfExportOptions::compress): positions as 16-bit integers over the mesh's box,
  // each within half a step (1/131070 of the box's side) of its float; `dequantize` maps them back.
  int quantized_positions(const SkinnedMesh& mesh, Mat4& dequantize, Vec3& step) {
    const auto p = mesh.positions();
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < p.size(); ++i)
      lo[i % 3] = std::min(lo[i % 3], p[i]), hi[i % 3] = std::max(hi[i % 3], p[i]);
    if (p.empty()) std::fill(lo, lo + 3, 0.0f), std::fill(hi, hi + 3, 0.0f);
    float steps[3];
    for (int c = 0; c < 3; ++c) steps[c] = hi[c] > lo[c] ? (hi[c] - lo[c]) / 65535.0f : 1.0f;
    std::vector<int32_t> q(p.size());
    for (size_t i = 0; i < p.size(); ++i)
      q[i] =
          std::clamp<int32_t>(static_cast<int32_t>(std::lround((p[i] - lo[i % 3]) / steps[i % 3])), 0, 65535);
    step = {steps[0], steps[1], steps[2]};
    dequantize = translation_matrix({lo[0], lo[1], lo[2]}) * scale_matrix(step);
    return buffer_.add_shorts(q, 3, kUnsignedShort, false, true, kArrayBuffer);
  }

  // Unit normals (3 components) or tangents (4: w the sign): floats, or compressed as normalized 16-bit.
  int unit_vectors(const std::vector<float>& values, int components) {
    if (!options_.compress) return buffer_.add_floats(values, components, false, kArrayBuffer);
    std::vector<int32_t> q(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      q[i] = static_cast<int32_t>(std::lround(std::clamp(values[i], -1.0f, 1.0f) * 32767.0f));
    return buffer_.add_shorts(q, components, kShort, true, false, kArrayBuffer);
  }

  // A mesh's weights (`width` a vertex) as normalized 16-bit integers that sum to 65535 a vertex (largest
  // remainders rounded up), as the validator checks them.
  static std::vector<int32_t> unorm16_weights(const std::vector<float>& weights, int width) {
    std::vector<int32_t> out(weights.size());
    std::vector<std::pair<double, int>> remainders(width);
    for (size_t v = 0; v < weights.size() / width; ++v) {
      int32_t* q = &out[v * width];
      int32_t total = 0;
      for (int i = 0; i < width; ++i) {
        const double exact = weights[v * width + i] * 65535.0;
        q[i] = static_cast<int32_t>(std::floor(exact));
        total += q[i];
        remainders[i] = {exact - q[i], i};
      }
      std::sort(remainders.begin(), remainders.end(),
                [](const auto& a, const auto& b) { return a.first > b.first; });
      for (int i = 0; total < 65535 && i < width; ++i, ++total) ++q[remainders[i].second];
    }
    return out;
  }

  // One mesh's skinning: palette joints (skeleton joints), their inverse binds, and `per_vertex` influences a
  // vertex (palette slots and weights).
  struct Skinning {
    std::vector<int> palette;
    std::vector<Mat4> inverse_binds;
    int per_vertex = 0;
    std::span<const uint16_t> slots;
    std::span<const float> weights;
    std::vector<uint16_t> listed_slots;  // the slots when whole_skeleton() lists the joints anew
  };

  // Every joint of the skeleton in the skin, so that a tool that makes bones of a skin's joints (Blender) has
  // the whole skeleton. When the mesh's inverse binds are the skeleton's, the skin is the skeleton's (one for
  // all such meshes) and the slots become skeleton joints; else the other joints follow the mesh's palette.
  void whole_skeleton(Skinning& skin) {
    const Skeleton& skeleton = c_.asset.skeleton;
    const int joints = skeleton.joint_count();
    // Only the trees the mesh is skinned to: glTF wants a skin's joints under one root, and a skeleton may
    // have several (a Maya rig beside its control objects at the scene's root).
    std::vector<int> root_of(joints);
    for (int j = 0; j < joints; ++j)
      root_of[j] = skeleton.parents()[j] < 0 ? j : root_of[skeleton.parents()[j]];
    std::vector<bool> tree(joints, false);
    for (int j : skin.palette) tree[root_of[j]] = true;
    bool shared = true;
    for (size_t k = 0; k < skin.palette.size() && shared; ++k)
      shared =
          std::memcmp(&skin.inverse_binds[k], &skeleton.inverse_binds()[skin.palette[k]], sizeof(Mat4)) == 0;
    if (shared) {  // the list is the trees' joints in skeleton order; the slots index it
      skin.listed_slots.resize(skin.slots.size());  // first as skeleton joints
      for (size_t i = 0; i < skin.slots.size(); ++i)
        skin.listed_slots[i] = skin.slots[i] < skin.palette.size() ? skin.palette[skin.slots[i]] : 0;
      skin.palette.clear();
      skin.inverse_binds.clear();
      std::vector<uint16_t> position(joints, 0);
      for (int j = 0; j < joints; ++j)
        if (tree[root_of[j]]) {
          position[j] = static_cast<uint16_t>(skin.palette.size());
          skin.palette.push_back(j), skin.inverse_binds.push_back(skeleton.inverse_binds()[j]);
        }
      for (uint16_t& slot : skin.listed_slots) slot = position[slot];
      skin.slots = skin.listed_slots;
      return;
    }
    std::vector<bool> listed(joints, false);
    for (int j : skin.palette) listed[j] = true;
    for (int j = 0; j < joints; ++j)
      if (!listed[j] && tree[root_of[j]])
        skin.palette.push_back(j), skin.inverse_binds.push_back(skeleton.inverse_binds()[j]);
  }

  // The source mesh's influences when they are more than the runtime mesh keeps (GltfExportOptions), else the
  // runtime mesh's.
  Skinning skinning_of(const SkinnedMesh& mesh) {
    Skinning out;
    for (const RawMesh& raw : options_.source_meshes) {
      if (raw.name != mesh.name() || raw.positions.size() != static_cast<size_t>(mesh.vertex_count()) ||
          raw.influences_per_vertex <= mesh.influences() || !options_.source_skeleton ||
          raw.inverse_binds.size() != raw.joint_remap.size())
        continue;
      for (int joint : raw.joint_remap) {
        const int j = joint >= 0 && joint < static_cast<int>(options_.source_skeleton->joints.size())
                          ? c_.asset.skeleton.find_joint(options_.source_skeleton->joints[joint].name)
                          : -1;
        if (j < 0) {
          out.palette.clear();
          break;
        }
        out.palette.push_back(j);
      }
      if (out.palette.size() != raw.joint_remap.size()) continue;
      out.inverse_binds = raw.inverse_binds;
      out.per_vertex = raw.influences_per_vertex;
      out.slots = raw.influence_joints;
      out.weights = raw.influence_weights;
      return out;
    }
    out.palette.assign(mesh.joint_remap().begin(), mesh.joint_remap().end());
    out.inverse_binds.assign(mesh.inverse_binds().begin(), mesh.inverse_binds().end());
    out.per_vertex = mesh.influences();
    out.slots = mesh.joint_indices();
    out.weights = mesh.joint_weights();
    return out;
  }

  // JOINTS_0 / WEIGHTS_0 (and _1 for more than 4 influences): 4 slots each, the strongest first, unused ones
  // weight 0 and joint 0; weights summing to 1 in float.
  void write_influences(const Skinning& skin, int vertices, json& attributes) {
    const int k = skin.per_vertex, sets = k > 4 ? 2 : 1, width = 4 * sets;
    std::vector<uint32_t> joints(static_cast<size_t>(vertices) * width, 0);
    std::vector<float> weights(static_cast<size_t>(vertices) * width, 0.0f);
    for (int v = 0; v < vertices; ++v) {
      // A slot listed twice is merged (glTF forbids it, and importers keep one of the two), then the
      // strongest first.
      std::pair<float, uint32_t> slots[8];
      int used = 0;
      double sum = 0;
      for (int i = 0; i < std::min(k, 8); ++i) {
        const float w = skin.weights[v * k + i];
        const uint32_t slot = skin.slots[v * k + i];
        if (!(w > 0)) continue;
        sum += w;
        auto same = std::find_if(slots, slots + used, [&](const auto& s) { return s.second == slot; });
        if (same != slots + used)
          same->first += w;
        else
          slots[used++] = {w, slot};
      }
      for (int i = 1; i < used; ++i)  // strongest first (insertion sort: at most 8)
        for (int j = i; j > 0 && slots[j].first > slots[j - 1].first; --j) std::swap(slots[j], slots[j - 1]);
      float partial = 0;
      for (int i = 0; i < used; ++i) {
        // The last weight is what the others leave, so that the float sum is 1 to its last bit.
        weights[v * width + i] = i + 1 < used ? static_cast<float>(slots[i].first / sum) : 1.0f - partial;
        partial += weights[v * width + i];
        joints[v * width + i] = slots[i].second;
      }
      if (used == 0) weights[v * width] = 1.0f;  // unweighted: the first slot (the mesh's node)
    }
    std::vector<int32_t> quantized;
    if (options_.compress) {
      quantized = unorm16_weights(weights, width);
      for (size_t i = 0; i < quantized.size(); ++i)  // a weight rounded to 0 lets go of its joint
        if (quantized[i] == 0) joints[i] = 0;
    }
    const int type = skin.palette.size() <= 256 ? kUnsignedByte : kUnsignedShort;
    for (int set = 0; set < sets; ++set) {
      std::vector<uint32_t> j(static_cast<size_t>(vertices) * 4);
      std::vector<float> w(j.size());
      std::vector<int32_t> q(options_.compress ? j.size() : 0);
      for (size_t v = 0; v < static_cast<size_t>(vertices); ++v)
        for (int i = 0; i < 4; ++i) {
          const size_t from = v * width + set * 4 + i;
          j[v * 4 + i] = joints[from], w[v * 4 + i] = weights[from];
          if (options_.compress) q[v * 4 + i] = quantized[from];
        }
      const std::string n = std::to_string(set);
      attributes["JOINTS_" + n] = buffer_.add_uints(j, 4, type, kArrayBuffer);
      attributes["WEIGHTS_" + n] = options_.compress
                                       ? buffer_.add_shorts(q, 4, kUnsignedShort, true, false, kArrayBuffer)
                                       : buffer_.add_floats(w, 4, false, kArrayBuffer);
    }
  }

  // Position deltas are in the stored positions' units (`step`: 1, or the quantization step per axis).
  void write_morph_targets(const SkinnedMesh& mesh, Vec3 step, json& primitive, json& out) {
    const MorphTargets& morph = mesh.morph_targets();
    if (morph.empty()) return;
    json targets = json::array();
    const auto first = morph.target_first();
    for (int t = 0; t < morph.count(); ++t) {
      const std::span<const uint32_t> vertices = morph.vertices().subspan(first[t], first[t + 1] - first[t]);
      auto deltas = [&](std::span<const float> all) {
        return all.subspan(first[t] * 3, vertices.size() * 3);
      };
      // Dense: sparse accessors would be smaller, but assimp 5.2 (and so Ossa's own importer, and every tool
      // built on it) cannot read them.
      auto dense = [&](std::span<const float> sparse) {
        std::vector<float> all(static_cast<size_t>(mesh.vertex_count()) * 3, 0.0f);
        for (size_t i = 0; i < vertices.size(); ++i)
          std::copy_n(&sparse[i * 3], 3, &all[static_cast<size_t>(vertices[i]) * 3]);
        return all;
      };
      json target;
      std::vector<float> moved = dense(deltas(morph.position_deltas()));
      for (size_t i = 0; i < moved.size(); i += 3)
        moved[i] /= step.x, moved[i + 1] /= step.y, moved[i + 2] /= step.z;
      target["POSITION"] = buffer_.add_floats(moved, 3, true, kArrayBuffer);
      if (!morph.normal_deltas().empty() && primitive["attributes"].contains("NORMAL"))
        target["NORMAL"] = buffer_.add_floats(dense(deltas(morph.normal_deltas())), 3, false, kArrayBuffer);
      if (!morph.tangent_deltas().empty() && primitive["attributes"].contains("TANGENT"))
        target["TANGENT"] = buffer_.add_floats(dense(deltas(morph.tangent_deltas())), 3, false, kArrayBuffer);
      targets.push_back(std::move(target));
    }
    primitive["targets"] = std::move(targets);
    out["weights"] = std::vector<float>(morph.default_weights().begin(), morph.default_weights().end());
    out["extras"] = {{"targetNames", std::vector<std::string>(morph.names().begin(), morph.names().end())}};
  }

  // Animation inputs shared between channels with the same key times.
  int times_accessor(std::span<const float> times) {
    std::vector<float> key(times.begin(), times.end());
    if (auto it = time_accessors_.find(key); it != time_accessors_.end()) return it->second;
    return time_accessors_[key] = buffer_.add_floats(times, 1, true);
  }

  // One channel: node `node`'s `path` over `times` with `components` floats per key.
  void add_channel(json& animation, int node, const char* path, std::span<const float> times,
                   std::span<const float> values, bool step = false) {
    const std::string_view target = path;  // weights are scalars, however many targets a key holds
    const int components = target == "rotation" ? 4 : target == "weights" ? 1 : 3;
    add_sampler_channel(animation, node, path, times, buffer_.add_floats(values, components, false), step);
  }
  void add_sampler_channel(json& animation, int node, const char* path, std::span<const float> times,
                           int output, bool step = false) {
    json& samplers = animation["samplers"];
    samplers.push_back(
        {{"input", times_accessor(times)}, {"interpolation", step ? "STEP" : "LINEAR"}, {"output", output}});
    animation["channels"].push_back(
        {{"sampler", samplers.size() - 1}, {"target", {{"node", node}, {"path", path}}}});
  }

  // A joint channel from per-key values (3 or 4 each): one key when they never change, none when that key is
  // the rest pose's.
  std::optional<detail::JointChannel> joint_channel(int joint, int kind, std::span<const float> times,
                                                    std::vector<float> values) {
    const int components = kind == 1 ? 4 : 3;
    const size_t keys = times.size();
    if (kind == 1)
      for (size_t k = 0; k < keys; ++k) unit_quaternion(&values[k * 4]);
    bool constant = true;
    for (size_t k = 1; k < keys && constant; ++k)
      constant = same_pose_value(&values[0], &values[k * components], components);
    if (!constant) {
      detail::JointChannel ch{joint, kind, {times.begin(), times.end()}, std::move(values), false};
      ch.step = as_step_keys(ch.times, ch.values, components);
      return ch;
    }
    const JointPose& rest = c_.asset.skeleton.rest_pose()[joint];
    const float* r = kind == 0 ? rest.translation : kind == 1 ? rest.rotation : rest.scale;
    float rest_value[4] = {r[0], r[1], r[2], r[3]};
    if (kind == 1) unit_quaternion(rest_value);  // as the node's rotation is written
    if (same_pose_value(&values[0], rest_value, components)) return std::nullopt;
    values.resize(components);
    return detail::JointChannel{
        joint, kind, {0.0f}, std::move(values), false};  // (inputs start at or after 0)
  }

  // A clip's joint channels into the animation (compressed: reduced, rotations as normalized 16-bit).
  void add_joint_channels(json& animation, std::vector<detail::JointChannel> channels) {
    bool short_rotations = false;
    for (const detail::JointChannel& ch : channels) stats_.joint_keys_full += ch.times.size();
    if (options_.compress) {
      detail::KeyReduction reduced =
          detail::reduce_keys(channels, c_.asset.skeleton, options_.tolerance, options_.shell_distance, true);
      channels = std::move(reduced.channels);
      short_rotations = reduced.short_rotations;
      stats_.worst_error = std::max(stats_.worst_error, reduced.worst_error);
    }
    for (const detail::JointChannel& ch : channels) {
      stats_.joint_keys += ch.times.size();
      if (ch.kind == 1 && short_rotations) {
        std::vector<int32_t> q(ch.values.size());
        for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<int32_t>(std::lround(ch.values[i] * 32767));
        add_sampler_channel(animation, ch.joint, "rotation", ch.times,
                            buffer_.add_shorts(q, 4, kShort, true, false), ch.step);
      } else {
        add_channel(animation, ch.joint,
                    ch.kind == 0   ? "translation"
                    : ch.kind == 1 ? "rotation"
                                   : "scale",
                    ch.times, ch.values, ch.step);
      }
    }
  }

  void write_animations() {
    json animations = json::array();
    const int joints = c_.asset.skeleton.joint_count();
    for (size_t c = 0; c < c_.asset.clips.size(); ++c) {
      const Clip& clip = c_.asset.clips[c];
      json animation = {{"name", clip.name()}, {"channels", json::array()}, {"samplers", json::array()}};
      const RootMotionTrack* root_motion =
          c < c_.root_motion.size() && c_.root_motion[c].joint >= 0 ? &c_.root_motion[c] : nullptr;
      std::vector<detail::JointChannel> channels;
      auto keep = [&](std::optional<detail::JointChannel> ch) {
        if (ch) channels.push_back(std::move(*ch));
      };
      if (clip.layout() == Clip::Layout::kKeyed) {  // (root motion is only taken out of frames)
        const auto first = clip.channel_first();
        // The clip at its boundaries, as the runtime plays it (for keys outside [0, duration]).
        std::vector<JointPose> at_start(clip.joint_count()), at_end(clip.joint_count());
        SamplingCache cache;
        SampleJob{&clip, 0, &cache, at_start}.run();
        SampleJob{&clip, clip.duration(), &cache, at_end}.run();
        for (int j = 0; j < std::min(joints, clip.joint_count()); ++j)
          for (int kind = 0; kind < 3; ++kind) {
            const uint32_t begin = first[j * 3 + kind], end = first[j * 3 + kind + 1];
            if (begin == end) continue;
            std::vector<float> times(clip.key_times().begin() + begin, clip.key_times().begin() + end);
            std::vector<float> values;
            const int components = kind == 1 ? 4 : 3;
            for (uint32_t k = begin; k < end; ++k)
              values.insert(values.end(), &clip.key_values()[k * 4], &clip.key_values()[k * 4] + components);
            auto field = [kind](const JointPose& p) {
              return kind == 0 ? p.translation : kind == 1 ? p.rotation : p.scale;
            };
            keys_within_clip(times, values, components, kind == 1, clip.duration(), field(at_start[j]),
                             field(at_end[j]));
            for (size_t k = 1; k < times.size(); ++k)  // strictly increasing, as glTF requires
              if (times[k] <= times[k - 1]) times[k] = std::nextafter(times[k - 1], INFINITY);
            keep(joint_channel(j, kind, times, std::move(values)));
          }
      } else {
        ClipFrames frames = clip_frames(clip);
        if (root_motion) put_root_motion_back(frames, c_.asset.skeleton, *root_motion);
        for (int j = 0; j < std::min(joints, clip.joint_count()); ++j)
          for (int kind = 0; kind < 3; ++kind) {
            const int components = kind == 1 ? 4 : 3;
            std::vector<float> values;
            values.reserve(frames.times.size() * components);
            for (size_t f = 0; f < frames.times.size(); ++f) {
              const JointPose& p = frames.poses[f * clip.joint_count() + j];
              const float* v = kind == 0 ? p.translation : kind == 1 ? p.rotation : p.scale;
              values.insert(values.end(), v, v + components);
            }
            keep(joint_channel(j, kind, frames.times, std::move(values)));
          }
      }
      add_joint_channels(animation, std::move(channels));
      write_morph_weights(clip, animation);
      cover_duration(clip, animation);
      json extras = {{"duration", clip.duration()}};
      if (root_motion) extras["rootMotion"] = {{"joint", doc_["nodes"][root_motion->joint]["name"]}};
      if (c < c_.notifies.clips.size()) {
        json list = notify_list(c_.notifies.clips[c]);
        if (!list.empty()) extras["notifies"] = std::move(list);
      }
      animation["extras"] = {{"ossa", std::move(extras)}};
      animations.push_back(std::move(animation));
    }
    if (!animations.empty()) doc_["animations"] = std::move(animations);
  }

  // glTF clients take an animation's length from its last key: when the keys end before the clip does (or
  // there are none, which glTF forbids), a joint's rest scale is keyed at 0 and at the clip's end.
  void cover_duration(const Clip& clip, json& animation) {
    float last = -1;
    std::set<int> scaled;
    for (const json& channel : animation["channels"]) {
      const json& sampler = animation["samplers"][channel["sampler"].get<int>()];
      last = std::max(last, buffer_.accessors[sampler["input"].get<int>()]["max"][0].get<float>());
      if (channel["target"]["path"] == "scale") scaled.insert(channel["target"]["node"].get<int>());
    }
    if (last >= clip.duration() && !animation["channels"].empty()) return;
    for (int j = 0; j < c_.asset.skeleton.joint_count(); ++j) {
      if (scaled.count(j)) continue;
      const float* s = c_.asset.skeleton.rest_pose()[j].scale;
      const float times[2] = {0, clip.duration()};
      const float values[6] = {s[0], s[1], s[2], s[0], s[1], s[2]};
      const size_t keys = clip.duration() > 0 ? 2 : 1;
      add_channel(animation, j, "scale", std::span<const float>(times, keys),
                  std::span<const float>(values, keys * 3));
      return;
    }
  }

  json notify_list(const ClipNotifies& notifies) {
    std::vector<const Notify*> all;
    for (const Notify& n : notifies.instants) all.push_back(&n);
    for (const Notify& n : notifies.states) all.push_back(&n);
    std::stable_sort(all.begin(), all.end(),
                     [](const Notify* a, const Notify* b) { return a->time < b->time; });
    json list = json::array();
    for (const Notify* n : all) {
      json entry = {{"name", c_.notifies.names[n->name_id]}, {"time", n->time}};
      if (n->duration > 0) entry["duration"] = n->duration;
      if (!n->payload.empty()) entry["payload"] = json::parse(n->payload, nullptr, false);
      list.push_back(std::move(entry));
    }
    return list;
  }

  // Each mesh's weights from the last track for it (the one the Animator applies,
  // MorphWeightTracks::sample_mesh).
  void write_morph_weights(const Clip& clip, json& animation) {
    const MorphWeightTracks& tracks = clip.morph_weights();
    const int mesh_count = static_cast<int>(c_.asset.meshes.size());
    for (int m = 0; m < mesh_count; ++m) {
      const int targets = c_.asset.meshes[m].morph_targets().count();
      int chosen = -1;
      for (size_t t = 0; t < tracks.tracks().size(); ++t)
        if (tracks.tracks()[t].mesh == m && tracks.tracks()[t].targets == targets && targets > 0)
          chosen = static_cast<int>(t);
      if (chosen < 0) continue;
      const MorphWeightTracks::Track& track = tracks.tracks()[chosen];
      if (mesh_nodes_[m] < 0) continue;  // a mesh left out (nothing to draw)
      std::vector<float> times(tracks.key_times().begin() + track.key_first,
                               tracks.key_times().begin() + track.key_first + track.key_count);
      std::vector<float> weights;
      for (uint32_t k = 0; k < track.key_count; ++k)
        for (int t = 0; t < targets; ++t) weights.push_back(tracks.key_weight(chosen, k, t));
      std::vector<float> at_start(targets), at_end(targets);  // as the runtime samples them there
      tracks.sample_mesh(m, 0, at_start);
      tracks.sample_mesh(m, clip.duration(), at_end);
      keys_within_clip(times, weights, targets, false, clip.duration(), at_start.data(), at_end.data());
      for (size_t k = 1; k < times.size(); ++k)
        if (times[k] <= times[k - 1]) times[k] = std::nextafter(times[k - 1], INFINITY);
      const bool step = as_step_keys(times, weights, static_cast<size_t>(targets));
      add_channel(animation, mesh_nodes_[m], "weights", times, weights, step);
    }
  }

  Result<GltfExport> finish() {
    GltfExport out = std::move(stats_);
    if (options_.compress && doc_.contains("meshes")) {
      doc_["extensionsUsed"] = {"KHR_mesh_quantization"};
      doc_["extensionsRequired"] = {"KHR_mesh_quantization"};
    }
    doc_["scene"] = 0;
    doc_["scenes"] = json::array({{{"nodes", scene_roots_}}});
    if (!buffer_.accessors.empty()) doc_["accessors"] = std::move(buffer_.accessors);
    if (!buffer_.views.empty()) doc_["bufferViews"] = std::move(buffer_.views);
    while (buffer_.bytes.size() % 4) buffer_.bytes.push_back(0);
    if (!buffer_.bytes.empty()) {
      json buffer = {{"byteLength", buffer_.bytes.size()}};
      if (!options_.binary) buffer["uri"] = uri_for(stem_ + ".bin");
      doc_["buffers"] = json::array({std::move(buffer)});
    }
    std::string text;
    try {
      text = doc_.dump(options_.binary ? -1 : 1);
    } catch (const json::exception&) {  // names that are not UTF-8
      text = doc_.dump(options_.binary ? -1 : 1, ' ', false, json::error_handler_t::replace);
      dropped_.push_back("names that were not valid UTF-8: their bad bytes are written as U+FFFD");
    }
    if (options_.binary) {
      while (text.size() % 4) text += ' ';
      const uint32_t total = static_cast<uint32_t>(12 + 8 + text.size() +
                                                   (buffer_.bytes.empty() ? 0 : 8 + buffer_.bytes.size()));
      std::vector<uint8_t> glb;
      auto u32 = [&](uint32_t v) {
        glb.insert(glb.end(), reinterpret_cast<uint8_t*>(&v), reinterpret_cast<uint8_t*>(&v) + 4);
      };
      u32(0x46546C67), u32(2), u32(total);
      u32(static_cast<uint32_t>(text.size())), u32(0x4E4F534A);
      glb.insert(glb.end(), text.begin(), text.end());
      if (!buffer_.bytes.empty()) {
        u32(static_cast<uint32_t>(buffer_.bytes.size())), u32(0x004E4942);
        glb.insert(glb.end(), buffer_.bytes.begin(), buffer_.bytes.end());
      }
      out.files.push_back({"", std::move(glb)});
    } else {
      text += '\n';
      out.files.push_back({"", std::vector<uint8_t>(text.begin(), text.end())});
      if (!buffer_.bytes.empty()) out.files.push_back({stem_ + ".bin", std::move(buffer_.bytes)});
      for (GltfOutputFile& f : side_files_) out.files.push_back(std::move(f));
    }
    out.dropped = std::move(dropped_);
    return out;
  }

  const LoadedCharacter& c_;
  const GltfExportOptions& options_;
  std::string stem_;
  json doc_ = json::object();
  BufferBuilder buffer_;
  UniqueNames names_;
  json scene_roots_ = json::array();
  std::vector<int> mesh_nodes_;
  std::vector<int> texture_index_;
  std::map<int, int> untextured_;
  std::map<std::vector<float>, int> time_accessors_;
  std::vector<GltfOutputFile> side_files_;
  std::vector<std::string> dropped_;
  GltfExport stats_;  // key counts and error (its files and dropped lines are filled by finish())
};

}  // namespace

Result<GltfExport> encode_gltf(const LoadedCharacter& character, const GltfExportOptions& options,
                               const std::string& file_stem) {
  detail::PortableKernelsScope portable;  // the same bytes on every CPU (kernels.h)
  return Exporter(character, options, file_stem).run();
}

Result<GltfExport> write_gltf(const LoadedCharacter& character, const std::string& path,
                              const GltfExportOptions& options) {
  using R = Result<GltfExport>;
  namespace fs = std::filesystem;
  const fs::path main = path_from_utf8(path);
  std::string ext = utf8_from_path(main.extension());
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (ext != ".glb" && ext != ".gltf") return R::failure(path + ": a glTF export is named .glb or .gltf");
  GltfExportOptions chosen = options;
  chosen.binary = ext == ".glb";
  auto encoded = encode_gltf(character, chosen, utf8_from_path(main.stem()));
  if (!encoded) return encoded;
  std::vector<std::string> paths;
  for (const GltfOutputFile& f : encoded->files)
    paths.push_back(f.name.empty() ? path : utf8_from_path(main.parent_path() / path_from_utf8(f.name)));
  for (const std::string& p : paths)
    for (const std::string& input : character.source_files)
      if (same_file(p, input)) return R::failure(p + ": not written (it is an input of this export)");
  // Side files first, the main file last, so that a reader never finds a .gltf whose buffer is missing.
  for (size_t i = encoded->files.size(); i-- > 0;) {
    auto written = write_file_atomically(paths[i], encoded->files[i].bytes);
    if (!written) {
      std::error_code ec;
      for (size_t k = i + 1; k < encoded->files.size(); ++k) fs::remove(path_from_utf8(paths[k]), ec);
      return R::failure(written.error());
    }
  }
  return encoded;
}

}  // namespace ossa
