// ossa.Character and what it holds (skeleton, clips, meshes, notifies), and its evaluation into arrays.
#include <cmath>

#include "bindings.h"
#include "ossa/core/printable.h"
#include "ossa/runtime/pose_evaluator.h"

namespace ossa::python {
namespace {

struct SkeletonView {
  CharacterRef character;
  const Skeleton& get() const { return character->asset().skeleton; }
};
struct ClipView {
  CharacterRef character;
  int index;
  const Clip& get() const { return character->asset().clips[index]; }
};
struct MeshView {
  CharacterRef character;
  int index;
  const SkinnedMesh& get() const { return character->asset().meshes[index]; }
};

const char* layout_name(Clip::Layout layout) {
  switch (layout) {
    case Clip::Layout::kFixedRate:
      return "fixed_rate";
    case Clip::Layout::kKeyed:
      return "keyed";
    case Clip::Layout::kQuantized:
      return "quantized";
  }
  return "?";
}

// Times as a 1-D list (a scalar is one time; `scalar` says so, for the result's shape), all finite.
std::vector<float> times_of(const py::object& times, bool& scalar) {
  py::array_t<double, py::array::c_style | py::array::forcecast> a =
      py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(times);
  if (!a) throw py::type_error("times: a number or a sequence of numbers");
  if (a.ndim() > 1) throw py::value_error("times: a number or a 1-D sequence");
  scalar = a.ndim() == 0;
  std::vector<float> out(a.data(), a.data() + a.size());
  for (float t : out)
    if (!std::isfinite(t)) throw py::value_error("times: every time must be finite");
  return out;
}

// The evaluated quantity per time, into a (T, J, ...) float32 array (without T for a scalar time).
enum class Quantity { kLocal, kWorld, kPosition };

py::array_t<float> evaluate(const Character& c, const py::object& clip_arg, const py::object& times_arg,
                            Quantity quantity) {
  const int clip = clip_index(c.asset(), clip_arg, true);
  bool scalar = false;
  const std::vector<float> times = times_of(times_arg, scalar);
  const int joints = c.asset().skeleton.joint_count();
  const int per_joint = quantity == Quantity::kLocal ? 10 : quantity == Quantity::kWorld ? 16 : 3;
  std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(times.size()), joints};
  if (quantity == Quantity::kLocal) shape.push_back(10);
  if (quantity == Quantity::kWorld) shape.insert(shape.end(), {4, 4});
  if (quantity == Quantity::kPosition) shape.push_back(3);
  if (scalar) shape.erase(shape.begin());
  py::array_t<float> out(shape);
  float* dst = out.mutable_data();
  {
    py::gil_scoped_release unlocked;
    PoseEvaluator eval(c.asset());
    for (float t : times) {
      eval.evaluate(clip, t);
      for (int j = 0; j < joints; ++j, dst += per_joint) {
        if (quantity == Quantity::kLocal) {
          const JointPose& p = eval.locals()[j];
          const float v[10] = {p.translation[0], p.translation[1], p.translation[2], p.rotation[0],
                               p.rotation[1],    p.rotation[2],    p.rotation[3],    p.scale[0],
                               p.scale[1],       p.scale[2]};
          std::copy(v, v + 10, dst);
        } else if (quantity == Quantity::kWorld) {
          const Mat4& m = eval.model()[j];  // column-major: numpy's [row, column] is m[column * 4 + row]
          for (int r = 0; r < 4; ++r)
            for (int col = 0; col < 4; ++col) dst[r * 4 + col] = m.m[col * 4 + r];
        } else {
          const Vec3 p = eval.model()[j].translation();
          dst[0] = p.x, dst[1] = p.y, dst[2] = p.z;
        }
      }
    }
  }
  return out;
}

// Meshes `meshes`' skinned vertices at each time, one (T, V, 3) array each ((V, 3) for a scalar time): the
// pose evaluated once per time for all of them.
std::vector<py::array_t<float>> skin_meshes(const Character& c, int clip, const std::vector<float>& times,
                                            bool scalar, const std::vector<int>& meshes) {
  std::vector<py::array_t<float>> out;
  std::vector<float*> dst;
  for (int mesh : meshes) {
    std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(times.size()),
                                   c.asset().meshes[mesh].vertex_count(), 3};
    if (scalar) shape.erase(shape.begin());
    out.emplace_back(shape);
    dst.push_back(out.back().mutable_data());
  }
  py::gil_scoped_release unlocked;
  PoseEvaluator eval(c.asset());
  for (float t : times) {
    eval.evaluate(clip, t);
    for (size_t i = 0; i < meshes.size(); ++i) {
      const size_t floats = static_cast<size_t>(c.asset().meshes[meshes[i]].vertex_count()) * 3;
      eval.skin(meshes[i], {dst[i], floats});
      dst[i] += floats;
    }
  }
  return out;
}

