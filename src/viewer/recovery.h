// Unsaved notify edits kept safe: while a document has edits that are not saved, the viewer writes them every
// few seconds to a recovery copy in the settings folder ($XDG_CONFIG_HOME/ossa/recovery/, never beside the
// model), removes it when the edits are saved or discarded, and offers it back when that model is opened
// again (after a crash, a kill, a power cut).
// A copy is {"model": ABSOLUTE PATH, "written": "YYYY-MM-DD HH:MM:SS" (UTC), "notifies": SIDECAR}, named by a
// hash of the model's absolute path; one that names another model (a hash collision), is damaged or larger
// than 16 MiB is ignored.
#pragma once

#include <optional>
#include <string>

#include "ossa/core/result.h"

namespace ossa::viewer {

struct RecoveryCopy {
  std::string model;          // the model's absolute path
  std::string written;        // when, "YYYY-MM-DD HH:MM:SS" UTC
  std::string notifies_json;  // the sidecar JSON the document would save
};

// Where `model_path`'s copy lives for a viewer whose settings are at `settings_path` ("" when there is no
// settings path: nothing is kept).
std::string recovery_path(const std::string& settings_path, const std::string& model_path);
// The model's absolute, normalised path (what copies are named by and record).
std::string recovery_model_key(const std::string& model_path);

// Atomic; creates the folder. `copy.written` is filled in when empty.
Result<bool> write_recovery(const std::string& path, RecoveryCopy copy);
// The copy at `path` when it is there, readable and of `model_path`.
std::optional<RecoveryCopy> read_recovery(const std::string& path, const std::string& model_path);
void remove_recovery(const std::string& path);

}  // namespace ossa::viewer
