#include "ossa/runtime/palette_job.h"

#include "kernels/kernels.h"

namespace ossa {

bool PaletteJob::validate() const {
  const size_t n = inverse_binds.size();
  if (output.empty() && output_affine.empty()) return false;
  if (!output.empty() && output.size() < n) return false;
  if (!output_affine.empty() && output_affine.size() < n) return false;
  if (joint_remap.empty()) return model.size() >= n;
  if (joint_remap.size() < n) return false;
  for (size_t k = 0; k < n; ++k)
    if (joint_remap[k] >= model.size()) return false;
  return true;
}

bool PaletteJob::run() const {
  if (!validate()) return false;
  const int n = static_cast<int>(inverse_binds.size());
  const uint16_t* remap = joint_remap.empty() ? nullptr : joint_remap.data();
  if (!output.empty()) {
    detail::active_kernels().palette(model.data(), inverse_binds.data(), remap, n, output.data());
    if (!output_affine.empty())
      for (int k = 0; k < n; ++k) output_affine[k] = to_affine(output[k]);
  } else {
    // Affine only: each 4x4 is computed on the stack and its first three rows kept.
    for (int k = 0; k < n; ++k) {
      Mat4 m;
      const Mat4& source = model[remap ? remap[k] : k];
      detail::active_kernels().palette(&source, &inverse_binds[k], nullptr, 1, &m);
      output_affine[k] = to_affine(m);
    }
  }
  return true;
}

}  // namespace ossa
