// The `ossa` Python module (_ossa, wrapped by python/ossa/__init__.py): loading, and the module's pieces.
#include "bindings.h"
#include "ossa/import/load_character.h"

namespace ossa::python {

py::str text(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

std::vector<py::str> texts(std::span<const std::string> list) {
  std::vector<py::str> out;
  for (const std::string& s : list) out.push_back(text(s));
  return out;
}

std::string name_of(const py::handle& s) {
  if (!PyUnicode_Check(s.ptr())) throw py::type_error("a name (str)");
  PyObject* bytes = PyUnicode_AsEncodedString(s.ptr(), "utf-8", "surrogateescape");
  if (!bytes) throw py::error_already_set();
  std::string out(PyBytes_AS_STRING(bytes), static_cast<size_t>(PyBytes_GET_SIZE(bytes)));
  Py_DECREF(bytes);
  return out;
}

std::string path_of(const py::handle& p) {
  if (p.is_none()) return {};
  py::object fs = py::module_::import("os").attr("fspath")(p);
  if (PyBytes_Check(fs.ptr())) return fs.cast<std::string>();
  return name_of(fs);
}

namespace {

Clip::Layout layout_of(const std::string& name) {
  if (name == "fixed_rate") return Clip::Layout::kFixedRate;
  if (name == "keyed") return Clip::Layout::kKeyed;
  throw py::value_error("layout: 'fixed_rate' or 'keyed' (compressed clips come from ossa.convert)");
}

CharacterRef load(const py::object& path_arg, bool trusted, const std::string& layout, float frame_rate,
                  const py::object& notifies, int max_influences, bool left_handed, double unit_scale) {
  const std::string path = path_of(path_arg);
  ModelLoadOptions options;
  options.import.isolate = !trusted;
  options.import.max_influences = max_influences;
  options.import.left_handed = left_handed;
  options.import.unit_scale = unit_scale;
  options.build = {layout_of(layout), frame_rate};
  options.notifies_path = path_of(notifies);
  Result<std::shared_ptr<const LoadedCharacter>> loaded =
      Result<std::shared_ptr<const LoadedCharacter>>::failure("");
  {
    py::gil_scoped_release unlocked;
    loaded = load_character(path, options);
  }
  return std::make_shared<Character>(Character{value_or_raise(std::move(loaded))});
}

}  // namespace

PYBIND11_MODULE(_ossa, m) {
  m.doc() = "Ossa: skeletal animation. Characters from FBX, glTF, COLLADA, BVH and .ossa as numpy arrays.";
  py::register_exception<OssaError>(m, "OssaError", PyExc_RuntimeError);
  bind_character(m);
  bind_animator(m);
  bind_pipeline(m);
  m.def("load", &load, py::arg("path"), py::kw_only(), py::arg("trusted") = false,
        py::arg("layout") = "fixed_rate", py::arg("frame_rate") = 0.f, py::arg("notifies") = py::none(),
        py::arg("max_influences") = 4, py::arg("left_handed") = false, py::arg("unit_scale") = 0.0,
        R"(Loads a model file (FBX, glTF, COLLADA, BVH) or a .ossa file as a Character.

A model file is imported in a guarded worker process unless `trusted` (files you made yourself), as
ossa::load_character does. `layout`: 'fixed_rate' (frames at `frame_rate`, 0 picks it from the keys) or
'keyed' (the file's keys exactly); a .ossa keeps its own. `notifies`: a notify sidecar to use instead of
MODEL.notifies.json or the embedded one. Raises OssaError with the library's message.)");
}

}  // namespace ossa::python
