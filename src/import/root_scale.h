// Internal: a static uniform scale on a root joint, folded into its descendants' translations.
//
// Blender's FBX exporter writes the armature with a scale of 100 beside UnitScaleFactor 1 (centimetres);
// glTF files converted from Mixamo carry 0.01. Positions come out right either way, but every joint then
// carries the scale, so whatever a game attaches to a joint (a sword in a hand socket) comes out 100 times
// (or a hundredth) its size, and bone lengths read 0.0028 m instead of 0.28 m. Folding moves the scale into
// the translations: each joint's model matrix becomes model * (1 / k) (a rigid frame), and each inverse
// bind k * inverse_bind, so every skinning palette, and so every vertex, stays what it was.
#pragma once

#include "ossa/import/imported_scene.h"

namespace ossa::detail {

// Folds the scale of every root joint whose scale is uniform and, in every clip, constant (to 1e-6
// relative) into the translations (rest and keys) of the joints below it. Returns how many roots were
// folded; adds a line about each to scene.space.note.
int fold_root_scale(ImportedScene& scene);

}  // namespace ossa::detail
