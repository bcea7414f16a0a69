// ossa/core/result.h — how fallible library calls report failure without exceptions.
//
// A Result<T> holds either a value or a human-readable message. Messages name the file and the problem
// ("walk.fbx: clip 'Run', joint 'spine': rotation key 3 is NaN"), so a CLI can print them unchanged.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace ossa {

template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose, `return scene;`
  static Result failure(std::string message) {
    Result r;
    r.error_ = std::move(message);
    return r;
  }

  explicit operator bool() const { return value_.has_value(); }
  bool ok() const { return value_.has_value(); }
  const std::string& error() const { return error_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }

 private:
  Result() = default;
  std::optional<T> value_;
  std::string error_;
};

}  // namespace ossa
