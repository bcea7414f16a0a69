// Internal: Ossa's own reader of BVH (Biovision Hierarchy) motion capture, read as Blender's importer reads
// it (io_anim_bvh/import_bvh.py; docs/asset-pipeline.md "BVH motion capture"). assimp 5.2.5 read BVH wrongly
// in several ways (position-only joints not animated, a skeleton mesh invented under the root, names with
// spaces refused), so Importer::import_here() hands .bvh files to this reader instead; it still runs inside
// the import guard.
//
// What it makes (ImportedScene, format "bvh"):
//  * joints in file order: every ROOT and JOINT, rest = its OFFSET (identity rotation, unit scale), and every
//    End Site as a joint named "EndSite_<parent>" (assimp's name for it, kept so that names, bone maps and
//    .ossa files made from BVH files before do not change); a name of several words is joined with '_';
//  * no mesh: a BVH holds a skeleton and motion only;
//  * one clip, "Motion" (assimp's name), a key per motion line at line k * Frame Time for every joint with
//    channels. Position channels replace the joint's OFFSET (root or not; a missing axis is 0), rotation
//    channels are Euler angles in degrees multiplied in the order the CHANNELS line gives them, left to right
//    (a missing axis is 0). Every motion line is read, whatever Frames: says (a warning says when they
//    differ);
//  * the space as read: +Y up (BVH has no axis metadata), "metres" times ImportOptions::unit_scale (BVH has
//    no unit either: SpaceConversion::note gives the skeleton's height and the likely unit).
// Input is hostile: numbers must be finite and within +-1e7, counts and line lengths are capped, and every
// message names the line (quoting input with non-printable bytes escaped).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ossa/import/imported_scene.h"

namespace ossa::detail {

constexpr size_t kBvhMaxFileBytes = size_t{1} << 30;  // 1 GiB: hours of capture
constexpr size_t kBvhMaxLineBytes = size_t{8} << 20;  // a motion line of 65,535 6-channel joints fits
constexpr size_t kBvhMaxJoints = 65535;               // joints and End Sites (Skeleton::build's cap)
constexpr size_t kBvhMaxFrames = 10'000'000;          // motion lines (a day at 120 fps)
constexpr size_t kBvhMaxNameBytes = 1024;
constexpr double kBvhMaxValue = 1e7;  // any number in the file, and any length after the unit scale

struct BvhOptions {
  double unit_scale = 0;     // file units -> metres; 0: as read (ImportOptions::unit_scale)
  bool left_handed = false;  // ImportOptions::left_handed
};

// Reads the BVH `text` into `out`'s skeleton, clips, space and warnings (format and paths are the caller's).
// Returns "" or what is wrong, naming the line.
std::string read_bvh(std::string_view text, const BvhOptions& options, ImportedScene& out);

}  // namespace ossa::detail
