#include "ossa/runtime/local_to_model_job.h"

#include "kernels/kernels.h"

namespace ossa {

bool LocalToModelJob::validate() const {
  if (!skeleton) return false;
  const size_t n = static_cast<size_t>(skeleton->joint_count());
  if (input.size() < n || output.size() < n) return false;
  if (from < -1 || from >= static_cast<int>(n)) return false;
  if (root && !is_finite(*root)) return false;
  return true;
}

bool LocalToModelJob::run() const {
  if (!validate()) return false;
  const int begin = from < 0 ? 0 : from;
  const int end = from < 0 ? skeleton->joint_count() : skeleton->subtree_end(from);
  detail::active_kernels().local_to_model(input.data(), skeleton->parents().data(), begin, end, root,
                                          output.data());
  return true;
}

}  // namespace ossa