int mesh_index(const CharacterAsset& asset, const py::object& mesh) {
  const int count = static_cast<int>(asset.meshes.size());
  if (py::isinstance<py::int_>(mesh)) {
    const long i = mesh.cast<long>();
    if (i < 0 || i >= count)
      throw py::index_error("mesh " + std::to_string(i) + ": the character has " + std::to_string(count) +
                            " meshes");
    return static_cast<int>(i);
  }
  const std::string name = name_of(mesh);
  for (int i = 0; i < count; ++i)
    if (asset.meshes[i].name() == name) return i;
  throw py::key_error("no mesh '" + printable(name) + "'");
}

// Mesh names as dictionary keys: a name met again gets "#2", "#3", ... (files may repeat names).
std::vector<std::string> mesh_keys(const CharacterAsset& asset) {
  std::vector<std::string> keys;
  for (const SkinnedMesh& mesh : asset.meshes) {
    std::string key = mesh.name();
    for (int n = 2; std::find(keys.begin(), keys.end(), key) != keys.end(); ++n)
      key = mesh.name() + "#" + std::to_string(n);
    keys.push_back(key);
  }
  return keys;
}

py::dict notify_dict(const LoadedCharacter& c, const Notify& n) {
  py::dict d;
  d["name"] = text(c.notifies.names[n.name_id]);
  d["time"] = n.time;
  d["duration"] = n.duration;
  d["payload"] = text(n.payload);
  return d;
}

}  // namespace

int clip_index(const CharacterAsset& asset, const py::object& clip, bool allow_none) {
  const int count = static_cast<int>(asset.clips.size());
  if (clip.is_none()) {
    if (allow_none) return -1;
    throw py::type_error("a clip: its index or name");
  }
  if (py::isinstance<py::int_>(clip)) {
    const long i = clip.cast<long>();
    if (i < 0 || i >= count)
      throw py::index_error("clip " + std::to_string(i) + ": the character has " + std::to_string(count) +
                            " clips");
    return static_cast<int>(i);
  }
  if (py::isinstance<ClipView>(clip)) return clip.cast<const ClipView&>().index;
  if (!py::isinstance<py::str>(clip)) throw py::type_error("a clip: its index or name");
  const std::string name = name_of(clip);
  const int i = asset.find_clip(name);
  if (i < 0)
    throw py::key_error("no clip '" + printable(name) + "' (or more than one ends with '|" + printable(name) +
                        "')");
  return i;
}

