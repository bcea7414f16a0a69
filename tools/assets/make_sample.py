"""Build Ossa's sample skinned character entirely from code and export it as FBX and glTF.

Run (Blender 3.4, e.g. Debian's `blender` package):

    blender -b --factory-startup --python tools/assets/make_sample.py -- OUT_DIR \
            [--golden-dir DIR] [--oracle PATH/TO/blender_eval.py] [--collada | --detailed [--centimetres] |
            --face | --face-step]

    # what the repository uses:
    cd <repo> && blender -b --factory-startup --python tools/assets/make_sample.py -- \
        assets/sample --golden-dir tests/golden
    # the COLLADA copy assets/sample/ossa_sample.dae (export into a scratch folder, copy only the .dae):
    blender -b --factory-startup --python tools/assets/make_sample.py -- /tmp/ossa_dae --collada
    cp /tmp/ossa_dae/ossa_sample.dae assets/sample/
    # the 70-bone benchmark humanoid assets/bench/ossa_humanoid70.glb and its golden:
    blender -b --factory-startup --python tools/assets/make_sample.py -- \
        assets/bench --detailed --golden-dir tests/golden
    # the shape-key face assets/sample/ossa_face.{fbx,glb} and its goldens (a fixed hash seed keeps the
    # FBX exporter's object order, so that only its time stamp changes from one run to the next):
    PYTHONHASHSEED=0 blender -b --factory-startup --python tools/assets/make_sample.py -- \
        assets/sample --face --golden-dir tests/golden
    # the same face with STEP weights, assets/sample/ossa_face_step.glb and its golden (its FBX is not kept):
    PYTHONHASHSEED=0 blender -b --factory-startup --python tools/assets/make_sample.py -- \
        /tmp/ossa_face_step --face-step --golden-dir tests/golden
    cp /tmp/ossa_face_step/ossa_face_step.glb assets/sample/

(Blender 3.4 on Debian runs the system Python: python3-numpy must be installed.)

What it creates (no external assets; every vertex, weight, pixel and key comes from this file):

  OUT_DIR/ossa_sample.fbx          binary FBX 7.4 (Blender's exporter), one take per action, textures
                                   referenced by relative path (the PNGs sit next to it)
  OUT_DIR/ossa_sample.glb          binary glTF 2.0 (Blender's exporter), one animation per action,
                                   skins with all (> 4) influences, textures embedded
  OUT_DIR/ossa_sample_diffuse.png  256x256 colour checker with a U/V gradient (orientation is visible)
  OUT_DIR/ossa_sample_normal.png   128x128 tangent-space normal map (OpenGL/+Y convention) of round bumps

The character: a stylised humanoid ~1.8 m tall, standing on the ground at the origin, facing -Y
(Blender's Z-up space; that is +Z in glTF's Y-up space), arms in an A-pose.
  * "Armature": 31 bones; "root" at the origin, a spine chain, arms with two fingers, legs with
    toes, a two-bone cape chain and two unweighted helper bones ("head_socket", "hand_r_socket").
  * "Body"  : skinned, smooth distance-based weights; around the pelvis/spine up to 5-6 non-zero
              influences per vertex on purpose (tests what a 4-influence runtime does with them).
  * "Cape"  : second skinned mesh on the same armature (chest + cape bones).
  * "Sword" : rigid prop parented to the bone "hand_r_socket" (no vertex groups, no modifier).
  * Actions (30 fps, all bones keyed on every frame, LINEAR, starting at frame 0):
      Idle 2.0 s (breathing), Walk 1.0 s (in-place cycle), Wave 1.5 s (right arm; the head has a
      non-uniform squash-stretch scale key (1.2, 0.8, 1.0) at frame 22), Turn 1.2 s (the root turns
      a full 360 degrees about the vertical axis). Cycles end on their first pose.

With --golden-dir DIR, the project's oracle (<repo>/../shared/oracle/blender_eval.py unless
--oracle is given) is run in a separate Blender process on each exported file, writing
DIR/ossa_sample.fbx.blender.json and DIR/ossa_sample.glb.blender.json.

--collada additionally writes OUT_DIR/ossa_sample.dae with Blender's COLLADA exporter
(bpy.ops.wm.collada_export): armature, meshes and the Walk action only (Blender 3.4 exports just
the action assigned to the armature: its include_all_actions code is disabled), every joint
sampled on every frame as a 4x4 matrix, Z_UP, <unit meter="1">, the diffuse texture referenced by
relative path (the exporter drops the normal map). No golden is written for it: Blender's COLLADA
importer is not trusted as an oracle. Run it into a scratch folder and keep only the .dae.

--detailed builds the benchmark variant instead ("ossa_humanoid70": the same character, meshes,
materials and 4 clips, but 70 bones, like a Mixamo/Unreal humanoid): the single index/thumb bones
become 5 fingers x 3 phalanges per hand (thumb/index/middle/ring/pinky_01..03_<side>), plus twist
bones (upperarm/lowerarm/thigh/calf_twist_<side>), a split neck (neck_02), a jaw, two eyes (with
small eye meshes) and a left-hand socket. The extra bones are animated on top of the normal clips
(finger curls, forearm/leg twist, jaw, eyes). Only OUT_DIR/ossa_humanoid70.glb is written
(textures embedded; the PNGs go to a scratch folder), and with --golden-dir only its golden
DIR/ossa_humanoid70.glb.blender.json (<= 250 sampled vertices). The default (non-detailed)
character is unchanged by this option's code paths.

--face builds a separate small character for morph targets instead ("ossa_face"; the default
character's files are not touched) and writes OUT_DIR/ossa_face.fbx and OUT_DIR/ossa_face.glb (no
textures), with --golden-dir DIR/ossa_face.{fbx,glb}.blender.json (<= 450 sampled vertices):
  * "FaceRig": 3 bones, neck > head > jaw (the jaw hinges at the back of the mouth, pointing forward).
  * "Face"   : a 0.4 m head (ellipsoid, 36 x 24) on an open neck tube, 926 vertices, skinned with up to 3
               influences (neck into head, the lower front of the head to the jaw); shape keys "smile"
               (mouth corners up and out), "blink" (eyelids down) and "jaw_open_fix" (chin forward, a
               corrective), each a smooth bump that is exactly zero outside its radius (sparse targets).
  * Actions: Talk 1.5 s (the jaw opens twice, the head nods and turns; smile rises to 1 by 0.5 s and
    falls back from 1.0 s; one blink closed at 0.7 s; jaw_open_fix follows the jaw; every weight starts
    and ends at 0) and Look 1.0 s (neck and head turn; no shape-key keys).
  The shape keys are driven by custom properties of the armature object that the actions key: both
  exporters bake drivers into each armature action (FBX: DeformPercent curves per take, written for
  every take, so Look's are constant 0; glTF: a `weights` channel per animation), while a shape-key
  action of its own would follow no armature action. The driver F-curves carry two LINEAR keys
  (identity) because Blender 3.4's glTF exporter writes a driver channel without keys as STEP.
  Rebuilds give the same GLB and goldens byte for byte, and the same FBX but for its time stamp when
  run with PYTHONHASHSEED=0 (without it, Python's string hashing reorders the FBX exporter's objects).

--detailed --centimetres writes only OUT_DIR/ossa_humanoid70_cm.fbx: the humanoid's Walk as a
Mixamo-like centimetre rig (binary FBX, lengths x100, UnitScaleFactor 1: importers scale the
armature's root by 0.01), armature only, no textures, no golden. The compression tests compare it
with the metre GLB.

--face-step builds the same face with the driver F-curves left without keys, so that Blender's glTF
exporter writes its weights as STEP (per frame): OUT_DIR/ossa_face_step.glb and, with --golden-dir,
DIR/ossa_face_step.glb.blender.json (the FBX it also exports is not used). assimp drops the STEP; Ossa
reads it back from the file (src/import/gltf_interpolation.h), and the test compares with Blender.

Licence of the generated files: CC0 1.0 (public domain dedication).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import bpy
import numpy as np
from mathutils import Matrix, Quaternion, Vector

FPS = 30
NAME = "ossa_sample"
DIFFUSE_PNG = NAME + "_diffuse.png"
NORMAL_PNG = NAME + "_normal.png"
# Oracle options: default fractions (0, .25, .5, .75 of each clip) plus two times between keys
# (frames 1.5 and 16.5); <= 450 sampled vertices keep each JSON under ~400 KB.
ORACLE_EXTRA_TIMES = "0.05,0.55"
ORACLE_MAX_VERTS = "450"
# --detailed: the benchmark humanoid (only a GLB; golden with <= 250 sampled vertices: its 70 joints
# make each snapshot bigger, 250 keeps the JSON under 300 KB)
DETAILED_NAME = "ossa_humanoid70"
DETAILED_ORACLE_MAX_VERTS = "250"
# --detailed --centimetres: the same humanoid as a centimetre rig (what Mixamo exports): an FBX in
# centimetres, which importers bring back to metres with a 0.01 scale on the armature's root
CENTIMETRE_SUFFIX = "_cm"
CENTIMETRE_CLIP = "Walk"

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# --------------------------------------------------------------------------------------- arguments
def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    ap = argparse.ArgumentParser(
        prog="blender -b --factory-startup --python make_sample.py --",
        description="Author Ossa's sample character and export FBX + GLB (+ oracle goldens).")
    ap.add_argument("out_dir", help="directory receiving the .fbx, .glb and .png files")
    ap.add_argument("--golden-dir", help="also write <file>.blender.json oracle evaluations here")
    ap.add_argument("--oracle", default=os.path.join(REPO_ROOT, "..", "shared", "oracle", "blender_eval.py"),
                    help="path to blender_eval.py (default: <repo>/../shared/oracle/blender_eval.py)")
    ap.add_argument("--collada", action="store_true",
                    help="also export OUT_DIR/ossa_sample.dae (Blender's COLLADA exporter; no golden)")
    ap.add_argument("--detailed", action="store_true",
                    help="build the 70-bone benchmark humanoid instead and export only "
                         "OUT_DIR/ossa_humanoid70.glb (textures embedded)")
    ap.add_argument("--face", action="store_true",
                    help="build the shape-key face instead and export only OUT_DIR/ossa_face.fbx and "
                         "OUT_DIR/ossa_face.glb")
    ap.add_argument("--centimetres", action="store_true",
                    help="with --detailed: export the humanoid as a Mixamo-like centimetre FBX instead, "
                         "OUT_DIR/ossa_humanoid70_cm.fbx (no textures, no golden)")
    ap.add_argument("--face-step", action="store_true",
                    help="the shape-key face with STEP weights in its glTF: OUT_DIR/ossa_face_step.glb")
    args = ap.parse_args(argv)
    if (args.face or args.face_step) and (args.collada or args.detailed or (args.face and args.face_step)):
        ap.error("--face and --face-step cannot be combined with each other, --collada or --detailed")
    if args.centimetres and (not args.detailed or args.golden_dir):
        ap.error("--centimetres needs --detailed and writes no golden")
    if args.collada and args.detailed:
        ap.error("--collada and --detailed cannot be combined (--detailed writes only a GLB)")
    return args


# --------------------------------------------------------------------------------------- helpers
def smoothstep(e0, e1, x):
    t = min(1.0, max(0.0, (x - e0) / (e1 - e0)))
    return t * t * (3.0 - 2.0 * t)


def segment_distance(p, a, b):
    """Distance from point p to segment ab."""
    ab = b - a
    t = 0.0 if ab.length_squared == 0.0 else min(1.0, max(0.0, (p - a).dot(ab) / ab.length_squared))
    return (a + ab * t - p).length


# --------------------------------------------------------------------------------------- skeleton
# A-pose arm direction: 40 degrees below horizontal (left arm is +X: the character faces -Y).
ARM_DIR = {s: Vector((sx * math.cos(math.radians(40)), 0.0, -math.sin(math.radians(40))))
           for s, sx in (("l", 1.0), ("r", -1.0))}
SIDE_SIGN = {"l": 1.0, "r": -1.0}


# --detailed: fingers as (name, knuckle distance from the wrist along the arm, offset along Y (the
# palm is wide front-back; -Y is the front, where the thumb is), phalanx lengths).
FINGERS = [("index", 0.088, -0.026, (0.040, 0.025, 0.020)),
           ("middle", 0.090, -0.009, (0.045, 0.030, 0.022)),
           ("ring", 0.087, 0.008, (0.042, 0.027, 0.020)),
           ("pinky", 0.080, 0.024, (0.032, 0.020, 0.017))]
THUMB_LENGTHS = (0.035, 0.030, 0.025)
FINGER_NAMES = ["thumb"] + [f[0] for f in FINGERS]
TWISTED = ("upperarm", "lowerarm", "thigh", "calf")   # <bone>_twist_<side>: lower half of <bone>


def thumb_dir(side):
    return (ARM_DIR[side] + Vector((0, -1.2, 0))).normalized()


def palm_in(side):
    """Unit normal of the palm (in the A-pose) pointing towards the body: fingers curl that way."""
    a = math.radians(40)
    return Vector((-SIDE_SIGN[side] * math.sin(a), 0.0, -math.cos(a)))


def finger_chain(side, finger):
    """The 4 joint positions (knuckle, two middle joints, tip) of a finger of the detailed hand."""
    d = ARM_DIR[side]
    wrist = Vector((SIDE_SIGN[side] * 0.19, 0, 1.40)) + d * 0.53
    if finger == "thumb":
        start, direction, lengths = wrist + d * 0.025 + Vector((0, -0.025, 0)), thumb_dir(side), THUMB_LENGTHS
    else:
        _n, along, dy, lengths = next(f for f in FINGERS if f[0] == finger)
        start, direction = wrist + d * along + Vector((0, dy, 0)), d
    pts = [start]
    for ln in lengths:
        pts.append(pts[-1] + direction * ln)
    return pts


def skeleton_layout(detailed=False):
    """[(name, head, tail, parent, deform)] in Blender armature space (metres, Z up, facing -Y)."""
    if detailed:
        return detailed_skeleton_layout()
    V = Vector
    bones = [
        # The root lies on the ground pointing forward, so "turn about the vertical" is its local Z.
        ("root", V((0, 0, 0)), V((0, -0.25, 0)), None, False),
        ("pelvis", V((0, 0, 0.92)), V((0, 0, 1.02)), "root", True),
        ("spine_01", V((0, 0, 1.02)), V((0, 0, 1.13)), "pelvis", True),
        ("spine_02", V((0, 0, 1.13)), V((0, 0, 1.25)), "spine_01", True),
        ("chest", V((0, 0, 1.25)), V((0, 0, 1.43)), "spine_02", True),
        ("neck", V((0, 0, 1.43)), V((0, 0, 1.60)), "chest", True),
        ("head", V((0, 0, 1.60)), V((0, 0, 1.80)), "neck", True),
        ("head_socket", V((0, 0, 1.80)), V((0, 0, 1.88)), "head", False),   # hat attachment point
        ("cape_01", V((0, 0.14, 1.40)), V((0, 0.17, 1.08)), "chest", True),
        ("cape_02", V((0, 0.17, 1.08)), V((0, 0.21, 0.74)), "cape_01", True),
    ]
    for s in ("l", "r"):
        sx, d = SIDE_SIGN[s], ARM_DIR[s]
        shoulder = V((sx * 0.19, 0, 1.40))
        elbow = shoulder + d * 0.28
        wrist = elbow + d * 0.25
        knuckle = wrist + d * 0.09
        thumb = wrist + d * 0.03 + V((0, -0.025, 0))
        bones += [
            ("clavicle_" + s, V((sx * 0.03, 0, 1.40)), shoulder, "chest", True),
            ("upperarm_" + s, shoulder, elbow, "clavicle_" + s, True),
            ("lowerarm_" + s, elbow, wrist, "upperarm_" + s, True),
            ("hand_" + s, wrist, knuckle, "lowerarm_" + s, True),
            ("index_" + s, knuckle, knuckle + d * 0.065, "hand_" + s, True),
            ("thumb_" + s, thumb, thumb + (d + V((0, -1.2, 0))).normalized() * 0.045, "hand_" + s, True),
        ]
        if s == "r":
            # Weapon socket in the palm, pointing forward: the sword hangs off it.
            grip = wrist + d * 0.05
            bones.append(("hand_r_socket", grip, grip + V((0, -0.06, 0)), "hand_r", False))
        hip = V((sx * 0.10, 0, 0.92))
        knee = V((sx * 0.10, -0.01, 0.50))
        ankle = V((sx * 0.10, 0, 0.09))
        ball = V((sx * 0.10, -0.12, 0.03))
        bones += [
            ("thigh_" + s, hip, knee, "pelvis", True),
            ("calf_" + s, knee, ankle, "thigh_" + s, True),
            ("foot_" + s, ankle, ball, "calf_" + s, True),
            ("ball_" + s, ball, ball + V((0, -0.07, 0)), "foot_" + s, True),
        ]
    return bones


def detailed_skeleton_layout():
    """The normal skeleton with 5 three-bone fingers per hand (replacing index/thumb), twist bones,
    neck_02, jaw, eyes and hand_l_socket: 70 bones."""
    V = Vector
    base = skeleton_layout()
    bones = []
    for name, head, tail, parent, deform in base:
        if name.startswith("index_") or name.startswith("thumb_"):
            continue
        if name == "neck":
            mid = head.lerp(tail, 0.5)
            bones += [("neck", head, mid, parent, True), ("neck_02", mid, tail, "neck", True)]
            continue
        if name == "head":
            parent = "neck_02"
        bones.append((name, head, tail, parent, deform))
        if name == "head":
            bones += [("jaw", V((0, -0.02, 1.655)), V((0, -0.095, 1.61)), "head", True),
                      ("eye_l", V((0.035, -0.100, 1.71)), V((0.035, -0.130, 1.71)), "head", True),
                      ("eye_r", V((-0.035, -0.100, 1.71)), V((-0.035, -0.130, 1.71)), "head", True)]
        base_name, _sep, s = name.rpartition("_")
        if base_name in TWISTED:
            bones.append((base_name + "_twist_" + s, head.lerp(tail, 0.5), tail, name, True))
        if base_name == "hand":
            for finger in FINGER_NAMES:
                pts = finger_chain(s, finger)
                for k in range(3):
                    bones.append(("%s_%02d_%s" % (finger, k + 1, s), pts[k], pts[k + 1],
                                  "hand_" + s if k == 0 else "%s_%02d_%s" % (finger, k, s), True))
            if s == "l":
                # mirror of hand_r_socket (nothing attached)
                grip = head + ARM_DIR[s] * 0.05
                bones.append(("hand_l_socket", grip, grip + V((0, -0.06, 0)), "hand_l", False))
    return bones


def build_armature(layout):
    arm = bpy.data.armatures.new("Armature")
    obj = bpy.data.objects.new("Armature", arm)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    for name, head, tail, parent, deform in layout:
        eb = arm.edit_bones.new(name)
        eb.head, eb.tail, eb.roll = head, tail, 0.0
        eb.use_deform = deform
        if parent:
            eb.parent = arm.edit_bones[parent]
            eb.use_connect = False   # keep every bone's location keyable
    bpy.ops.object.mode_set(mode="OBJECT")
    for pb in obj.pose.bones:
        pb.rotation_mode = "QUATERNION"
    return obj


# --------------------------------------------------------------------------------------- geometry
class MeshBuilder:
    """Accumulates vertices, faces, per-corner UVs and, per vertex, the part it belongs to."""

    def __init__(self):
        self.verts, self.faces, self.uvs, self.part = [], [], [], []

    def loft(self, rings, n_around, ref, part, uv_rect=(0, 0, 1, 1), start_pole=None, end_pole=None):
        """Skin a tube through `rings` = [(centre, tangent, rx, ry)].

        Each ring is an ellipse with semi-axis rx along `ref` (made perpendicular to the tangent)
        and ry along tangent x ref. Optional poles close the ends with triangle fans.
        UVs: u runs around the tube, v along it, both mapped into uv_rect.
        """
        u0, v0, u1, v1 = uv_rect
        ref = Vector(ref)
        chain = ([start_pole] if start_pole else []) + list(rings) + ([end_pole] if end_pole else [])
        n_rows = len(chain)

        def uv(row, j):
            return (u0 + (u1 - u0) * j / n_around, v0 + (v1 - v0) * row / (n_rows - 1))

        base = len(self.verts)
        for c, t, rx, ry in rings:
            a = (ref - t * ref.dot(t)).normalized()
            b = t.cross(a)
            for j in range(n_around):
                al = 2.0 * math.pi * j / n_around
                self.verts.append(c + a * (rx * math.cos(al)) + b * (ry * math.sin(al)))
                self.part.append(part)
        row0 = 1 if start_pole else 0
        for i in range(len(rings) - 1):
            for j in range(n_around):
                jn = (j + 1) % n_around
                # order gives outward normals (a x t points outwards at angle 0)
                self.faces.append((base + i * n_around + j, base + i * n_around + jn,
                                   base + (i + 1) * n_around + jn, base + (i + 1) * n_around + j))
                self.uvs.append((uv(row0 + i, j), uv(row0 + i, j + 1), uv(row0 + i + 1, j + 1), uv(row0 + i + 1, j)))
        last = base + (len(rings) - 1) * n_around
        if start_pole:
            p = len(self.verts)
            self.verts.append(start_pole)
            self.part.append(part)
            for j in range(n_around):
                self.faces.append((p, base + (j + 1) % n_around, base + j))
                self.uvs.append(((u0 + (u1 - u0) * (j + 0.5) / n_around, v0), uv(1, j + 1), uv(1, j)))
        if end_pole:
            p = len(self.verts)
            self.verts.append(end_pole)
            self.part.append(part)
            r = n_rows - 2
            for j in range(n_around):
                self.faces.append((last + j, last + (j + 1) % n_around, p))
                self.uvs.append((uv(r, j), uv(r, j + 1), (u0 + (u1 - u0) * (j + 0.5) / n_around, v1)))

    def capsule(self, points, radii, n_around, ref, part, uv_rect=(0, 0, 1, 1), spacing=0.04,
                caps=("round", "round")):
        """Tube along a polyline with per-point (rx, ry) radii, rings every ~`spacing` metres.

        caps: "round" (quarter-ellipse rings + pole), "flat" (pole in the end ring's plane), "point"
        (pole only, a cone tip), or None (open).
        """
        pts = [Vector(p) for p in points]
        seg = [(pts[i + 1] - pts[i]).length for i in range(len(pts) - 1)]
        total = sum(seg)
        n = max(2, int(math.ceil(total / spacing)))
        centres, rads = [], []
        for k in range(n + 1):
            s, i = total * k / n, 0
            while i < len(seg) - 1 and s > seg[i]:
                s -= seg[i]
                i += 1
            f = min(1.0, s / seg[i])
            centres.append(pts[i].lerp(pts[i + 1], f))
            rads.append(tuple(radii[i][m] + (radii[i + 1][m] - radii[i][m]) * f for m in (0, 1)))
        tangents = [(centres[min(k + 1, n)] - centres[max(k - 1, 0)]).normalized() for k in range(n + 1)]
        rings = [(centres[k], tangents[k], rads[k][0], rads[k][1]) for k in range(n + 1)]

        def cap(kind, end):
            c, t, rx, ry = rings[-1] if end else rings[0]
            out = t if end else -t
            if kind is None:
                return [], None
            if kind == "flat":
                return [], (c, t, 0.0, 0.0)
            depth = 0.8 * min(rx, ry)
            if kind == "point":
                return [], (c + out * depth, t, 0.0, 0.0)
            extra = []
            for m in (1, 2, 3):
                phi = 0.5 * math.pi * m / 4.0
                extra.append((c + out * depth * math.sin(phi), t, rx * math.cos(phi), ry * math.cos(phi)))
            return extra, (c + out * depth, t, 0.0, 0.0)

        pre, start_pole = cap(caps[0], False)
        post, end_pole = cap(caps[1], True)
        rings = list(reversed(pre)) + rings + post
        self.loft(rings, n_around, ref, part, uv_rect,
                  start_pole[0] if start_pole else None, end_pole[0] if end_pole else None)

    def ellipsoid(self, centre, radii, n_around, n_rows, part, uv_rect=(0, 0, 1, 1)):
        """Ellipsoid lofted bottom-to-top along +Z (poles at both ends)."""
        c, (rx, ry, rz) = Vector(centre), radii
        z = Vector((0, 0, 1))
        rings = []
        for k in range(1, n_rows):
            th = math.pi * (1.0 - k / n_rows)   # from the bottom pole up
            rings.append((c + z * (rz * math.cos(th)), z, rx * math.sin(th), ry * math.sin(th)))
        self.loft(rings, n_around, (1, 0, 0), part, uv_rect, c - z * rz, c + z * rz)

    def box(self, centre, size, part, uv_rect=(0, 0, 1, 1)):
        """Axis-aligned box; every face gets the whole uv_rect."""
        c, h = Vector(centre), Vector(size) / 2.0
        base = len(self.verts)
        for k in range(8):   # bit 0: +x, bit 1: +y, bit 2: +z
            self.verts.append(c + Vector((h.x if k & 1 else -h.x, h.y if k & 2 else -h.y, h.z if k & 4 else -h.z)))
            self.part.append(part)
        u0, v0, u1, v1 = uv_rect
        for f in ((0, 4, 6, 2), (1, 3, 7, 5), (0, 1, 5, 4), (2, 6, 7, 3), (0, 2, 3, 1), (4, 5, 7, 6)):
            self.faces.append(tuple(base + i for i in f))
            self.uvs.append(((u0, v0), (u1, v0), (u1, v1), (u0, v1)))

    def to_object(self, name, material):
        me = bpy.data.meshes.new(name)
        me.from_pydata([tuple(v) for v in self.verts], [], self.faces)
        uv_layer = me.uv_layers.new(name="UVMap")
        uv_layer.data.foreach_set("uv", [x for face in self.uvs for corner in face for x in corner])
        me.polygons.foreach_set("use_smooth", [True] * len(me.polygons))
        me.materials.append(material)
        me.validate()
        me.update()
        obj = bpy.data.objects.new(name, me)
        bpy.context.scene.collection.objects.link(obj)
        return obj


def build_body(layout, detailed=False):
    bones = {b[0]: b for b in layout}
    m = MeshBuilder()
    # Torso (hips to neck): one tube so that the spine blends smoothly; (rx, ry) per profile point.
    torso = [((0, 0, 0.84), (0.13, 0.095)), ((0, 0, 0.92), (0.16, 0.11)), ((0, 0, 1.02), (0.15, 0.10)),
             ((0, 0, 1.12), (0.135, 0.095)), ((0, 0, 1.25), (0.16, 0.105)), ((0, 0, 1.37), (0.18, 0.11)),
             ((0, 0, 1.44), (0.12, 0.09)), ((0, 0, 1.48), (0.055, 0.055)), ((0, 0, 1.60), (0.05, 0.05))]
    m.capsule([p for p, _ in torso], [r for _, r in torso], 16, (1, 0, 0), "torso", (0.0, 0.5, 0.5, 1.0))
    m.ellipsoid((0, -0.01, 1.69), (0.10, 0.11, 0.12), 16, 12, "head", (0.5, 0.5, 1.0, 1.0))
    # A nose, so the facing direction is obvious in any viewer.
    m.capsule([(0, -0.10, 1.68), (0, -0.145, 1.665)], [(0.02, 0.02), (0.012, 0.012)], 6, (1, 0, 0), "nose",
              (0.95, 0.95, 1.0, 1.0), spacing=0.02, caps=(None, "round"))
    for s in ("l", "r"):
        d = ARM_DIR[s]
        shoulder, elbow, wrist = bones["upperarm_" + s][1], bones["lowerarm_" + s][1], bones["hand_" + s][1]
        knuckle = bones["hand_" + s][2] if detailed else bones["index_" + s][1]   # the same point
        m.capsule([shoulder - d * 0.03, elbow, wrist], [(0.05, 0.05), (0.042, 0.042), (0.032, 0.032)], 10,
                  (0, 1, 0), "arm_" + s, (0.0, 0.0, 0.25, 0.5))
        # Palm: wide along Y (front-back), thin across.
        m.capsule([wrist, knuckle], [(0.04, 0.018), (0.042, 0.016)], 10, (0, 1, 0), "hand_" + s,
                  (0.5, 0.0, 0.75, 0.25), spacing=0.02)
        if not detailed:   # --detailed: five fingers, see add_detailed_parts
            m.capsule([knuckle - d * 0.01, bones["index_" + s][2]], [(0.012, 0.011), (0.01, 0.009)], 6,
                      (0, 1, 0), "index_" + s, (0.75, 0.0, 0.875, 0.25), spacing=0.015)
            m.capsule([bones["thumb_" + s][1], bones["thumb_" + s][2]], [(0.013, 0.012), (0.011, 0.01)], 6,
                      (0, 0, 1), "thumb_" + s, (0.875, 0.0, 1.0, 0.25), spacing=0.015)
        hip, knee, ankle = bones["thigh_" + s][1], bones["calf_" + s][1], bones["foot_" + s][1]
        m.capsule([hip + Vector((0, 0, 0.03)), knee, ankle], [(0.075, 0.075), (0.052, 0.052), (0.04, 0.04)], 12,
                  (1, 0, 0), "leg_" + s, (0.25, 0.0, 0.5, 0.5))
        sx = SIDE_SIGN[s] * 0.10
        m.capsule([(sx, 0.05, 0.05), (sx, -0.08, 0.045), (sx, -0.19, 0.035)],
                  [(0.045, 0.045), (0.05, 0.04), (0.045, 0.028)], 10, (1, 0, 0), "foot_" + s,
                  (0.5, 0.25, 1.0, 0.5), spacing=0.025)
    if detailed:
        add_detailed_parts(m)
    return m


def add_detailed_parts(m):
    """--detailed: 5 three-segment fingers per hand (instead of the index/thumb tubes) and two eyes."""
    for s in ("l", "r"):
        for finger in FINGER_NAMES:
            pts = finger_chain(s, finger)
            d = (pts[1] - pts[0]).normalized()
            r = {"thumb": 0.0095, "pinky": 0.0065}.get(finger, 0.0075)
            # rx across the palm (Y) for the fingers; the thumb lies flatter against the hand
            m.capsule([pts[0] - d * 0.008] + pts[1:],
                      [(r, 0.9 * r), (0.95 * r, 0.85 * r), (0.9 * r, 0.8 * r), (0.8 * r, 0.7 * r)],
                      6, (0, 1, 0) if finger != "thumb" else (0, 0, 1), "finger_%s_%s" % (finger, s),
                      (0.75, 0.0, 1.0, 0.25), spacing=0.012, caps=(None, "round"))
        # eyeballs stick out of the head (its surface is at y = -0.111 there) by ~5 mm
        m.ellipsoid((SIDE_SIGN[s] * 0.035, -0.100, 1.71), (0.016, 0.016, 0.016), 8, 6, "eye_" + s,
                    (0.9, 0.9, 0.95, 0.95))


def build_cape():
    """A curved sheet hanging behind the back from the shoulders to below the hips."""
    m = MeshBuilder()
    nu, nv = 9, 16
    for i in range(nv):
        v = i / (nv - 1)
        z = 1.43 - 0.71 * v
        half_w = 0.17 + 0.10 * v
        for j in range(nu):
            u = j / (nu - 1)
            x = (2 * u - 1) * half_w
            # bulge outwards in the middle (wraps around the back), drifting back towards the hem
            y = 0.125 + 0.08 * v + 0.035 * (1 - (2 * u - 1) ** 2)
            m.verts.append(Vector((x, y, z)))
            m.part.append(("cape", v))

    def uv(i, j):   # u mirrored so that the texture reads left-to-right seen from behind
        return (0.75 + 0.25 * (1 - j / (nu - 1)), 0.5 * (1 - i / (nv - 1)))

    for i in range(nv - 1):
        for j in range(nu - 1):
            a = i * nu + j
            # +x then down: the face normal points backwards (+Y), away from the body
            m.faces.append((a, a + 1, a + nu + 1, a + nu))
            m.uvs.append((uv(i, j), uv(i, j + 1), uv(i + 1, j + 1), uv(i + 1, j)))
    return m


def build_sword():
    """Sword in its own frame: origin at the grip centre, blade along -Y (forward)."""
    m = MeshBuilder()
    m.capsule([(0, 0.06, 0), (0, -0.04, 0)], [(0.016, 0.016), (0.016, 0.016)], 8, (1, 0, 0), "grip",
              (0.0, 0.0, 0.2, 1.0), spacing=0.02, caps=("flat", "flat"))
    m.ellipsoid((0, 0.075, 0), (0.025, 0.025, 0.025), 8, 6, "pommel", (0.2, 0.0, 0.4, 1.0))
    m.box((0, -0.05, 0), (0.16, 0.022, 0.03), "guard", (0.4, 0.0, 0.6, 1.0))
    # Diamond cross-section blade (4 around: edges at +-X, flats at +-Z), pointed tip.
    m.capsule([(0, -0.06, 0), (0, -0.58, 0), (0, -0.66, 0)], [(0.024, 0.007), (0.022, 0.006), (0.012, 0.004)],
              4, (1, 0, 0), "blade", (0.6, 0.0, 1.0, 1.0), spacing=0.06, caps=("flat", "point"))
    return m


# --------------------------------------------------------------------------------------- weights
# Candidate bones and falloff width sigma (metres) per body part. A vertex's weight for bone b is
# exp(-((d_b - d_min) / sigma)^2), d_b = distance to the bone segment: equal distances give equal
# weights (joints blend 50/50). Around the pelvis / lower spine sigma widens on purpose, so that
# up to 6 bones get a non-zero weight there (what does a 4-influence runtime do with them?).
def torso_sigma(co):
    return 0.03 + 0.06 * math.exp(-((co.z - 1.02) / 0.06) ** 2)


CENTRE_RULES = {
    "torso": (["pelvis", "spine_01", "spine_02", "chest", "neck", "head", "thigh_l", "thigh_r",
               "clavicle_l", "clavicle_r"], torso_sigma),
    "head": (["neck", "head"], 0.03),
    "nose": (["head"], 1.0),
}
# Limb parts are named "<kind>_<side>"; a candidate ending in "_" gets the side appended.
LIMB_RULES = {
    "arm": (["chest", "clavicle_", "upperarm_", "lowerarm_", "hand_"], 0.035),
    "hand": (["lowerarm_", "hand_", "index_", "thumb_"], 0.015),
    "index": (["hand_", "index_"], 0.012),
    "thumb": (["hand_", "thumb_"], 0.012),
    "leg": (["pelvis", "thigh_", "calf_", "foot_"], 0.04),
    "foot": (["calf_", "foot_", "ball_"], 0.03),
}


# --detailed: the same rules with neck_02 and the five fingers; the twist bones and the jaw take a
# share of their parent bone's weight afterwards (detailed_weights).
DETAILED_CENTRE_RULES = dict(CENTRE_RULES, **{
    "torso": (CENTRE_RULES["torso"][0] + ["neck_02"], torso_sigma),
    "head": (["neck_02", "head"], 0.03),
    "eye_l": (["eye_l"], 1.0),
    "eye_r": (["eye_r"], 1.0),
})
DETAILED_LIMB_RULES = dict(LIMB_RULES, **{
    "hand": (["lowerarm_", "hand_"] + [f + "_01_" for f in FINGER_NAMES], 0.012),
}, **{"finger_" + f: (["hand_"] + ["%s_%02d_" % (f, k) for k in (1, 2, 3)], 0.005) for f in FINGER_NAMES})


def body_weight_rules(part, detailed=False):
    centre, limb = (DETAILED_CENTRE_RULES, DETAILED_LIMB_RULES) if detailed else (CENTRE_RULES, LIMB_RULES)
    if part in centre:
        return centre[part]
    kind, side = part[:-2], part[-1]
    bones, sigma = limb[kind]
    return [b + side if b.endswith("_") else b for b in bones], sigma


def segment_param(p, a, b):
    ab = b - a
    return min(1.0, max(0.0, (p - a).dot(ab) / ab.length_squared))


def detailed_weights(co, w, segments):
    """--detailed: hand part of a twisted bone's weight to its twist bone (0 % at the bone's upper
    third, 100 % at its lower end, smooth in between), and of the head's weight around the chin to
    the jaw."""
    out = {}
    for b, x in w.items():
        base, _sep, side = b.rpartition("_")
        if base in TWISTED:
            f = smoothstep(0.3, 1.0, segment_param(co, *segments[b]))
            out[b] = out.get(b, 0.0) + x * (1.0 - f)
            out[base + "_twist_" + side] = x * f
        elif b == "head":
            f = smoothstep(1.665, 1.625, co.z) * smoothstep(-0.03, -0.07, co.y)
            out[b] = out.get(b, 0.0) + x * (1.0 - f)
            out["jaw"] = x * f
        else:
            out[b] = out.get(b, 0.0) + x
    return normalised(out)


def distance_weights(co, segments, candidates, sigma, prune=0.01):
    d = {b: segment_distance(co, *segments[b]) for b in candidates}
    dmin = min(d.values())
    s = sigma(co) if callable(sigma) else sigma
    w = {b: math.exp(-((db - dmin) / s) ** 2) for b, db in d.items()}
    return normalised(w, prune)


def normalised(w, prune=0.01):
    """Drop weights below `prune` of the total, then rescale the rest to sum to 1."""
    total = sum(w.values())
    w = {b: x / total for b, x in w.items() if x / total >= prune}
    total = sum(w.values())
    return {b: x / total for b, x in w.items()}


def cape_weights(v):
    """Hem parameter v (0 at the shoulders, 1 at the hem): chest -> cape_01 -> cape_02, smoothly."""
    knots = [("chest", 0.0), ("cape_01", 0.4), ("cape_02", 0.85)]
    for (b0, v0), (b1, v1) in zip(knots, knots[1:]):
        if v < v1:
            f = smoothstep(v0, v1, v)
            return {b: w for b, w in ((b0, 1.0 - f), (b1, f)) if w > 0.0}
    return {knots[-1][0]: 1.0}


def apply_weights(obj, weights):
    for i, w in enumerate(weights):
        for b, x in w.items():
            vg = obj.vertex_groups.get(b) or obj.vertex_groups.new(name=b)
            vg.add([i], x, "REPLACE")


def skin(obj, armature):
    obj.parent = armature
    mod = obj.modifiers.new("Armature", "ARMATURE")
    mod.object = armature


# --------------------------------------------------------------------------------------- textures
def diffuse_pixels(size=256):
    """8x8 checker tinted by a U (red) / V (green) gradient, dark cell borders, a white band at the top
    (v close to 1), so that both UV orientation and flips are visible."""
    t = (np.arange(size) + 0.5) / size
    u, v = np.meshgrid(t, t)              # row index = v (Blender's pixel rows start at the bottom)
    light = np.stack([0.45 + 0.5 * u, 0.45 + 0.5 * v, np.full_like(u, 0.7)], axis=-1)
    cell = (np.floor(u * 8) + np.floor(v * 8)) % 2
    rgb = light * np.where(cell[..., None] > 0, 0.55, 1.0)
    border = (np.minimum((u * 8) % 1.0, (v * 8) % 1.0) < 0.06)
    rgb[border] *= 0.35
    rgb[v > 0.96] = 1.0
    return np.concatenate([rgb, np.ones_like(u)[..., None]], axis=-1)


def normal_pixels(size=128, cells=4):
    """Tangent-space normal map (+X right/u, +Y up/v, +Z out) of a grid of round bumps."""
    t = (np.arange(size) + 0.5) / size
    u, v = np.meshgrid(t, t)
    fu, fv = (u * cells) % 1.0 - 0.5, (v * cells) % 1.0 - 0.5
    r2 = (fu * fu + fv * fv) / 0.16      # bump radius 0.4 cell
    h = np.where(r2 < 1.0, (1.0 - r2) ** 2, 0.0) * 0.08     # height, in cell widths
    dhdu = np.gradient(h, axis=1) * (size / cells)            # slope per cell width
    dhdv = np.gradient(h, axis=0) * (size / cells)
    n = np.stack([-dhdu, -dhdv, np.ones_like(h)], axis=-1)
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    return np.concatenate([n * 0.5 + 0.5, np.ones_like(h)[..., None]], axis=-1)


def save_png(path, pixels, non_color):
    size = pixels.shape[0]
    img = bpy.data.images.new(os.path.basename(path), size, size, alpha=False)
    if non_color:
        img.colorspace_settings.name = "Non-Color"
    # byte images store these values as-is (value * 255), no colour transform
    img.pixels.foreach_set(pixels.astype(np.float32).ravel())
    img.filepath_raw = path
    img.file_format = "PNG"
    img.save()
    img.filepath = path   # the exporters reference this file
    return img


def build_materials(out_dir, name=NAME):
    diffuse = save_png(os.path.join(out_dir, name + "_diffuse.png"), diffuse_pixels(), non_color=False)
    normal = save_png(os.path.join(out_dir, name + "_normal.png"), normal_pixels(), non_color=True)

    skin_mat = bpy.data.materials.new("OssaSkin")
    skin_mat.use_nodes = True
    skin_mat.use_backface_culling = False   # the cape is a single sheet (glTF: doubleSided)
    nt = skin_mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = 0.6
    tex = nt.nodes.new("ShaderNodeTexImage")
    tex.image = diffuse
    tex.location = (-500, 300)
    nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    ntex = nt.nodes.new("ShaderNodeTexImage")
    ntex.image = normal
    ntex.location = (-700, -200)
    nmap = nt.nodes.new("ShaderNodeNormalMap")
    nmap.location = (-350, -200)
    nt.links.new(ntex.outputs["Color"], nmap.inputs["Color"])
    nt.links.new(nmap.outputs["Normal"], bsdf.inputs["Normal"])

    steel = bpy.data.materials.new("OssaSteel")
    steel.use_nodes = True
    sb = steel.node_tree.nodes["Principled BSDF"]
    sb.inputs["Base Color"].default_value = (0.62, 0.64, 0.68, 1.0)
    sb.inputs["Metallic"].default_value = 0.9
    sb.inputs["Roughness"].default_value = 0.3
    return skin_mat, steel


# --------------------------------------------------------------------------------------- animation
class Pose:
    """Pose of the armature at one instant, authored with armature-space axes.

    turn(bone, axis, deg) rotates `bone` about `axis` given in armature rest space (x: the
    character's left, y: backwards, z: up), relative to its parent; a later turn is applied on top
    of earlier ones. The axis is converted to the bone's local frame and kept as axis-angle, so a
    large turn keeps its sense (a matrix round trip would fold angles > 180 degrees).
    """

    def __init__(self, rest):
        self.rest = rest
        self.rot, self.loc, self.scl = {}, {}, {}
        self.detailed = "index_01_l" in rest    # the --detailed skeleton (five 3-bone fingers)

    def turn(self, bone, axis, degrees):
        local_axis = self.rest[bone].transposed() @ Vector(axis).normalized()
        q = Quaternion(local_axis, math.radians(degrees))
        self.rot[bone] = q @ self.rot.get(bone, Quaternion())
        return self

    def move(self, bone, offset):
        self.loc[bone] = self.loc.get(bone, Vector()) + self.rest[bone].transposed() @ Vector(offset)
        return self

    def scale(self, bone, s):
        self.scl[bone] = Vector(s)
        return self

    def twist(self, bone, degrees):
        """Turn about the bone's own length (its local Y axis)."""
        self.rot[bone] = Quaternion((0, 1, 0), math.radians(degrees)) @ self.rot.get(bone, Quaternion())
        return self


def elbow_axis(side):
    """Axis about which a positive turn swings the forearm/hand forward (-Y)."""
    return ARM_DIR[side].cross(Vector((0, -1, 0))).normalized()


def relaxed(p, arm_drop=25.0, elbow=12.0):
    """Shared base pose: arms lowered from the A-pose, elbows and fingers slightly bent."""
    for s in ("l", "r"):
        p.turn("upperarm_" + s, (0, 1, 0), SIDE_SIGN[s] * arm_drop)
        p.turn("lowerarm_" + s, elbow_axis(s), elbow)
        if p.detailed:
            curl(p, s, 12.0)
            continue
        p.turn("index_" + s, (0, 1, 0), SIDE_SIGN[s] * 12.0)
        p.turn("thumb_" + s, (0, 0, 1), -SIDE_SIGN[s] * 10.0)
    return p


# --------------------------------------------------------------------------------------- --detailed animation
def curl(p, side, degrees, fingers=None, spread=1.0):
    """Bend the phalanges of the detailed hand towards the palm (negative: open past straight).
    The knuckle takes `spread` times the angle, the outer joints 1.2x and 0.8x of it."""
    axis = Vector((0, SIDE_SIGN[side], 0))        # = finger direction x palm_in(side)
    thumb_axis = thumb_dir(side).cross((palm_in(side) + Vector((0, 0.6, 0))).normalized()).normalized()
    for f in fingers or FINGER_NAMES:
        ax = thumb_axis if f == "thumb" else axis
        for k, share in ((1, spread), (2, 1.2), (3, 0.8)):
            p.turn("%s_%02d_%s" % (f, k, side), ax, degrees * share * (0.6 if f == "thumb" else 1.0))


def detail_idle(p, t, duration):
    ph = 2.0 * math.pi * t / duration
    for s in ("l", "r"):
        curl(p, s, 5.0 * math.sin(ph + (0.0 if s == "l" else 1.0)))   # fingers breathe too
        p.twist("lowerarm_twist_" + s, 6.0 * math.sin(ph))
    p.turn("neck_02", (0, 0, 1), 2.0 * math.sin(ph))
    p.turn("jaw", (1, 0, 0), 3.0 * (1.0 - math.cos(ph)))      # mouth opens on the in-breath
    for s in ("l", "r"):
        p.turn("eye_" + s, (0, 0, 1), 12.0 * math.sin(ph + 0.8))  # the eyes lead the head
        p.turn("eye_" + s, (1, 0, 0), 4.0 * math.sin(2.0 * ph))


def detail_walk(p, t, duration):
    ph = 2.0 * math.pi * t / duration
    for s, off in (("l", 0.0), ("r", math.pi)):
        a = ph + off
        curl(p, s, 10.0 + 8.0 * math.sin(a))                    # loose fists swing with the arms
        p.twist("upperarm_twist_" + s, SIDE_SIGN[s] * 8.0 * math.sin(a))
        p.twist("lowerarm_twist_" + s, SIDE_SIGN[s] * 15.0 * math.sin(a))
        p.twist("thigh_twist_" + s, SIDE_SIGN[s] * 6.0 * math.sin(a))
        p.twist("calf_twist_" + s, SIDE_SIGN[s] * 4.0 * math.sin(a))
    p.turn("jaw", (1, 0, 0), 2.0)
    p.turn("neck_02", (1, 0, 0), -2.0)                            # head up against the forward lean


def detail_wave(p, t, duration):
    up = smoothstep(0.0, 0.35, t) * (1.0 - smoothstep(1.15, duration, t))
    wave = math.sin(2.0 * math.pi * 3.0 * (t - 0.35) / 0.8) if 0.35 <= t <= 1.15 else 0.0
    curl(p, "r", -14.0 * up, spread=1.0)                          # open hand while waving
    for k, f in enumerate(FINGERS):                               # fingers wiggle one after the other
        ph = 2.0 * math.pi * 3.0 * (t - 0.35) / 0.8 - 0.7 * k
        curl(p, "r", up * 6.0 * (1.0 + math.sin(ph)), fingers=[f[0]])
    p.twist("lowerarm_twist_r", -15.0 * up + 8.0 * up * wave)
    p.twist("upperarm_twist_r", -10.0 * up)
    p.turn("jaw", (1, 0, 0), 8.0 * up)                            # "hello!"
    for s in ("l", "r"):
        p.turn("eye_" + s, (0, 0, 1), -10.0 * up)


def detail_turn(p, t, duration):
    s_ = math.sin(math.pi * t / duration)
    for s in ("l", "r"):
        curl(p, s, -16.0 * s_)                                    # hands open as the arms fly out
        p.twist("upperarm_twist_" + s, SIDE_SIGN[s] * 15.0 * s_)
        p.twist("thigh_twist_" + s, -SIDE_SIGN[s] * 5.0 * s_)
        p.turn("eye_" + s, (0, 0, 1), 20.0 * s_)                  # looking where it turns to
    p.turn("jaw", (1, 0, 0), 10.0 * s_)
    p.turn("neck_02", (0, 0, 1), -8.0 * s_)


DETAIL_FNS = {"Idle": detail_idle, "Walk": detail_walk, "Wave": detail_wave, "Turn": detail_turn}


def pose_idle(p, t, duration=2.0):
    ph = 2.0 * math.pi * t / duration
    relaxed(p, arm_drop=25.0 + 2.0 * math.sin(ph))
    p.move("pelvis", (0, 0, 0.004 * (math.cos(ph) - 1.0)))
    p.turn("spine_01", (1, 0, 0), 1.0 * math.sin(ph))
    p.turn("chest", (1, 0, 0), -1.5 * math.sin(ph))           # chest opens on the in-breath
    p.turn("head", (0, 0, 1), 6.0 * math.sin(ph))              # slow look around
    p.turn("head", (1, 0, 0), 2.0 * math.sin(2.0 * ph))
    p.turn("cape_01", (1, 0, 0), 3.0 + 2.0 * math.sin(ph - 0.6))
    p.turn("cape_02", (1, 0, 0), 2.0 + 2.0 * math.sin(ph - 1.2))


def pose_walk(p, t, duration=1.0):
    ph = 2.0 * math.pi * t / duration
    relaxed(p, arm_drop=28.0, elbow=15.0)
    for s, off in (("l", 0.0), ("r", math.pi)):
        a = ph + off
        thigh = -25.0 * math.sin(a)                     # negative: the leg swings forwards
        knee = 5.0 + 40.0 * max(0.0, math.cos(a)) ** 2  # bent while the leg swings through
        p.turn("thigh_" + s, (1, 0, 0), thigh)
        p.turn("calf_" + s, (1, 0, 0), knee)
        p.turn("foot_" + s, (1, 0, 0), -0.8 * (thigh + knee))
        p.turn("ball_" + s, (1, 0, 0), -10.0 * max(0.0, -math.sin(a)) ** 2)
        # arms swing against the legs
        p.turn("upperarm_" + s, (1, 0, 0), 20.0 * math.sin(a))
        p.turn("lowerarm_" + s, elbow_axis(s), 10.0 * max(0.0, -math.sin(a)))
    p.move("pelvis", (0, 0, -0.025 * math.sin(ph) ** 2))       # lowest with the legs apart
    p.turn("pelvis", (0, 0, 1), -6.0 * math.sin(ph))           # hips follow the leading leg
    p.turn("spine_01", (1, 0, 0), 4.0)                          # slight forward lean
    p.turn("chest", (0, 0, 1), 5.0 * math.sin(ph))             # shoulders counter-rotate
    p.turn("head", (0, 0, 1), 1.0 * math.sin(ph))
    p.turn("cape_01", (1, 0, 0), 14.0 + 4.0 * math.sin(2.0 * ph))
    p.turn("cape_02", (1, 0, 0), 8.0 + 5.0 * math.sin(2.0 * ph - 1.0))


# Frame of the exact (1.2, 0.8, 1.0) head scale: t = 0.7333 s, where the oracle's 0.5 fraction of
# the 1.5 s clip lands after snapping to the frame grid, so the goldens sample it.
SQUASH_FRAME = 22


def pose_wave(p, t, duration=1.5):
    up = smoothstep(0.0, 0.35, t) * (1.0 - smoothstep(1.15, duration, t))   # raise, wave, lower
    relaxed(p)
    p.turn("upperarm_r", (0, 1, 0), 135.0 * up)                 # from hanging to 70 deg above horizontal
    wave = math.sin(2.0 * math.pi * 3.0 * (t - 0.35) / 0.8) if 0.35 <= t <= 1.15 else 0.0
    p.turn("lowerarm_r", (0, 1, 0), up * (35.0 + 25.0 * wave))
    p.turn("hand_r", (0, 1, 0), up * 15.0 * wave)
    p.turn("spine_02", (0, 1, 0), 5.0 * up)                     # lean away from the raised arm
    p.turn("head", (0, 1, 0), -8.0 * up)
    # Squash-stretch of the head: non-uniform scale (1.2, 0.8, 1.0) exactly at SQUASH_FRAME.
    f = t * FPS
    b = math.cos(math.pi * (f - SQUASH_FRAME) / 18.0) ** 2 if abs(f - SQUASH_FRAME) <= 9.0 else 0.0
    p.scale("head", (1.0 + 0.2 * b, 1.0 - 0.2 * b, 1.0))


def pose_turn(p, t, duration=1.2):
    x = t / duration
    s = math.sin(math.pi * x)                  # 0 at both ends, 1 in the middle
    p.turn("root", (0, 0, 1), 360.0 * smoothstep(0.0, 1.0, x))  # full turn, counter-clockwise from above
    relaxed(p, arm_drop=25.0 - 45.0 * s)       # arms fly out
    for side in ("l", "r"):
        p.turn("thigh_" + side, (1, 0, 0), -12.0 * s)
        p.turn("calf_" + side, (1, 0, 0), 24.0 * s)
        p.turn("foot_" + side, (1, 0, 0), -12.0 * s)
    p.move("pelvis", (0, 0, -0.03 * s))
    p.turn("head", (0, 0, 1), -15.0 * s)       # the head lags behind
    p.turn("cape_01", (1, 0, 0), 45.0 * s)     # the cape flares
    p.turn("cape_02", (1, 0, 0), 20.0 * s)


CLIPS = [("Idle", 2.0, pose_idle), ("Walk", 1.0, pose_walk), ("Wave", 1.5, pose_wave), ("Turn", 1.2, pose_turn)]


def bake_action(armature, name, duration, pose_fn, extra_fn=None):
    """Key every bone on every frame 0..duration*FPS (LINEAR); channels that never change get only
    a first and a last key. All bones are keyed so that no clip inherits another clip's pose.
    extra_fn (--detailed) adds to the pose made by pose_fn."""
    rest = {b.name: b.matrix_local.to_3x3() for b in armature.data.bones}
    n = int(round(duration * FPS))
    frames = list(range(n + 1))
    tracks = {b: {"location": [], "rotation_quaternion": [], "scale": []} for b in rest}
    for f in frames:
        p = Pose(rest)
        pose_fn(p, f / FPS, duration)
        if extra_fn:
            extra_fn(p, f / FPS, duration)
        for b, tr in tracks.items():
            q = p.rot.get(b, Quaternion())
            prev = tr["rotation_quaternion"][-1] if tr["rotation_quaternion"] else None
            if prev is not None and prev.dot(q) < 0.0:
                q = -q   # keep consecutive keys in the same hemisphere (component-wise interpolation)
            tr["location"].append(p.loc.get(b, Vector()))
            tr["rotation_quaternion"].append(q)
            tr["scale"].append(p.scl.get(b, Vector((1, 1, 1))))

    act = bpy.data.actions.new(name)
    act.id_root = "OBJECT"
    for b, tr in tracks.items():
        for prop, values in tr.items():
            path = 'pose.bones["%s"].%s' % (b, prop)
            for i in range(len(values[0])):
                comp = [float(v[i]) for v in values]
                if max(comp) - min(comp) < 1e-9:
                    keys = [(frames[0], comp[0]), (frames[-1], comp[0])]
                else:
                    keys = list(zip(frames, comp))
                fc = act.fcurves.new(path, index=i, action_group=b)
                fc.keyframe_points.add(len(keys))
                fc.keyframe_points.foreach_set("co", [x for k in keys for x in k])
                for kp in fc.keyframe_points:
                    kp.interpolation = "LINEAR"
                fc.update()
    # Explicit range: both exporters take each clip's length from it.
    act.use_frame_range = True
    act.frame_start, act.frame_end = frames[0], frames[-1]
    act.use_fake_user = True
    return act


# --------------------------------------------------------------------------------------- export
def export_fbx(path, textures=True, object_types=("ARMATURE", "MESH"), all_actions=True):
    res = bpy.ops.export_scene.fbx(
        filepath=path, check_existing=False, use_selection=False,
        object_types=set(object_types),
        global_scale=1.0, apply_unit_scale=True, apply_scale_options="FBX_SCALE_NONE",
        axis_forward="-Z", axis_up="Y", bake_space_transform=False,
        use_mesh_modifiers=False, mesh_smooth_type="FACE", use_tspace=False,
        add_leaf_bones=False, primary_bone_axis="Y", secondary_bone_axis="X",
        use_armature_deform_only=False, armature_nodetype="NULL",
        bake_anim=True, bake_anim_use_all_bones=True, bake_anim_use_nla_strips=False,
        bake_anim_use_all_actions=all_actions, bake_anim_force_startend_keying=True,
        bake_anim_step=1.0, bake_anim_simplify_factor=0.0,   # every frame: the 360 degree turn stays exact
        path_mode="RELATIVE" if textures else "STRIP", embed_textures=False, batch_mode="OFF")
    if "FINISHED" not in res:
        raise RuntimeError("FBX export failed: %r" % (res,))


def export_glb(path, morph=False):
    res = bpy.ops.export_scene.gltf(
        filepath=path, check_existing=False, export_format="GLB", use_selection=False,
        export_yup=True, export_apply=False, export_texcoords=True, export_normals=True,
        export_tangents=False, export_materials="EXPORT", export_image_format="AUTO",
        export_skins=True, export_all_influences=True,     # keep the > 4 influences of Body
        export_def_bones=False, export_animations=True, export_frame_range=False,
        export_frame_step=1, export_force_sampling=True, export_nla_strips=True,
        export_anim_single_armature=True,                  # every armature action -> one animation
        export_reset_pose_bones=True, export_optimize_animation_size=False,
        export_current_frame=False, export_morph=morph, export_morph_normal=morph, export_morph_tangent=False)
    if "FINISHED" not in res:
        raise RuntimeError("glTF export failed: %r" % (res,))


def export_dae(path):
    """COLLADA 1.4.1 with Blender's exporter: all actions (one <animation_clip> each, sampled on
    every frame, 4x4 matrix channels), Z_UP, metres, textures referenced by relative path."""
    res = bpy.ops.wm.collada_export(
        filepath=path, check_existing=False, selected=False, include_children=False,
        include_armatures=True, include_shapekeys=False, deform_bones_only=False,
        apply_modifiers=False, export_global_forward_selection="Y", export_global_up_selection="Z",
        apply_global_orientation=False,
        include_animations=True, include_all_actions=True, export_animation_type_selection="sample",
        sampling_rate=1, keep_smooth_curves=False, keep_keyframes=False, keep_flat_curves=True,
        active_uv_only=False, use_texture_copies=True, triangulate=True, use_object_instantiation=True,
        use_blender_profile=True, sort_by_name=False,
        export_object_transformation_type_selection="matrix",
        export_animation_transformation_type_selection="matrix",
        open_sim=False, limit_precision=False, keep_bind_info=False)
    if "FINISHED" not in res:
        raise RuntimeError("COLLADA export failed: %r" % (res,))


def run_oracle(oracle, model, out_json, max_verts=ORACLE_MAX_VERTS):
    cmd = [bpy.app.binary_path, "-b", "--factory-startup", "--python-exit-code", "1", "--python", oracle,
           "--", model, out_json, "--max-verts", max_verts, "--extra-times", ORACLE_EXTRA_TIMES]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ok = False
    if os.path.exists(out_json):
        with open(out_json) as f:
            ok = json.load(f).get("ok") is True
    if proc.returncode != 0 or not ok:
        sys.stdout.write(proc.stdout[-4000:])
        raise RuntimeError("oracle failed on %s (exit %d, ok=%s)" % (model, proc.returncode, ok))
    print("golden:", out_json)


# --------------------------------------------------------------------------------------- --face
# A small separate character for morph targets: a head on a neck, skinned to three bones, with three shape
# keys driven by custom properties of the armature object ("smile", "blink", "jaw_open_fix") that the clips
# key. Both exporters bake drivers into every armature action: the FBX exporter evaluates every shape key's
# value on every frame of each take (DeformPercent curves), the glTF exporter samples shape-key drivers that
# read the armature into each animation's `weights` channel. A plain shape-key action (id_root KEY) would
# not follow the armature's actions in either exporter.
FACE_NAME = "ossa_face"
FACE_ORACLE_MAX_VERTS = "450"
FACE_HEAD_CENTRE = Vector((0.0, 0.0, 0.21))
FACE_HEAD_RADII = (0.075, 0.09, 0.11)          # x (width), y (depth), z (height)
FACE_LAYOUT = [  # name, head, tail, parent, deform
    ("neck", Vector((0, 0, 0.0)), Vector((0, 0, 0.11)), None, True),
    ("head", Vector((0, 0, 0.11)), Vector((0, 0, 0.33)), "neck", True),
    ("jaw", Vector((0, -0.01, 0.165)), Vector((0, -0.075, 0.125)), "head", True),
]
# Shape keys: (name, [(centre on the front of the head, radius, displacement)]); each displacement fades
# as (1 - (d / r)^2)^2 with the distance d to its centre and is exactly zero beyond r (sparse targets).
FACE_KEYS = [
    ("smile", [((sx * 0.03, 0.155), 0.04, (sx * 0.008, 0.004, 0.012)) for sx in (-1.0, 1.0)]),
    ("blink", [((sx * 0.03, 0.225), 0.03, (0.0, 0.003, -0.010)) for sx in (-1.0, 1.0)]),
    ("jaw_open_fix", [((0.0, 0.135), 0.045, (0.0, -0.010, 0.005))]),
]
FACE_TALK_S, FACE_LOOK_S = 1.5, 1.0


def face_front(x, z):
    """Point of the head's ellipsoid at (x, z) on its front (-Y) side."""
    (rx, ry, rz), c = FACE_HEAD_RADII, FACE_HEAD_CENTRE
    s = max(0.0, 1.0 - (x / rx) ** 2 - ((z - c.z) / rz) ** 2)
    return Vector((x, c.y - ry * math.sqrt(s), z))


def face_key_offsets(co):
    """Per shape key, the displacement of a rest vertex `co` (exact zero vectors outside every region)."""
    out = []
    for _name, regions in FACE_KEYS:
        d = Vector()
        for (x, z), r, disp in regions:
            q = (co - face_front(x, z)).length / r
            if q < 1.0:
                d += Vector(disp) * (1.0 - q * q) ** 2
        out.append(d)
    return out


def face_weights(co, part):
    """neck / head / jaw weights: the neck tube blends into the head, the lower front of the head follows
    the jaw (up to 3 influences where they meet)."""
    if part == "neck":
        h = smoothstep(0.07, 0.13, co.z)
        return normalised({"neck": 1.0 - h, "head": h})
    neck = 1.0 - smoothstep(0.10, 0.14, co.z)
    jaw = (1.0 - smoothstep(0.15, 0.18, co.z)) * smoothstep(0.0, -0.05, co.y)
    return normalised({"neck": neck, "jaw": jaw * (1.0 - neck), "head": (1.0 - jaw) * (1.0 - neck)})


def face_talk(t):
    """Talk: (jaw opening 0..1, smile, blink); every weight starts and ends at 0 (the clip loops)."""
    jaw = math.sin(2.0 * math.pi * t / FACE_TALK_S) ** 2
    smile = min(1.0, t / 0.5) if t < 1.0 else max(0.0, (FACE_TALK_S - t) / 0.5)
    blink = max(0.0, 1.0 - abs(t - 0.7) / 0.1)    # one blink, closed at 0.7 s
    return jaw, smile, blink


def face_pose_talk(p, t, duration):
    ph = 2.0 * math.pi * t / duration
    jaw, _smile, _blink = face_talk(t)
    p.turn("jaw", (1, 0, 0), 20.0 * jaw)
    p.turn("head", (1, 0, 0), 6.0 * math.sin(ph))          # nods while talking
    p.turn("neck", (0, 0, 1), 8.0 * math.sin(ph))


def face_pose_look(p, t, duration):
    """Turns left and right, the jaw still; no shape-key keys in this clip."""
    ph = 2.0 * math.pi * t / duration
    p.turn("neck", (0, 0, 1), 25.0 * math.sin(ph))
    p.turn("head", (0, 1, 0), 10.0 * math.sin(ph))
    p.move("neck", (0.0, 0.01 * math.sin(ph), 0.0))


def key_face_weights(action, duration):
    """Key the armature's shape-key properties (Talk's weights) in `action` on every frame (LINEAR)."""
    n = int(round(duration * FPS))
    talk_index = {"jaw_open_fix": 0, "smile": 1, "blink": 2}   # face_talk() returns (jaw, smile, blink)
    for prop, _regions in FACE_KEYS:
        keys = [(f, face_talk(f / FPS)[talk_index[prop]]) for f in range(n + 1)]
        fc = action.fcurves.new('["%s"]' % prop, action_group="shape keys")
        fc.keyframe_points.add(len(keys))
        fc.keyframe_points.foreach_set("co", [x for k in keys for x in k])
        for kp in fc.keyframe_points:
            kp.interpolation = "LINEAR"
        fc.update()


def build_face(out_dir, golden_dir, oracle, step=False):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = FPS, 1.0
    scene.unit_settings.system, scene.unit_settings.scale_length = "METRIC", 1.0

    armature = build_armature(FACE_LAYOUT)
    armature.name = armature.data.name = "FaceRig"
    mat = bpy.data.materials.new("OssaFaceSkin")
    mat.use_nodes = True
    mat.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.8, 0.6, 0.5, 1.0)

    mb = MeshBuilder()
    mb.ellipsoid(FACE_HEAD_CENTRE, FACE_HEAD_RADII, 36, 24, "head", (0, 0.25, 1, 1))
    mb.capsule([(0, 0, 0.0), (0, 0, 0.14)], [(0.045, 0.05), (0.045, 0.05)], 16, (1, 0, 0), "neck",
               (0, 0, 1, 0.25), spacing=0.03, caps=(None, None))
    face = mb.to_object("Face", mat)
    apply_weights(face, [face_weights(co, part) for co, part in zip(mb.verts, mb.part)])
    skin(face, armature)

    face.shape_key_add(name="Basis", from_mix=False)
    for k, (name, _regions) in enumerate(FACE_KEYS):
        kb = face.shape_key_add(name=name, from_mix=False)
        for v, co in zip(kb.data, mb.verts):
            v.co = co + face_key_offsets(co)[k]
        armature[name] = 0.0
        fcurve = kb.driver_add("value")
        if step:  # the default Generator modifier and no keys: the glTF exporter writes STEP
            drv = fcurve.driver
            drv.type = "AVERAGE"
            var = drv.variables.new()
            var.type = "SINGLE_PROP"
            var.targets[0].id_type = "OBJECT"
            var.targets[0].id = armature
            var.targets[0].data_path = '["%s"]' % name
            continue
        # An identity mapping as two LINEAR keys instead of the default Generator modifier: Blender 3.4's
        # glTF exporter writes a driver channel whose F-curve has fewer than 2 keys as STEP (which assimp
        # 5.2.5 reads as linear); with keys, as LINEAR.
        for mod in list(fcurve.modifiers):
            fcurve.modifiers.remove(mod)
        fcurve.keyframe_points.add(2)
        fcurve.keyframe_points.foreach_set("co", [0.0, 0.0, 1.0, 1.0])
        for kp in fcurve.keyframe_points:
            kp.interpolation = "LINEAR"
        fcurve.update()
        drv = fcurve.driver
        drv.type = "AVERAGE"
        var = drv.variables.new()
        var.type = "SINGLE_PROP"
        var.targets[0].id_type = "OBJECT"
        var.targets[0].id = armature
        var.targets[0].data_path = '["%s"]' % name

    armature.animation_data_create()
    talk = bake_action(armature, "Talk", FACE_TALK_S, face_pose_talk)
    key_face_weights(talk, FACE_TALK_S)
    bake_action(armature, "Look", FACE_LOOK_S, face_pose_look)
    armature.animation_data.action = None
    for name, _r in FACE_KEYS:
        armature[name] = 0.0
    scene.frame_start, scene.frame_end = 0, int(round(FACE_TALK_S * FPS))
    scene.frame_set(0)

    face_name = FACE_NAME + ("_step" if step else "")
    fbx_path = os.path.join(out_dir, face_name + ".fbx")
    glb_path = os.path.join(out_dir, face_name + ".glb")
    export_fbx(fbx_path)
    export_glb(glb_path, morph=True)
    print("bones (%d): %s" % (len(armature.data.bones), ", ".join(b.name for b in armature.data.bones)))
    moved = [sum(1 for co in mb.verts if face_key_offsets(co)[k].length > 0) for k in range(len(FACE_KEYS))]
    print("mesh Face: %d vertices, %d faces; shape keys %s move %s vertices"
          % (len(face.data.vertices), len(face.data.polygons), [k[0] for k in FACE_KEYS], moved))
    for p in (fbx_path, glb_path):
        print("wrote %s (%d bytes)" % (p, os.path.getsize(p)))
    if golden_dir:
        os.makedirs(golden_dir, exist_ok=True)
        for p in (glb_path,) if step else (fbx_path, glb_path):
            run_oracle(oracle, p, os.path.join(golden_dir, os.path.basename(p) + ".blender.json"),
                       FACE_ORACLE_MAX_VERTS)


