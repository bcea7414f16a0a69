// ossa/core/result.h — how fallible library calls report failure without exceptions.
//
// A Result<T> holds either a value or a human-readable message. Messages name the file and the problem
// ("walk.fbx: clip 'Run', joint 'spine': rotation key 3 is NaN"), so a CLI can print them unchanged.
// Text quoted from files is escaped (ossa/core/printable.h): a message never carries a control byte, so it
// can be printed or logged as it is. Results are [[nodiscard]]: ignoring one is a compiler warning. Test it
// (`if (!r)`, `r.ok()`) before using the value: value(), `*` and `->` on an error print the message to stderr
// and abort, in every build type.
#pragma once

#include "ossa/core/language.h"
#include "ossa/core/printable.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace ossa {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose, `return scene;`
  static Result failure(std::string message) {
    Result r;
    r.error_ = printable(message);
    return r;
  }

  explicit operator bool() const { return value_.has_value(); }
  bool ok() const { return value_.has_value(); }
  const std::string& error() const { return error_; }

  T& value() & { return checked(), *value_; }
  const T& value() const& { return checked(), *value_; }
  T&& value() && { return checked(), std::move(*value_); }
  // On a Result of a smart pointer (the loaders' Result<shared_ptr<const LoadedCharacter>>), `->` reaches
  // the pointee: `hero->asset`, not `(*hero)->asset`.
  auto operator->() {
    if constexpr (kIsSmartPointer)
      return value().get();
    else
      return &value();
  }
  auto operator->() const {
    if constexpr (kIsSmartPointer)
      return value().get();
    else
      return &value();
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }

 private:
  static constexpr bool kIsSmartPointer = requires(const T& p) {
    typename T::element_type;
    p.get();
  };
  Result() = default;
  void checked() const {
    if (value_.has_value()) return;
    std::fprintf(stderr, "ossa: Result::value() called on an error: %s\n", error_.c_str());
    std::abort();
  }
  std::optional<T> value_;
  std::string error_;
};

}  // namespace ossa
