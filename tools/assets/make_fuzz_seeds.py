"""Tiny skinned files for the import fuzzer's seed corpus (fuzz/seeds/), made with the same exporters
as the bundled sample (make_sample.py) but a few KB each, so libFuzzer runs hundreds of times faster
on them than on the 1 MB sample.

    blender -b --factory-startup --python tools/assets/make_fuzz_seeds.py -- fuzz/seeds

Writes tiny_skin.fbx, tiny_skin.glb and tiny_skin.dae: a 3-bone chain ("root", "mid", "tip") skinning
a 4-quad strip (each vertex weighted to two bones), and one 4-frame action "Bend" (rotation, location
and scale keys). Then tiny_morph.glb: the same strip with two shape keys ("Bulge", "Twist") whose weights
the 4 frames animate (glTF morph targets and a weights channel), so that the importer's morph path and,
converted (scripts/fuzz.sh), the .ossa morph sections have seeds. Licence of the generated files: CC0 1.0.
"""
import math
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_sample  # noqa: E402  (the exporters' settings live there)


def build():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 30
    arm_data = bpy.data.armatures.new("Rig")
    arm = bpy.data.objects.new("Rig", arm_data)
    scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    parent = None
    for i, name in enumerate(("root", "mid", "tip")):
        b = arm_data.edit_bones.new(name)
        b.head, b.tail = (0, 0, i * 0.5), (0, 0, i * 0.5 + 0.5)
        if parent:
            b.parent, b.use_connect = parent, True
        parent = b
    bpy.ops.object.mode_set(mode="OBJECT")

    verts, faces = [], []
    for row in range(5):
        z = row * 0.375
        verts += [(-0.1, 0, z), (0.1, 0, z)]
        if row:
            faces.append((2 * row - 2, 2 * row - 1, 2 * row + 1, 2 * row))
    mesh = bpy.data.meshes.new("Strip")
    mesh.from_pydata(verts, [], faces)
    obj = bpy.data.objects.new("Strip", mesh)
    scene.collection.objects.link(obj)
    groups = {n: obj.vertex_groups.new(name=n) for n in ("root", "mid", "tip")}
    for i, (_, _, z) in enumerate(verts):
        t = z / 0.75
        lower = ("root", "mid")[min(int(t), 1)]
        upper = ("mid", "tip")[min(int(t), 1)]
        f = t - min(int(t), 1)
        groups[lower].add([i], 1.0 - min(f, 1.0), "REPLACE")
        groups[upper].add([i], max(min(f, 1.0), 0.0), "REPLACE")
    obj.parent = arm
    mod = obj.modifiers.new("Armature", "ARMATURE")
    mod.object = arm

    act = bpy.data.actions.new("Bend")
    arm.animation_data_create().action = act
    for frame, angle in ((0, 0.0), (1, 20.0), (2, 45.0), (3, 0.0)):
        for bone in ("mid", "tip"):
            pb = arm.pose.bones[bone]
            pb.rotation_mode = "QUATERNION"
            half = math.radians(angle) / 2
            pb.rotation_quaternion = (math.cos(half), math.sin(half), 0, 0)
            pb.keyframe_insert("rotation_quaternion", frame=frame)
        root = arm.pose.bones["root"]
        root.location = (0, 0.1 * frame, 0)
        root.scale = (1, 1 + 0.1 * frame, 1)
        root.keyframe_insert("location", frame=frame)
        root.keyframe_insert("scale", frame=frame)
    act.use_frame_range = True
    act.frame_start, act.frame_end = 0, 3
    scene.frame_start, scene.frame_end = 0, 3


def add_shape_keys():
    """Two shape keys on the strip, their values keyed on frames 0-3 (the mesh's own shape-key action)."""
    obj = bpy.data.objects["Strip"]
    obj.shape_key_add(name="Basis", from_mix=False)
    bulge = obj.shape_key_add(name="Bulge", from_mix=False)
    twist = obj.shape_key_add(name="Twist", from_mix=False)
    for i, v in enumerate(obj.data.vertices):
        x, y, z = v.co
        bulge.data[i].co = (x * 1.5, y + 0.05, z)
        if i >= 4:  # the top rows only: a sparse target
            twist.data[i].co = (x, y + 0.2 * x, z)
    for frame, (b, t) in enumerate(((0.0, 0.0), (0.5, 0.25), (1.0, 1.0), (0.2, 0.0))):
        bulge.value, twist.value = b, t
        bulge.keyframe_insert("value", frame=frame)
        twist.keyframe_insert("value", frame=frame)


def export_morph_glb(path):
    res = bpy.ops.export_scene.gltf(
        filepath=path, check_existing=False, export_format="GLB", use_selection=False,
        export_yup=True, export_apply=False, export_normals=True, export_materials="NONE",
        export_skins=True, export_animations=True, export_frame_range=False, export_force_sampling=True,
        export_nla_strips=True, export_anim_single_armature=True, export_morph=True,
        export_morph_normal=True)
    if "FINISHED" not in res:
        raise RuntimeError("glTF export failed: %r" % (res,))


def main():
    out = sys.argv[sys.argv.index("--") + 1]
    os.makedirs(out, exist_ok=True)
    build()
    make_sample.export_fbx(os.path.join(out, "tiny_skin.fbx"))
    make_sample.export_glb(os.path.join(out, "tiny_skin.glb"))
    make_sample.export_dae(os.path.join(out, "tiny_skin.dae"))
    add_shape_keys()
    export_morph_glb(os.path.join(out, "tiny_morph.glb"))
    for f in ("tiny_skin.fbx", "tiny_skin.glb", "tiny_skin.dae", "tiny_morph.glb"):
        print("wrote %s (%d bytes)" % (f, os.path.getsize(os.path.join(out, f))))


if __name__ == "__main__":
    try:
        main()
    except Exception:
        import traceback
        traceback.print_exc()
        sys.exit(1)
