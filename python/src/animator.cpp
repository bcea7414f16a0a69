// ossa.Animator and ossa.GraphInstance: the runtime a game drives every frame, from Python.
#include <cmath>

#include "bindings.h"
#include "ossa/core/printable.h"

namespace ossa::python {
namespace {

py::array_t<float> locals_array(std::span<const JointPose> locals) {
  py::array_t<float> out({static_cast<py::ssize_t>(locals.size()), py::ssize_t{10}});
  float* d = out.mutable_data();
  for (const JointPose& p : locals)
    for (float v : {p.translation[0], p.translation[1], p.translation[2], p.rotation[0], p.rotation[1],
                    p.rotation[2], p.rotation[3], p.scale[0], p.scale[1], p.scale[2]})
      *d++ = v;
  return out;
}

// Matrices as (N, 4, 4) row-major (copies: the Animator overwrites its own every update).
py::array_t<float> matrices_array(std::span<const Mat4> matrices) {
  py::array_t<float> out({static_cast<py::ssize_t>(matrices.size()), py::ssize_t{4}, py::ssize_t{4}});
  float* d = out.mutable_data();
  for (const Mat4& m : matrices)
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) *d++ = m.m[c * 4 + r];
  return out;
}

py::array_t<float> positions_array(std::span<const Mat4> matrices) {
  py::array_t<float> out({static_cast<py::ssize_t>(matrices.size()), py::ssize_t{3}});
  float* d = out.mutable_data();
  for (const Mat4& m : matrices) {
    const Vec3 p = m.translation();
    *d++ = p.x, *d++ = p.y, *d++ = p.z;
  }
  return out;
}

LoopMode loop_mode(const std::string& name) {
  if (name == "repeat") return LoopMode::kRepeat;
  if (name == "once") return LoopMode::kOnce;
  if (name == "ping_pong") return LoopMode::kPingPong;
  throw py::value_error("mode: 'repeat', 'once' or 'ping_pong'");
}

void check_finite(float v, const char* what) {
  if (!std::isfinite(v)) throw py::value_error(std::string(what) + " must be finite");
}

py::dict event_dict(const AnimEvent& e) {
  py::dict d;
  d["type"] = to_string(e.type);
  d["name"] = e.name ? py::object(text(*e.name)) : py::object(py::none());
  d["clip"] = e.clip;
  d["time"] = e.time;
  d["loop"] = e.loop;
  d["payload"] = e.payload ? py::object(text(*e.payload)) : py::object(py::none());
  return d;
}

struct PyAnimator {
  CharacterRef character;
  Animator animator;
  std::array<std::shared_ptr<std::vector<float>>, Animator::kMaxLayers>
      masks;  // the Animator keeps masks by reference

  int clip(const py::object& c) const { return clip_index(character->asset(), c, false); }
};

struct PyGraphInstance {
  CharacterRef character;
  std::shared_ptr<const AnimGraph> graph;
  AnimGraphInstance instance;

  int parameter(const std::string& name) const {
    const int p = instance.parameter(name);
    if (p < 0) throw py::key_error("the graph has no parameter '" + printable(name) + "'");
    return p;
  }
  void check_layer(int layer) const {
    if (layer < 0 || layer >= static_cast<int>(graph->layers().size()))
      throw py::index_error("layer " + std::to_string(layer) + ": the graph has " +
                            std::to_string(graph->layers().size()));
  }
};

}  // namespace

