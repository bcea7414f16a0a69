// Internal: glTF sampler interpolation, which assimp 5.2.5 drops.
//
// assimp's glTF 2.0 importer reads each sampler's `interpolation` and then ignores it: every channel reaches
// aiAnimation as plain keys, which Ossa (and assimp's users generally) interpolate linearly. Read from its
// source (code/AssetLib/glTF2/glTF2Importer.cpp at v5.2.5, CreateNodeAnim and CreateMeshMorphAnim):
//  * STEP: the keys are right, the hold between them is lost.
//  * CUBICSPLINE translation, rotation, scale: each key's value (the middle of its in-tangent, value,
//    out-tangent triplet) is kept, the tangents are dropped.
//  * CUBICSPLINE morph weights: it takes 3 * targets - 2 weights per key, starting one float into the key's
//    3 * targets, so only a one-target mesh gets its values; with two or more the "weights" mix in- and
//    out-tangents of other targets (and Ossa refused the file: "weights target 2 of 2").
//  * Weights below 0 are clamped to 0, whatever the interpolation: so LINEAR weight channels are read here
//    too, as they are.
//
// GltfInterpolation reads the file's own JSON (a .gltf's text or a .glb's JSON chunk) and, for each channel
// whose sampler is STEP or CUBICSPLINE (and each weights channel), that sampler's input and output accessors
// (from the .glb's BIN chunk, a base64 data URI, or a .bin inside the model's folder), and turns it into
// linear keys that reproduce it (a LINEAR weights channel: the keys as they are):
//  * STEP: every key k > 0 starts kStepLeadUlps floats before its time t_k (2e-6 s at 1 s), and a key at
//    the float below that holds key k - 1's value, so linear interpolation holds each value until the next
//    key. The lead is there because times meant to be t_k come out a few floats low (a fixed-rate frame's
//    f / rate, or Blender's goldens, whose times are printed to 7 digits: up to 6 floats below the STEP
//    face's keys, where the previous weights put it 3.3 mm off); Blender itself snaps times within 0.01 frame
//    to a key. So the reference and keyed clips give the glTF value at every time but within that lead before
//    a key, where they give the new value; fixed-rate clips the same at their frame times (they ramp within
//    the one frame interval that holds a key, as for any jump), and the keys stay on their frame grid for
//    the rate picker (up to the first 10 s at 120 fps, and longer at lower rates).
//  * CUBICSPLINE: the Hermite spline (tangents scaled by the key interval) is sampled at N even steps per key
//    interval, N per interval from the spline's second derivative so that linear interpolation between the
//    samples stays within kCubicTolerance of the spline in every component: |error| <= max|p''| / (8 N^2),
//    p'' taken over the interval's parameter s in [0, 1] (p is cubic, so max|p''| is at s = 0 or 1).
//    Rotations are normalised per sample, as the spec normalises after the spline (the bound holds for the
//    components before that). N is capped (kMaxStepsPerInterval, and kMaxResampledFloats for the file); a
//    channel that needs more is resampled as finely as the cap allows, with a warning giving its bound.
// The file is untrusted and read through GltfFile (gltf_file.h), which checks every number. A JSON or
// buffer this code cannot read (refused JSON, sparse accessors, a buffer outside the model's folder) is a
// warning, and those channels stay as assimp gave them; non-finite times, values or tangents in a channel it
// converts make the import fail (as they do for assimp's keys).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "ossa/asset/raw.h"
#include "space.h"

namespace ossa::detail {

enum class GltfPath : uint8_t { kTranslation, kRotation, kScale, kWeights };

class GltfInterpolation {
 public:
  static constexpr int kStepLeadUlps = 16;
  static constexpr double kCubicTolerance = 1e-4;          // per component, in the channel's units
  static constexpr int kMaxStepsPerInterval = 1024;        // samples per key interval
  static constexpr size_t kMaxResampledFloats = 1u << 24;  // times and values of every resampled channel

  // Reads the glTF at `path`, or `memory` when it is not empty (then buffers outside it are not resolved).
  // Warnings name the file's animation and node. Cheap when no sampler says STEP or CUBICSPLINE.
  void load(const std::string& path, std::span<const uint8_t> memory, std::vector<std::string>& warnings);

  // Replaces the channels of `track` (the joint assimp calls `node_name` in animation `animation`) that the
  // file interpolates with STEP or CUBICSPLINE by linear keys, mapped by `mapper`, and counts them in `clip`.
  // Returns "" or why the channel's numbers are unusable.
  std::string convert_track(unsigned animation, const std::string& node_name, const SpaceMapper& mapper,
                            RawTrack& track, RawClip& clip) const;
  // Morph weights of the node `node_name`: when its channel is STEP or CUBICSPLINE (and readable), fills
  // track.times and track.weights (`targets` per key), counts it in `clip` and returns true; false leaves
  // them to assimp's keys. `error` is set when the numbers are unusable.
  bool convert_weights(unsigned animation, const std::string& node_name, size_t targets, RawMorphTrack& track,
                       RawClip& clip, std::string& error) const;

  // Linear keys for a STEP channel (`width` floats per key): the holding keys added.
  static void step_to_linear(std::vector<float>& times, std::vector<float>& values, int width);

 private:
  struct Channel {
    bool cubic = false;
    bool linear = false;        // a LINEAR weights channel, read as it is (assimp clamps negative weights)
    int width = 0;              // floats per key: 3, 4, or the target count
    std::vector<float> times;   // converted keys
    std::vector<float> values;  // times.size() x width
    std::string error;          // the numbers are unusable (the import fails if the channel is used)
  };
  const Channel* find(unsigned animation, const std::string& node_name, GltfPath path) const;
  std::map<std::tuple<unsigned, std::string, GltfPath>, Channel> channels_;
};

}  // namespace ossa::detail
