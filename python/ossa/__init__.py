"""Ossa: skeletal animation for Python.

Characters from FBX, glTF, COLLADA, BVH and .ossa files, evaluated by the same C++ library as the ``ossa``
command, handed back as numpy arrays::

    import ossa
    hero = ossa.load("hero.fbx")
    walk = hero.clip("Walk")
    positions = hero.joint_positions(walk, walk.frame_times())   # (T, J, 3) float32

See docs/python.md.
"""

from ._ossa import (  # noqa: F401  (the module's surface)
    Animator,
    Character,
    Clip,
    GraphInstance,
    Mesh,
    OssaError,
    Skeleton,
    bone_map_profiles,
    convert,
    export_gltf,
    load,
    retarget,
)

__all__ = [
    "Animator",
    "Character",
    "Clip",
    "GraphInstance",
    "Mesh",
    "OssaError",
    "Skeleton",
    "bone_map_profiles",
    "convert",
    "export_gltf",
    "load",
    "retarget",
]
