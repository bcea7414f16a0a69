"""Blender side of Ossa's glTF export check (driven by scripts/blender-gltf-check.sh; see there for usage).

Run by Blender (bpy needed):
  blender -b --factory-startup --python-exit-code 1 --python blender_gltf_check.py -- \
      export MODEL OUT.glb [REPEATS [STAND_IN]]
      Import MODEL with the oracle's importer settings, export GLB with Blender's default settings plus the
      content Ossa writes (tangents, morph tangents, every influence) REPEATS times;
      write OUT.glb.timing.json = {"ms": best export-operator time, "bytes": size}.
      With STAND_IN set (--self-test's stand-in for Ossa): settings that make Blender's round trip as exact as it
      gets (FBX clips retimed to start at glTF time 0; glTF rest = node default pose, keys exported unsampled).
  blender ... -- check SRC_ORACLE.json EXPORT.glb EXPORT_EVAL.json RESULT.json
      Evaluate EXPORT.glb with the oracle (shared/oracle/blender_eval.py, glTF importer) for the clips and times of
      SRC_ORACLE.json, write that evaluation to EXPORT_EVAL.json and the comparison to RESULT.json.
Run by python3 (compare needs numpy: Debian's /usr/bin/python3 with python3-numpy):
  python3 blender_gltf_check.py compare SRC_ORACLE.json EXPORT_EVAL.json      (prints the comparison)
  python3 blender_gltf_check.py table OUT_DIR NAME...                         (Markdown table; rc 1 on any failure)

Deviation = worst distance, over the matched clips and the source oracle's sample times, between Blender's world
joint positions (matched by name) and evaluated vertex positions (paired by nearest trajectory) of the source and
of the re-imported export, divided by the model size (bounding-box diagonal of the source's rest vertices).
World-space positions do not depend on the bone orientations Blender's glTF importer guesses.
"""
import json
import os
import sys
import time

TOLERANCE = 1e-4  # of the model size
ORACLE = os.environ.get("OSSA_ORACLE_SCRIPT", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                          "..", "..", "shared", "oracle", "blender_eval.py"))


def load_oracle():
    """Load blender_eval.py's functions (and its numpy / glTF-importer patches) without running its main()."""
    src = open(ORACLE).read().rstrip()
    assert src.endswith("\nmain()"), "unexpected blender_eval.py layout"
    ns = {"__name__": "blender_eval", "__file__": ORACLE}
    exec(compile(src[:-len("main()")], ORACLE, "exec"), ns)
    return ns


def model_format(path):
    return "fbx" if path.lower().endswith(".fbx") else "gltf"


# ----------------------------------------------------------------------------- Blender: export timing
def retime_fbx_actions(meta, fps):
    """Self-test only. Blender's FBX importer puts clip time t at frame (LocalStart + t)*fps + 1 and its glTF
    exporter writes time = frame/fps: shift each stack's actions so that the exported glTF time is t."""
    import bpy
    for act in bpy.data.actions:
        st = [s for s in meta["stacks"]
              if act.name.endswith("|" + s["name"][:63]) or "|%s|" % s["name"][:63] in act.name]
        shift = (st[0].get("LocalStart_s", 0.0) if st else 0.0) * fps + 1.0
        for fc in act.fcurves:
            for kp in fc.keyframe_points:
                for v in (kp.co, kp.handle_left, kp.handle_right):
                    v.x -= shift