# --------------------------------------------------------------------------------------- main
def main():
    args = parse_args()
    out_dir = os.path.abspath(args.out_dir)
    golden_dir = os.path.abspath(args.golden_dir) if args.golden_dir else None
    oracle = os.path.abspath(args.oracle)
    if golden_dir and not os.path.isfile(oracle):
        raise SystemExit("make_sample: oracle script not found: %s (pass --oracle PATH)" % oracle)
    os.makedirs(out_dir, exist_ok=True)
    if args.face or args.face_step:
        if os.environ.get("PYTHONHASHSEED") != "0":
            print("make_sample: PYTHONHASHSEED is not 0: the FBX's object order will differ from the committed one")
        build_face(out_dir, golden_dir, oracle, step=args.face_step)
        return
    detailed = args.detailed
    name = (DETAILED_NAME + CENTIMETRE_SUFFIX if args.centimetres else DETAILED_NAME) if detailed else NAME
    # --detailed writes only the GLB (textures embedded): the PNGs go to a scratch folder
    png_dir = tempfile.mkdtemp(prefix=name + "_") if detailed else out_dir
    try:
        build_and_export(args, out_dir, golden_dir, oracle, name, png_dir)
    finally:
        if detailed:
            shutil.rmtree(png_dir, ignore_errors=True)