void bind_character(py::module_& m) {
  py::class_<SkeletonView>(m, "Skeleton", "The character's joints, parents first (parents[j] < j).")
      .def_property_readonly("joint_count", [](const SkeletonView& s) { return s.get().joint_count(); })
      .def("__len__", [](const SkeletonView& s) { return s.get().joint_count(); })
      .def_property_readonly(
          "names",
          [](const SkeletonView& s) {
            std::vector<py::str> out;
            for (int j = 0; j < s.get().joint_count(); ++j) out.push_back(text(s.get().name(j)));
            return out;
          },
          "Joint names, in joint order.")
      .def_property_readonly(
          "parents",
          [](py::object self) {
            const Skeleton& s = self.cast<const SkeletonView&>().get();
            return view<int>({s.joint_count()}, s.parents().data(), self);
          },
          "(J,) int32, read-only: each joint's parent, -1 for roots.")
      .def_property_readonly(
          "rest_local",
          [](const SkeletonView& s) {
            const auto rest = s.get().rest_pose();
            py::array_t<float> out({static_cast<py::ssize_t>(rest.size()), py::ssize_t{10}});
            float* d = out.mutable_data();
            for (const JointPose& p : rest)
              for (float v :
                   {p.translation[0], p.translation[1], p.translation[2], p.rotation[0], p.rotation[1],
                    p.rotation[2], p.rotation[3], p.scale[0], p.scale[1], p.scale[2]})
                *d++ = v;
            return out;
          },
          "(J, 10) float32: rest local transforms (translation xyz, rotation xyzw, scale xyz).")
      .def_property_readonly(
          "inverse_binds",
          [](const SkeletonView& s) {
            const auto binds = s.get().inverse_binds();
            py::array_t<float> out({static_cast<py::ssize_t>(binds.size()), py::ssize_t{4}, py::ssize_t{4}});
            float* d = out.mutable_data();
            for (const Mat4& b : binds)
              for (int r = 0; r < 4; ++r)
                for (int col = 0; col < 4; ++col) *d++ = b.m[col * 4 + r];
            return out;
          },
          "(J, 4, 4) float32: model space to each joint's bind space (row-major: [:3, 3] is translation).")
      .def(
          "find",
          [](const SkeletonView& s, const py::str& name) { return s.get().find_joint(name_of(name)); },
          py::arg("name"), "The joint called `name`, or -1.");

  py::class_<ClipView>(m, "Clip", "One animation clip of a character.")
      .def_property_readonly("index", [](const ClipView& c) { return c.index; })
      .def_property_readonly("name", [](const ClipView& c) { return text(c.get().name()); })
      .def_property_readonly("duration", [](const ClipView& c) { return c.get().duration(); })
      .def_property_readonly(
          "layout", [](const ClipView& c) { return layout_name(c.get().layout()); },
          "'fixed_rate', 'keyed' or 'quantized'.")
      .def_property_readonly(
          "frame_rate", [](const ClipView& c) { return c.get().frame_rate(); },
          "Frames per second (fixed-rate and quantized clips; 0 for keyed).")
      .def_property_readonly("frame_count", [](const ClipView& c) { return c.get().frame_count(); })
      .def_property_readonly("memory_bytes", [](const ClipView& c) { return c.get().memory_bytes(); })
      .def(
          "frame_times",
          [](const ClipView& c, double fps) {
            const Clip& clip = c.get();
            if (fps <= 0) fps = clip.frame_rate() > 0 ? clip.frame_rate() : 30.0;
            if (!std::isfinite(fps) || fps > Clip::kMaxFrameRate) throw py::value_error("fps out of range");
            const int64_t n = Clip::frame_count_for(clip.duration(), static_cast<float>(fps));
            py::array_t<double> out(n);
            double* d = out.mutable_data();
            for (int64_t f = 0; f < n; ++f) d[f] = std::min(f / fps, static_cast<double>(clip.duration()));
            if (n > 0) d[n - 1] = clip.duration();
            return out;
          },
          py::arg("fps") = 0.0,
          "Times of the clip's frames at `fps` (0: the clip's own rate, 30 for keyed clips): one every 1/fps "
          "seconds, the last at the clip's end.")
      .def("__repr__", [](const ClipView& c) {
        return "<ossa.Clip " + std::to_string(c.index) + " '" + printable(c.get().name()) + "' " +
               std::to_string(c.get().duration()) + " s>";
      });

  py::class_<MeshView>(m, "Mesh", "A skinned mesh: vertices as stored (bind pose), read-only views.")
      .def_property_readonly("name", [](const MeshView& v) { return text(v.get().name()); })
      .def_property_readonly("vertex_count", [](const MeshView& v) { return v.get().vertex_count(); })
      .def_property_readonly(
          "positions",
          [](py::object self) {
            const SkinnedMesh& mesh = self.cast<const MeshView&>().get();
            return view<float>({mesh.vertex_count(), 3}, mesh.positions().data(), self);
          },
          "(V, 3) float32, read-only.")
      .def_property_readonly(
          "normals",
          [](py::object self) {
            const SkinnedMesh& mesh = self.cast<const MeshView&>().get();
            const py::ssize_t n = static_cast<py::ssize_t>(mesh.normals().size() / 3);
            return view<float>({n, 3}, mesh.normals().data(), self);
          },
          "(V, 3) float32, read-only; (0, 3) when the file had none.")
      .def_property_readonly(
          "triangles",
          [](py::object self) {
            const SkinnedMesh& mesh = self.cast<const MeshView&>().get();
            const py::ssize_t n = static_cast<py::ssize_t>(mesh.indices().size() / 3);
            return view<uint32_t>({n, 3}, mesh.indices().data(), self);
          },
          "(F, 3) uint32, read-only: vertex indices.")
      .def_property_readonly(
          "joints",
          [](py::object self) {
            const SkinnedMesh& mesh = self.cast<const MeshView&>().get();
            const auto remap = mesh.joint_remap();
            const auto slots = mesh.joint_indices();
            py::array_t<int32_t> out({mesh.vertex_count(), mesh.influences()});
            int32_t* d = out.mutable_data();
            for (uint16_t slot : slots) *d++ = remap.empty() ? slot : remap[slot];
            return out;
          },
          "(V, K) int32: the skeleton joints influencing each vertex, strongest first.")
      .def_property_readonly(
          "weights",
          [](py::object self) {
            const SkinnedMesh& mesh = self.cast<const MeshView&>().get();
            return view<float>({mesh.vertex_count(), mesh.influences()}, mesh.joint_weights().data(), self);
          },
          "(V, K) float32, read-only: their weights (each row sums to 1).")
      .def_property_readonly("morph_targets",
                             [](const MeshView& v) { return texts(v.get().morph_targets().names()); });

  py::class_<Character, CharacterRef>(m, "Character",
                                      "A loaded character: skeleton, clips, meshes, notifies. Immutable; any "
                                      "number of threads may evaluate it at once.")
      .def_property_readonly("source_path", [](const Character& c) { return text(c.loaded->source_path); })
      .def_property_readonly("skeleton", [](const CharacterRef& c) { return SkeletonView{c}; })
      .def_property_readonly("clips",
                             [](const CharacterRef& c) {
                               std::vector<ClipView> out;
                               for (size_t i = 0; i < c->asset().clips.size(); ++i)
                                 out.push_back({c, static_cast<int>(i)});
                               return out;
                             })
      .def_property_readonly("meshes",
                             [](const CharacterRef& c) {
                               std::vector<MeshView> out;
                               for (size_t i = 0; i < c->asset().meshes.size(); ++i)
                                 out.push_back({c, static_cast<int>(i)});
                               return out;
                             })
      .def(
          "clip",
          [](const CharacterRef& c, const py::object& clip) {
            return ClipView{c, clip_index(c->asset(), clip, false)};
          },
          py::arg("clip"), "A clip by index or name ('Walk' finds 'Armature|Walk').")
      .def_property_readonly(
          "notifies",
          [](const Character& c) {
            py::dict out;
            const NotifySet& set = c.loaded->notifies;
            for (size_t i = 0; i < set.clips.size() && i < c.asset().clips.size(); ++i) {
              py::list list;
              for (const Notify& n : set.clips[i].instants) list.append(notify_dict(*c.loaded, n));
              for (const Notify& n : set.clips[i].states) list.append(notify_dict(*c.loaded, n));
              if (py::len(list)) out[text(c.asset().clips[i].name())] = list;
            }
            return out;
          },
          "{clip name: [{'name', 'time', 'duration', 'payload'}]}: the notifies loaded with it (instants, "
          "then states).")
      .def(
          "local_poses",
          [](const Character& c, const py::object& clip, const py::object& times) {
            return evaluate(c, clip, times, Quantity::kLocal);
          },
          py::arg("clip"), py::arg("times"),
          "(T, J, 10) float32: local transforms (translation xyz, rotation xyzw, scale xyz) of `clip` "
          "(index, "
          "name, or None for the rest pose) at `times` (seconds; a number gives (J, 10)).")
      .def(
          "joint_world",
          [](const Character& c, const py::object& clip, const py::object& times) {
            return evaluate(c, clip, times, Quantity::kWorld);
          },
          py::arg("clip"), py::arg("times"),
          "(T, J, 4, 4) float32: each joint's model-space matrix (row-major: [:3, 3] is its origin).")
      .def(
          "joint_positions",
          [](const Character& c, const py::object& clip, const py::object& times) {
            return evaluate(c, clip, times, Quantity::kPosition);
          },
          py::arg("clip"), py::arg("times"), "(T, J, 3) float32: each joint's origin in model space.")
      .def(
          "skin",
          [](const Character& c, const py::object& clip_arg, const py::object& times_arg,
             const py::object& mesh) -> py::object {
            const int clip = clip_index(c.asset(), clip_arg, true);
            bool scalar = false;
            const std::vector<float> times = times_of(times_arg, scalar);
            if (!mesh.is_none()) return skin_meshes(c, clip, times, scalar, {mesh_index(c.asset(), mesh)})[0];
            std::vector<int> all(c.asset().meshes.size());
            for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
            std::vector<py::array_t<float>> arrays = skin_meshes(c, clip, times, scalar, all);
            const std::vector<std::string> keys = mesh_keys(c.asset());
            py::dict out;
            for (size_t i = 0; i < keys.size(); ++i) out[text(keys[i])] = std::move(arrays[i]);
            return out;
          },
          py::arg("clip"), py::arg("times"), py::arg("mesh") = py::none(),
          "{mesh name: (T, V, 3) float32}: vertices morphed by the clip's weights and skinned (one mesh's "
          "array when `mesh` names one; a repeated name is keyed 'name#2').")
      .def(
          "find_clip",
          [](const Character& c, const py::str& name) { return c.asset().find_clip(name_of(name)); },
          py::arg("name"), "The clip's index, or -1.")
      .def("__repr__", [](const Character& c) {
        return "<ossa.Character '" + printable(c.loaded->source_path) +
               "': " + std::to_string(c.asset().skeleton.joint_count()) + " joints, " +
               std::to_string(c.asset().clips.size()) + " clips, " + std::to_string(c.asset().meshes.size()) +
               " meshes>";
      });
}

}  // namespace ossa::python
