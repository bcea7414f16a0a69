// What the module's files share: the exception, strings from files, arrays that view Ossa's memory.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ossa/core/result.h"
#include "ossa/serialize/load.h"

namespace ossa::python {
namespace py = pybind11;

// Raised as ossa.OssaError with the library's message (registered in module.cpp).
struct OssaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The value of a Result, or OssaError with its message.
template <typename T>
T value_or_raise(Result<T> result) {
  if (!result) throw OssaError(result.error());
  return std::move(result).value();
}

// A name from a file as a Python str: bytes that are not UTF-8 become surrogates (Python's
// "surrogateescape"), so no name makes a call fail and os.fsencode-style round trips give the bytes back.
py::str text(const std::string& s);
std::vector<py::str> texts(std::span<const std::string> list);
// The other way: a str (surrogates back to their bytes) as the name a file holds.
std::string name_of(const py::handle& s);
// A path argument: str, bytes or os.PathLike (pathlib.Path), as the file system's bytes.
std::string path_of(const py::handle& p);

// A read-only array over memory that `owner` keeps alive (a view: no copy).
template <typename T>
py::array_t<T> view(std::vector<py::ssize_t> shape, const T* data, py::handle owner) {
  py::array_t<T> a(std::move(shape), data, owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

// A loaded character, as Python holds it: every object made from it (skeleton, clips, meshes, arrays,
// animators) keeps this alive.
struct Character {
  std::shared_ptr<const LoadedCharacter> loaded;
  const CharacterAsset& asset() const { return loaded->asset; }
};
using CharacterRef = std::shared_ptr<Character>;

// A clip argument: an index, a name (the rule of ossa/asset/clip_names.h), or None for the rest pose (-1
// where `allow_none`). IndexError / KeyError otherwise.
int clip_index(const CharacterAsset& asset, const py::object& clip, bool allow_none);

void bind_character(py::module_& m);
void bind_animator(py::module_& m);
void bind_pipeline(py::module_& m);

}  // namespace ossa::python