def build_and_export(args, out_dir, golden_dir, oracle, name, png_dir):
    detailed = args.detailed
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = FPS, 1.0
    scene.unit_settings.system, scene.unit_settings.scale_length = "METRIC", 1.0

    layout = skeleton_layout(detailed)
    armature = build_armature(layout)
    skin_mat, steel = build_materials(png_dir, name)
    segments = {b: (head, tail) for b, head, tail, _p, _d in layout}

    body_mb = build_body(layout, detailed)
    body = body_mb.to_object("Body", skin_mat)
    weights = []
    for co, part in zip(body_mb.verts, body_mb.part):
        candidates, sigma = body_weight_rules(part, detailed)
        w = distance_weights(co, segments, candidates, sigma)
        weights.append(detailed_weights(co, w, segments) if detailed else w)
    apply_weights(body, weights)
    skin(body, armature)

    cape_mb = build_cape()
    cape = cape_mb.to_object("Cape", skin_mat)
    apply_weights(cape, [cape_weights(v) for _tag, v in cape_mb.part])
    skin(cape, armature)

    sword = build_sword().to_object("Sword", steel)
    sword.parent = armature
    sword.parent_type = "BONE"
    sword.parent_bone = "hand_r_socket"
    bpy.context.view_layer.update()
    # Blender places bone children at the bone's tail; setting the world matrix solves for that.
    sword.matrix_world = Matrix.Translation(segments["hand_r_socket"][0])

    armature.animation_data_create()
    for clip, duration, fn in CLIPS:
        bake_action(armature, clip, duration, fn, DETAIL_FNS[clip] if detailed else None)
    armature.animation_data.action = None   # the exported node defaults / bind pose stay the rest pose
    scene.frame_start, scene.frame_end = 0, int(round(max(c[1] for c in CLIPS) * FPS))
    scene.frame_set(0)

    fbx_path = os.path.join(out_dir, name + ".fbx")
    glb_path = os.path.join(out_dir, name + ".glb")
    dae_path = os.path.join(out_dir, name + ".dae")
    written = [glb_path]
    if args.centimetres:
        # Blender's unit (the metre) written in the FBX's default unit, the centimetre: every length of the
        # skeleton, the clips and the meshes x100, UnitScaleFactor 1. Textures are left out (the file stays
        # small; the PNGs are in a scratch folder).
        # One clip, as Mixamo exports them (all four would make the file 2.3 MB: FBX spends ~1 KB per
        # curve); the take is named after the scene.
        armature.animation_data.action = bpy.data.actions[CENTIMETRE_CLIP]
        scene.name = CENTIMETRE_CLIP
        scene.frame_start, scene.frame_end = [int(f) for f in bpy.data.actions[CENTIMETRE_CLIP].frame_range]
        export_fbx(fbx_path, textures=False, object_types=("ARMATURE",), all_actions=False)
        print("wrote %s (%d bytes)" % (fbx_path, os.path.getsize(fbx_path)))
        return
    if not detailed:
        export_fbx(fbx_path)
        written = [fbx_path, glb_path, os.path.join(out_dir, DIFFUSE_PNG), os.path.join(out_dir, NORMAL_PNG)]
    export_glb(glb_path)
    if args.collada:
        # last, so that it cannot influence the FBX / GLB. The exporter only looks at armatures that
        # have an action assigned: Blender 3.4 ignores include_all_actions (that code is disabled in
        # its AnimationExporter), so the .dae holds the Walk clip only, sampled over the scene range.
        walk = bpy.data.actions["Walk"]
        armature.animation_data.action = walk
        scene.frame_start, scene.frame_end = int(walk.frame_range[0]), int(walk.frame_range[1])
        # The exporter writes a bone-parented object's matrix relative to the bone's *tail* (Blender's
        # parenting frame) under the bone's joint <node>, whose frame is at the bone's *head*: the sword
        # would land one bone length (6 cm) behind the hand. Shift it by that much for the export only.
        socket = armature.data.bones["hand_r_socket"]
        true_world = sword.matrix_world.copy()
        sword.matrix_world = Matrix.Translation(socket.tail_local - socket.head_local) @ true_world
        bpy.context.view_layer.update()
        export_dae(dae_path)
        sword.matrix_world = true_world
        armature.animation_data.action = None
        written.append(dae_path)

    # Summary of what was built.
    print("bones (%d): %s" % (len(armature.data.bones), ", ".join(b.name for b in armature.data.bones)))
    for o in (body, cape, sword):
        mx = max((sum(1 for g in v.groups if g.weight > 0.0) for v in o.data.vertices), default=0)
        print("mesh %s: %d vertices, %d faces, max influences %d"
              % (o.name, len(o.data.vertices), len(o.data.polygons), mx))
    for p in written:
        print("wrote %s (%d bytes)" % (p, os.path.getsize(p)))

    if golden_dir:   # never for the .dae (Blender's COLLADA importer is no oracle)
        os.makedirs(golden_dir, exist_ok=True)
        for p in ([glb_path] if detailed else [fbx_path, glb_path]):
            run_oracle(oracle, p, os.path.join(golden_dir, os.path.basename(p) + ".blender.json"),
                       DETAILED_ORACLE_MAX_VERTS if detailed else ORACLE_MAX_VERTS)


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception:
        import traceback
        traceback.print_exc()
        sys.exit(1)   # make `blender --python` fail loudly instead of idling on