void bind_animator(py::module_& m) {
  py::class_<PyAnimator>(
      m, "Animator",
      "One character's playback: a base clip with crossfades or inertialization, layers, "
      "notify events. One per character; its calls hold the GIL, so threads that share one take turns.")
      .def(py::init([](CharacterRef c) {
             Animator a = c->loaded->animator();
             return PyAnimator{c, std::move(a), {}};
           }),
           py::arg("character"))
      .def(
          "play",
          [](PyAnimator& a, const py::object& clip, const std::string& mode, int passes, float start) {
            check_finite(start, "start");
            if (passes < 0) throw py::value_error("passes must be 0 (forever) or more");
            (void)a.animator.play(a.clip(clip), loop_mode(mode), passes, start);
          },
          py::arg("clip"), py::arg("mode") = "repeat", py::arg("passes") = 0, py::arg("start") = 0.f,
          "Plays `clip` (index or name) from `start` seconds; `passes` 0 repeats forever.")
      .def(
          "crossfade",
          [](PyAnimator& a, const py::object& clip, float duration, bool sync_phase,
             const std::string& mode) {
            check_finite(duration, "duration");
            (void)a.animator.crossfade(a.clip(clip), duration,
                                       sync_phase ? FadeSync::kPhase : FadeSync::kNone, loop_mode(mode));
          },
          py::arg("clip"), py::arg("duration"), py::arg("sync_phase") = false, py::arg("mode") = "repeat",
          "Fades to `clip` over `duration` seconds (sync_phase: the new clip from the current one's ratio).")
      .def(
          "inertialize",
          [](PyAnimator& a, const py::object& clip, float duration, const std::string& mode) {
            check_finite(duration, "duration");
            (void)a.animator.inertialize(a.clip(clip), duration, loop_mode(mode));
          },
          py::arg("clip"), py::arg("duration"), py::arg("mode") = "repeat",
          "Switches to `clip` at once, the pose continuous in position and velocity over `duration` seconds.")
      .def("stop", [](PyAnimator& a) { a.animator.stop(); })
      .def("pause", [](PyAnimator& a) { a.animator.pause(); })
      .def("resume", [](PyAnimator& a) { a.animator.resume(); })
      .def(
          "seek",
          [](PyAnimator& a, float seconds) {
            check_finite(seconds, "seconds");
            a.animator.seek(seconds);
          },
          py::arg("seconds"))
      .def_property(
          "speed", [](const PyAnimator& a) { return a.animator.speed(); },
          [](PyAnimator& a, float speed) {
            check_finite(speed, "speed");
            a.animator.set_speed(speed);
          },
          "Playback rate (negative plays backwards).")
      .def(
          "add_layer",
          [](PyAnimator& a, const py::object& clip, float weight, const py::object& mask, bool additive) {
            check_finite(weight, "weight");
            const int c = a.clip(clip);
            // Kept here while the layer lives: the Animator reads the mask by reference.
            auto kept = std::make_shared<std::vector<float>>();
            if (!mask.is_none()) {
              *kept = mask.cast<std::vector<float>>();
              if (static_cast<int>(kept->size()) != a.character->asset().skeleton.joint_count())
                throw py::value_error("mask: one weight per joint");
            }
            const int layer = a.animator.add_layer(c, weight, *kept, additive);
            if (layer < 0)
              throw OssaError("all " + std::to_string(Animator::kMaxLayers) + " layers are in use");
            a.masks[layer] = std::move(kept);
            return layer;
          },
          py::arg("clip"), py::arg("weight"), py::arg("mask") = py::none(), py::arg("additive") = false,
          "Adds a layer over the base clip (a per-joint `mask`, or additive); returns its slot.")
      .def(
          "set_layer_weight",
          [](PyAnimator& a, int layer, float weight) { a.animator.set_layer_weight(layer, weight); },
          py::arg("layer"), py::arg("weight"))
      .def(
          "remove_layer", [](PyAnimator& a, int layer) { a.animator.remove_layer(layer); }, py::arg("layer"))
      .def(
          "update",
          [](PyAnimator& a, float dt) {
            check_finite(dt, "dt");
            a.animator.update(dt);  // microseconds: the GIL stays held, so threads sharing it take turns
            py::list events;
            for (const AnimEvent& e : a.animator.events()) events.append(event_dict(e));
            return events;
          },
          py::arg("dt"),
          "Advances by `dt` seconds and poses the character; returns this update's events as dicts (type, "
          "name, clip, time, loop, payload).")
      .def_property_readonly("clip", [](const PyAnimator& a) { return a.animator.clip(); })
      .def_property_readonly("time", [](const PyAnimator& a) { return a.animator.time(); })
      .def_property_readonly("loops", [](const PyAnimator& a) { return a.animator.loops(); })
      .def_property_readonly("playing", [](const PyAnimator& a) { return a.animator.playing(); })
      .def_property_readonly("finished", [](const PyAnimator& a) { return a.animator.finished(); })
      .def_property_readonly(
          "locals", [](const PyAnimator& a) { return locals_array(a.animator.locals()); },
          "(J, 10) float32: the pose's local transforms.")
      .def_property_readonly(
          "joint_world", [](const PyAnimator& a) { return matrices_array(a.animator.model()); },
          "(J, 4, 4) float32: the pose in model space.")
      .def_property_readonly("joint_positions",
                             [](const PyAnimator& a) { return positions_array(a.animator.model()); })
      .def(
          "mesh_palette",
          [](const PyAnimator& a, int mesh) {
            if (mesh < 0 || mesh >= a.animator.mesh_count()) throw py::index_error("no such mesh");
            return matrices_array(a.animator.mesh_palette(mesh));
          },
          py::arg("mesh"), "(K, 4, 4) float32: mesh `mesh`'s skinning matrices, one per palette slot.")
      .def_property_readonly("root_delta", [](const PyAnimator& a) {
        const RootDelta d = a.animator.root_delta();
        return py::make_tuple(d.x, d.z, d.yaw);
      });

  py::class_<PyGraphInstance>(m, "GraphInstance",
                              "A state machine (an .animgraph.json) driving one character by parameters.")
      .def(py::init([](CharacterRef c, const py::object& path_arg) {
             const std::string path = path_of(path_arg);
             std::shared_ptr<const AnimGraph> graph = c->loaded->anim_graph;
             if (!path.empty()) graph = value_or_raise(AnimGraph::load(path, c->asset()));
             if (!graph)
               throw OssaError(c->loaded->source_path + ": no animation graph embedded; give its path");
             AnimGraphInstance instance(graph, c->asset(), &c->loaded->notifies);
             return std::make_unique<PyGraphInstance>(PyGraphInstance{c, graph, std::move(instance)});
           }),
           py::arg("character"), py::arg("path") = py::none(),
           "The graph in `path`, or the one embedded in the character's .ossa.")
      .def_property_readonly("parameters",
                             [](const PyGraphInstance& g) {
                               std::vector<py::str> out;
                               for (const AnimGraphParameter& p : g.graph->parameters())
                                 out.push_back(text(p.name));
                               return out;
                             })
      .def(
          "set",
          [](PyGraphInstance& g, const std::string& name, const py::object& value) {
            const int p = g.parameter(name);
            bool ok = py::isinstance<py::bool_>(value) ? g.instance.set_bool(p, value.cast<bool>())
                                                       : g.instance.set_float(p, value.cast<float>());
            if (!ok) throw py::value_error("parameter '" + name + "' does not take that value");
          },
          py::arg("name"), py::arg("value"), "Sets a float or bool parameter.")
      .def(
          "trigger",
          [](PyGraphInstance& g, const std::string& name) {
            if (!g.instance.set_trigger(g.parameter(name)))
              throw py::value_error("'" + name + "' is not a trigger");
          },
          py::arg("name"))
      .def(
          "value",
          [](const PyGraphInstance& g, const std::string& name) {
            return g.instance.value(g.parameter(name));
          },
          py::arg("name"))
      .def(
          "update",
          [](PyGraphInstance& g, float dt) {
            check_finite(dt, "dt");
            g.instance.update(dt);  // as Animator.update: short, under the GIL
            py::list events;
            for (const AnimGraphEvent& e : g.instance.events()) {
              py::dict d;
              d["type"] = to_string(e.type);
              d["layer"] = e.layer;
              d["state"] = e.state >= 0 ? py::object(text(g.instance.state_name(e))) : py::object(py::none());
              d["time"] = e.time;
              if (e.type == AnimGraphEvent::kNotify) d["notify"] = event_dict(e.notify);
              events.append(d);
            }
            return events;
          },
          py::arg("dt"),
          "Advances by `dt`; returns this update's events as dicts (type, layer, state, time).")
      .def(
          "current_state",
          [](const PyGraphInstance& g, int layer) {
            g.check_layer(layer);
            const int s = g.instance.current_state(layer);
            return s >= 0 ? py::object(text(g.graph->layers()[layer].states[s].name))
                          : py::object(py::none());
          },
          py::arg("layer") = 0)
      .def_property_readonly("locals",
                             [](const PyGraphInstance& g) { return locals_array(g.instance.locals()); })
      .def_property_readonly(
          "joint_world",
          [](const PyGraphInstance& g) { return matrices_array(g.instance.animator().model()); })
      .def_property_readonly("joint_positions", [](const PyGraphInstance& g) {
        return positions_array(g.instance.animator().model());
      });
}

}  // namespace ossa::python
