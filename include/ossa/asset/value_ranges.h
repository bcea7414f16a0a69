// The ranges of the numbers an asset may hold. Every builder checks them (Skeleton::build,
// SkinnedMesh::build, Clip::from_*, MorphTargets::build, MorphWeightTracks), so that they hold for imported
// models and `.ossa` files alike: finite is not enough (3e38 is finite; twice it is not), and a number
// outside these ranges is no character anyone animates. SECURITY.md lists them.
//
// Within the ranges, one multiplication cannot overflow a float, but a long enough chain of scaled joints
// still can: the outputs (the CLI's eval, render and play) refuse a non-finite result with an error.
#pragma once

#include <cmath>

namespace ossa::value_ranges {

// |x| of a translation, a vertex position, a morph delta, a UV, a root-motion step, an inverse bind
// matrix's entries (model units). Beyond 10^7 a float cannot tell two units apart.
constexpr float kMaxCoordinate = 1e7f;
// |s| of a joint's scale on each axis.
constexpr float kMaxScale = 1e4f;
// |q| of each of a compressed rotation's stored components (unit quaternions, and a little rounding).
constexpr float kMaxRotationComponent = 1.01f;
// |w| of a morph-target weight (glTF's are usually 0-1; exaggerated poses go past 1, never by 10^3).
constexpr float kMaxMorphWeight = 1e3f;
// Skin weights lie in [0, 1] and a vertex's sum at most 1 + kSkinWeightSlack.
constexpr float kSkinWeightSlack = 1e-2f;

// False for NaN and infinities too.
inline bool within(float value, float bound) {
  return std::fabs(value) <= bound;
}

// "" when a joint pose's translation and scale lie within the ranges above and its rotation is one (scaled to
// unit length when it is off by more than rounding, see normalize_rotation).
inline const char* check_and_normalize(float* translation, float* rotation, const float* scale);

// Scales a rotation quaternion (x, y, z, w) to unit length when it is off by more than rounding (unit ones
// are kept bit for bit); false when it is not finite or has no direction. Files store unit quaternions; a
// long one would scale every vertex it moves by its squared length.
inline bool normalize_rotation(float* q) {
  double length2 = 0;
  for (int i = 0; i < 4; ++i) {
    if (!std::isfinite(q[i])) return false;
    length2 += static_cast<double>(q[i]) * q[i];  // at most 4 * 3.4e38^2: finite in double
  }
  if (!(length2 > 1e-12)) return false;
  if (std::fabs(length2 - 1) > 1e-5) {
    const double inverse = 1 / std::sqrt(length2);
    for (int i = 0; i < 4; ++i) q[i] = static_cast<float>(q[i] * inverse);
  }
  return true;
}

inline const char* check_and_normalize(float* translation, float* rotation, const float* scale) {
  for (int i = 0; i < 3; ++i) {
    if (!within(translation[i], kMaxCoordinate)) return "a translation lies outside +-1e7";
    if (!within(scale[i], kMaxScale)) return "a scale lies outside +-1e4";
  }
  if (!normalize_rotation(rotation)) return "a rotation is not finite or has no direction";
  return "";
}

}  // namespace ossa::value_ranges
