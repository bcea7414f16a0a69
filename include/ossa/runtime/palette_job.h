// ossa/runtime/palette_job.h — model-space matrices -> skinning palette: palette[k] = model[remap[k]] *
// inverse_bind[k].
//
// For a mesh, pass its joint_remap() and inverse_binds() (its own palette slots); for a whole skeleton, pass
// the skeleton's inverse_binds() and an empty remap (slot k = joint k). Writes 4x4 matrices (`output`, for
// CPU skinning) and/or 3x4 affine rows (`output_affine`, for GPU upload); at least one must be given.
#pragma once

#include <cstdint>
#include <span>

#include "ossa/core/math.h"
#include "ossa/runtime/pose.h"

namespace ossa {

struct PaletteJob {
  std::span<const Mat4> model;
  std::span<const Mat4> inverse_binds;
  std::span<const uint16_t> joint_remap;  // empty: identity
  std::span<Mat4> output;                 // inverse_binds.size() matrices, or empty
  std::span<Affine3x4> output_affine;     // inverse_binds.size() rows, or empty

  bool validate() const;
  bool run() const;
};

}  // namespace ossa
