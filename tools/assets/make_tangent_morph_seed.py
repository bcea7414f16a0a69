"""A tiny binary glTF whose morph targets move tangents, for the import fuzzer's seed corpus (fuzz/seeds/)
and the command-line tests: written by hand (no exporter writes this mix), so that both ways Ossa reads
TANGENT deltas have a seed.

    python3 tools/assets/make_tangent_morph_seed.py fuzz/seeds/tiny_morph_tangents.glb

Two triangles (4 vertices with POSITION, NORMAL, TANGENT, TEXCOORD_0) and two targets: "withNormal"
(POSITION, NORMAL and TANGENT: assimp 5.2.5 reads its tangents) and "tangentOnly" (POSITION and TANGENT:
assimp drops its tangents, src/import/gltf_morph_tangents.h reads them); a clip "Flex" animates the weights
(0, 0) -> (1, 0.5) over 1 s. The numbers are those of tests/test_morph.cpp's tangent_morph_file().
Licence of the generated file: CC0 1.0.
"""
import json
import struct
import sys


def main():
    out = sys.argv[1]
    buffer = bytearray()
    views, accessors = [], []

    def add(values, kind, per, with_min_max=False, fmt="f", component=5126):
        while len(buffer) % 4:
            buffer.append(0)
        offset = len(buffer)
        buffer.extend(struct.pack("<%d%s" % (len(values), fmt), *values))
        views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(buffer) - offset})
        accessor = {"bufferView": len(views) - 1, "componentType": component, "count": len(values) // per,
                    "type": kind}
        if with_min_max:
            accessor["min"] = [min(values[i::per]) for i in range(per)]
            accessor["max"] = [max(values[i::per]) for i in range(per)]
        accessors.append(accessor)
        return len(accessors) - 1

    positions = add([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0], "VEC3", 3, True)
    normals = add([0, 0, 1] * 4, "VEC3", 3)
    tangents = add([1, 0, 0, 1, 0, 1, 0, -1, 1, 0, 0, 1, 0.6, 0.8, 0, 1], "VEC4", 4)
    uvs = add([0, 0, 1, 0, 0, 1, 1, 1], "VEC2", 2)
    indices = add([0, 1, 2, 2, 1, 3], "SCALAR", 1, fmt="H", component=5123)
    moved = add([0, 0, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0], "VEC3", 3, True)
    normal_moved = add([0.1, 0, 0] + [0] * 9, "VEC3", 3)
    tangent_moved = add([0, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.25], "VEC3", 3)
    moved1 = add([0, 0, 0, 0, 0, -0.25, 0, 0, 0, 0, 0, 0], "VEC3", 3, True)
    tangent_moved1 = add([0, 0, 0, 0.3, 0, 0.1, 0, 0.2, 0.4, 0, 0, 0], "VEC3", 3)
    times = add([0, 1], "SCALAR", 1, True)
    weights = add([0, 0, 1, 0.5], "SCALAR", 1)
    while len(buffer) % 4:
        buffer.append(0)
    doc = {
        "asset": {"version": "2.0", "generator": "make_tangent_morph_seed.py"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "Panel", "mesh": 0, "translation": [5, 0, 0], "scale": [2, 2, 2]}],
        "meshes": [{
            "name": "PanelMesh",
            "weights": [0, 0],
            "extras": {"targetNames": ["withNormal", "tangentOnly"]},
            "primitives": [{
                "attributes": {"POSITION": positions, "NORMAL": normals, "TANGENT": tangents,
                               "TEXCOORD_0": uvs},
                "indices": indices,
                "targets": [{"POSITION": moved, "NORMAL": normal_moved, "TANGENT": tangent_moved},
                            {"POSITION": moved1, "TANGENT": tangent_moved1}],
            }],
        }],
        "animations": [{
            "name": "Flex",
            "samplers": [{"input": times, "output": weights, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}],
        }],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(buffer)}],
    }
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    body = struct.pack("<II", len(text), 0x4E4F534A) + text + struct.pack("<II", len(buffer), 0x004E4942)
    body += bytes(buffer)
    with open(out, "wb") as f:
        f.write(struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body)
    print("wrote %s (%d bytes)" % (out, 12 + len(body)))


if __name__ == "__main__":
    main()
