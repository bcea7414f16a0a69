// The viewer's retargeting panel as a plain class: the open character (the source) and a second one (the
// target) side by side, the bone map between them listed and edited joint by joint, saved as the JSON map
// `ossa retarget --map` reads (every target joint written out, so the saved file alone gives this map).
//
// Edits go through set_source(), which rebuilds the rig at once: what pose() draws is always what the map
// says. A map file is never written over either character's files (their models, sidecars or buffers).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ossa/core/result.h"
#include "ossa/offline/retarget.h"
#include "ossa/serialize/load.h"

namespace ossa::viewer {

class RetargetSession {
 public:
  // `explicit_json`: a map file's text to start from ("" for the automatic map).
  static Result<RetargetSession> create(std::shared_ptr<const LoadedCharacter> source,
                                        std::shared_ptr<const LoadedCharacter> target,
                                        const std::string& explicit_json = "");

  const LoadedCharacter& source() const { return *source_; }
  const LoadedCharacter& target() const { return *target_; }
  const BoneMap& map() const { return map_; }
  const RetargetRig& rig() const { return rig_; }
  bool edited() const { return edited_; }  // set_source() changed the map since creation or the last save

  // Target joint `target_joint` follows `source_joint` (-1: none). "" or why not (an index out of range, or a
  // source joint another target joint follows: that one is named).
  std::string set_source(int target_joint, int source_joint);
  // The map as JSON: {"target joint": "source joint" or null, ...} in the target's joint order.
  std::string map_json() const;
  // Writes map_json() atomically; refuses a path that is one of either character's files.
  Result<bool> save_map(const std::string& path);

  // The target's model-space pose for the source's local pose (retargeted, then local to model). No
  // allocation; false when a span has the wrong size.
  bool pose(std::span<const JointPose> source_locals, std::span<Mat4> target_model);

 private:
  std::shared_ptr<const LoadedCharacter> source_, target_;
  BoneMap map_;
  RetargetRig rig_;
  std::unique_ptr<RetargetScratch> scratch_;
  std::vector<JointPose> target_locals_;
  bool edited_ = false;
};

}  // namespace ossa::viewer