def cmd_export(model, out, repeats="3", stand_in=""):
    import bpy
    ns = load_oracle()
    res = {"ms": None, "bytes": None}
    opts = {}
    try:
        if model_format(model) == "fbx":
            meta = ns["fbx_meta"](model)  # refuses ASCII / pre-7100 FBX with a clear message, as the oracle does
        if stand_in and model_format(model) == "gltf":
            # rest = the nodes' default pose, so that the exported nodes keep it for the channels a clip does not key
            bpy.ops.wm.read_homefile(use_empty=True)
            bpy.ops.import_scene.gltf(filepath=model, guess_original_bind_pose=False, merge_vertices=False)
        else:
            ns["fresh_import"](model, model_format(model))
        # Blender's FBX importer leaves id_root unset on the actions of the stacks it does not assign, and its glTF
        # exporter only takes "OBJECT" actions besides the active one: without this only one FBX clip is exported.
        for act in bpy.data.actions:
            if act.id_root not in ("OBJECT", "KEY"):
                act.id_root = "OBJECT"
        if stand_in and model_format(model) == "fbx":
            retime_fbx_actions(meta, bpy.context.scene.render.fps)
            opts["export_frame_range"] = False
        elif stand_in:  # default force-sampling of glTF-imported clips lags one frame (CesiumMan): keep the keys
            opts["export_force_sampling"] = False
        if not stand_in:  # the same content as Ossa's export (Blender's defaults leave these out)
            opts.update(export_tangents=True, export_morph_tangent=True, export_all_influences=True)
        best = None
        for _ in range(int(repeats)):
            t0 = time.perf_counter()
            r = bpy.ops.export_scene.gltf(filepath=out, export_format="GLB", **opts)  # opts: stand-in only
            dt = time.perf_counter() - t0
            if "FINISHED" not in r:
                raise RuntimeError("export failed: %r" % (r,))
            best = dt if best is None else min(best, dt)
        res = {"ms": best * 1000.0, "bytes": os.path.getsize(out)}
    except Exception as e:
        res["error"] = str(e).splitlines()[0] if str(e) else type(e).__name__
    json.dump(res, open(out + ".timing.json", "w"))


# ----------------------------------------------------------------------------- clip matching
def match_clips(src_clips, exp_clips):
    """Pair source clips with export clips: same name, same part after the last '|' (Blender's FBX importer names
    actions "Object|Stack[|Layer]"), the source's last part among the export name's '|' parts; leftovers by order."""
    def parts(c):
        return (c.get("name") or "").split("|")
    rules = [lambda s, e: s.get("name") and s.get("name") == e.get("name"),
             lambda s, e: parts(s)[-1] and parts(s)[-1] == parts(e)[-1],
             lambda s, e: parts(s)[-1] and parts(s)[-1] in parts(e)]
    pairs, exp_left = {}, list(exp_clips)
    for rule in rules:
        for i, s in enumerate(src_clips):
            if i in pairs:
                continue
            cand = [e for e in exp_left if rule(s, e)]
            if len(cand) == 1:
                pairs[i] = cand[0]
                exp_left.remove(cand[0])
    left = [i for i in range(len(src_clips)) if i not in pairs]
    for i, e in zip(left, exp_left):
        pairs[i] = e
    return [(s, pairs.get(i)) for i, s in enumerate(src_clips)]


# ----------------------------------------------------------------------------- Blender: evaluate the export
def cmd_check(src_oracle, export_glb, eval_out, result_out):
    ns = load_oracle()
    src = json.load(open(src_oracle))
    exp_clips = ns["gltf_meta"](export_glb)["clips"]
    merged = None
    for sc, ec in match_clips(src["clips"], exp_clips):
        if ec is None:
            continue
        # one oracle run per clip: exactly the source's sample times, every vertex (pairing needs them all)
        times = ",".join(repr(s["t"]) for s in sc["samples"])
        sys.argv = ["blender", "--", export_glb, eval_out, "--clips", str(ec["index"]), "--fractions", "",
                    "--snap", "none", "--max-verts", "0", "--extra-times", times]
        ns["main"]()
        part = json.load(open(eval_out))
        if not part.get("ok"):
            merged = part
            break
        part["clips"] = [dict(c, matched_source_clip=sc["name"]) for c in part["clips"] if c["index"] == ec["index"]]
        if merged is None:
            merged = part
        else:
            merged["clips"] += part["clips"]
    if merged is None:
        merged = {"ok": False, "error": "no clip of the export matches the source's", "clips": []}
    merged["args"] = {"per_clip": "sample times of %s" % os.path.basename(src_oracle), "max_verts": 0}
    json.dump(merged, open(eval_out, "w"), separators=(",", ":"))
    json.dump(compare(src, merged), open(result_out, "w"), indent=1)


