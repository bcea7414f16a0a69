// Test helper: small ASCII FBX files (FBX 7.4 ASCII, "; FBX 7.4.0 project file") written from code, in the
// shapes of two kinds of real file that break the glTF export of what assimp 5.2.5 makes of them. Each
// function returns the whole file text; write it to a ".fbx" file (or import it from memory with the "fbx"
// hint).
//
// Both files hold the same rig, Y up, centimetres (UnitScaleFactor 1), 30 fps (TimeMode 6): LimbNodes
// "Hips" (0,100,0) > "Spine" (+20 in Y) > "Head" (+30 in Y) with Skeleton NodeAttributes, and a skinned mesh
// "Body" (Geometry "BodyShape": 8 vertices, 6 triangles, normals and UVs; a Skin with one Cluster per joint)
// and a BindPose; one Lambert material.
#pragma once

#include <string>

namespace ossa::test {

// The rig animated in three AnimationStacks, "TakeA", "TakeB" and "TakeC", in the shape of a 3ds Max file
// whose takes have offsets: each stack's curves hold keys from time 0, but its LocalStart/LocalStop (and
// ReferenceStart/Stop, the same) begin later. assimp 5.2.5 keeps only the keys within [LocalStart - 10000,
// LocalStop + 10000] KTime ticks, except that the FIRST key of each rotation curve is always kept; it merges
// a node's T, R and S key times into one list (one aiNodeAnim, position, rotation and scaling keys at the
// same times), then subtracts LocalStart from every time: each channel of a node with a rotation curve gets
// position, rotation and scaling keys at a negative time (the position there is the first kept translation
// key's value). assimp 5.2.5 gives no repeated times (it merges equal times and rejects files whose key
// times do not increase), but TakeB has keys at -1.5 s and exactly 0: clamped to 0, they would repeat.
// Keys in frames (30 fps, one frame = 1539538600 KTime ticks):
//   TakeA: LocalStart 25 (0.8333 s), LocalStop 60 (2 s). Hips T+R, Spine T+R, Head R; keys at 0,15,30,45,60.
//   TakeB: LocalStart 45 (1.5 s), LocalStop 90 (3 s). Hips T+R, Spine R, Head T+R; keys at 0,15,...,90.
//   TakeC: LocalStart 15 (0.5 s), LocalStop 45 (1.5 s). Hips T+R and Head R with keys at 0,10,...,60;
//          Spine T only, with keys at 0, 15 frames - 5000 ticks (within assimp's 10000-tick margin, so kept:
//          a key 1.08e-7 s before the start), 30, 45, 60.
std::string fbx_with_take_offsets();

// The rig in one static pose (one AnimationStack "Pose", LocalStart 0, LocalStop 1 s: two keys with equal
// values on each curve, Hips T+R and Spine R, the Spine bent 10 degrees) and, beside it, two Maya-style
// control objects under their own Model nodes:
//   "CTRL_Root": a Geometry of class "Line" (FbxLine: Points, PointsIndex), a closed 8-point loop of radius
//     30 cm around the feet. assimp 5.2.5 reads Line geometry (LineGeometry, ConvertLine) into an aiMesh
//     "CTRL_RootShape" with aiPrimitiveType_LINE only: 8 faces of 2 indices, no triangles.
//   "CTRL_Spine": a Geometry of class "NurbsCurve" (the shape Maya writes for a NURBS circle: Order 4,
//     Form "Periodic", 11 CVs with weights, 15 knots). assimp 5.2.5 makes no object of NurbsCurve geometry
//     (FBXDocument.cpp reads only Mesh, Shape and Line), so this node comes out with no mesh.
std::string fbx_with_curve_object();

}  // namespace ossa::test
