// A clip's keys as an animator's dope sheet shows them, and one channel's values over the clip for the curve
// view. Plain C++ (no ImGui): the window draws what this says; tests check it against the clip's own data.
//
// Keys: a keyed clip's channels show their stored keys (a channel with a single key holds still and shows
// none). Fixed-rate and compressed clips store every frame, so a frame shows a key where the channel's value
// changes to or from it (the frames that bound each change; a change within 1e-5 of the value's size, at
// least 1e-5, is a float export's noise, not a change); a channel that never changes shows none. Morph
// targets: the keys of the tracks that animate them, where the target's weight varies over the track. Rows:
// the joints that have keys, in skeleton order, then the morph targets.
//
// Curves: the channel sampled the way playback samples it (SampleJob; MorphWeightTracks::sample) at evenly
// spaced times and at every key, so keys sit exactly on the curve. Rotations give both their quaternion and
// Euler angles in degrees (XYZ, as Blender shows them: X applied first), unwrapped so the curve has no jumps
// of 360 degrees.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "ossa/asset/character.h"

namespace ossa::viewer {

enum class ChannelKind { kTranslation = 0, kRotation = 1, kScale = 2, kMorphWeight = 3 };

struct DopeRow {
  std::string name;            // the joint's name, or "MESH: TARGET"
  int joint = -1;              // a joint row, else -1
  int mesh = -1, target = -1;  // a morph target row
  // Joint rows: key times of translation, rotation and scale; morph rows: keys[0].
  std::array<std::vector<float>, 3> keys;
};

struct DopeSheet {
  std::vector<DopeRow> rows;
  size_t key_count() const;
};

DopeSheet make_dope_sheet(const CharacterAsset& asset, int clip);

struct CurveSample {
  float time = 0;
  // Translation and scale: x y z; rotation: the quaternion x y z w; morph weight: [0].
  std::array<float, 4> value{};
  std::array<float, 3> euler_degrees{};  // rotation only: X, Y, Z, unwrapped along the curve
};

// The channel of `joint` (or `mesh`'s `target` for kMorphWeight) at `samples` (>= 2) evenly spaced times and
// at the row's keys, in time order. Empty for an unknown clip, joint, mesh or target.
std::vector<CurveSample> channel_curve(const CharacterAsset& asset, int clip, ChannelKind kind, int joint,
                                       int mesh, int target, int samples);

// XYZ Euler angles in degrees of a unit quaternion: R = Rz * Ry * Rx (X applied first, Blender's "XYZ").
std::array<float, 3> euler_xyz_degrees(const float q[4]);

}  // namespace ossa::viewer