# ----------------------------------------------------------------------------- comparison (numpy, no bpy)
def compare(src, exp):
    import numpy as np
    res = {"pass": False, "notes": []}
    if not exp.get("ok"):
        res["notes"].append("Blender could not evaluate the export: %s" % exp.get("error"))
        return res
    rest = [p for m in src["rest"]["meshes"].values() for p in m["co"]] or list(src["rest"]["joints"].values())
    rest = np.array(rest, dtype=float).reshape(-1, 3)
    size = float(np.linalg.norm(rest.max(0) - rest.min(0))) if len(rest) else 1.0
    res["size"] = size = size or 1.0
    by_src = {c.get("matched_source_clip"): c for c in exp["clips"]}
    jdev, missing, s_pts, e_pts = 0.0, set(), [], []
    for sc in src["clips"]:
        ec = by_src.get(sc["name"])
        if ec is None:
            res["notes"].append("clip %r missing in the export" % sc["name"])
            continue
        for ss, es in zip(sc["samples"], ec["samples"]):
            if abs(ss["t"] - es["t"]) > 1e-6:
                res["notes"].append("time mismatch %s vs %s" % (ss["t"], es["t"]))
            for name, p in ss["joints"].items():
                if name in es["joints"]:
                    jdev = max(jdev, float(np.linalg.norm(np.subtract(p, es["joints"][name]))))
                else:
                    missing.add(name)
            bad = [n for d in (ss, es) for n, m in d["meshes"].items() if "co" not in m]
            if bad:
                res["notes"].append("mesh evaluation errors: %s" % bad)
                return res
            s_pts.append([p for n in sorted(ss["meshes"]) for p in ss["meshes"][n]["co"]])
            e_pts.append([p for n in sorted(es["meshes"]) for p in es["meshes"][n]["co"]])
    vdev = 0.0
    if s_pts and len(s_pts[0]):
        if not len(e_pts[0]):
            res["notes"].append("the export has no mesh vertices")
            return res
        # pair each sampled source vertex with the export vertex whose trajectory (all samples) is nearest
        S = np.concatenate([np.array(p, dtype=float) for p in s_pts], axis=1)
        E = np.concatenate([np.array(p, dtype=float) for p in e_pts], axis=1)
        d2 = (S * S).sum(1)[:, None] + (E * E).sum(1)[None, :] - 2.0 * S @ E.T
        pair = d2.argmin(1)
        vdev = float(np.sqrt(((S - E[pair]).reshape(len(S), -1, 3) ** 2).sum(2)).max())
    # leaf "_end" bones exist only in Blender-made FBX (Blender adds them on export); other missing joints fail
    real_missing = sorted(n for n in missing if not n.lower().endswith("_end"))
    if missing:
        res["notes"].append("joints missing in the export: %s" % sorted(missing))
    res.update(joint_dev=jdev / size, vertex_dev=vdev / size, deviation=max(jdev, vdev) / size,
               n_joints_compared=len(src["rest"]["joints"]) - len(missing))
    res["pass"] = (res["deviation"] <= TOLERANCE and not real_missing
                   and not any(n.startswith(("clip", "time")) for n in res["notes"]))
    return res


# ----------------------------------------------------------------------------- Markdown table
def cmd_table(out_dir, *names):
    def load(path):
        try:
            return json.load(open(path))
        except (OSError, ValueError):
            return {}
    ok = True
    print("| model | Ossa export ms (whole command) | Blender export ms | ratio | Ossa bytes | Blender bytes "
          "| Blender re-import deviation (fraction of size) | pass |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    notes = []
    for n in names:
        o, b, r = (load(os.path.join(out_dir, n + s)) for s in (".ossa.glb.timing.json",
                                                                  ".blender.glb.timing.json", ".check.json"))
        fmt = lambda v, f: (f % v) if isinstance(v, (int, float)) else "-"  # noqa: E731
        ratio = o["ms"] / b["ms"] if o.get("ms") and b.get("ms") else None
        dev = r.get("deviation")
        passed = bool(r.get("pass")) and o.get("bytes") is not None
        ok &= passed
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            n, fmt(o.get("ms"), "%.1f") + (" (%d)" % o["command_ms"] if "command_ms" in o else ""),
            fmt(b.get("ms"), "%.1f"), fmt(ratio, "%.2f"), fmt(o.get("bytes"), "%d"),
            fmt(b.get("bytes"), "%d"), fmt(dev, "%.2e"), "yes" if passed else "**NO**"))
        for k, d in (("Ossa export", o), ("Blender export", b)):
            if d.get("error"):
                notes.append("%s: %s: %s" % (n, k, d["error"]))
        notes += ["%s: %s" % (n, x) for x in r.get("notes", [])]
    for x in notes:
        print("- " + x)
    return 0 if ok else 1


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    cmd, args = argv[0], argv[1:]
    if cmd == "export":
        cmd_export(*args)
    elif cmd == "check":
        cmd_check(*args)
    elif cmd == "compare":
        print(json.dumps(compare(json.load(open(args[0])), json.load(open(args[1]))), indent=1))
    elif cmd == "table":
        sys.exit(cmd_table(*args))
    else:
        sys.exit("unknown command %r" % cmd)


main()
