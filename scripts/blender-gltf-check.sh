#!/usr/bin/env bash
# Check Ossa's glTF export against Blender, model by model:
#   a. `OSSA convert MODEL -o OUT_DIR/NAME.ossa.glb`: the export's own time as convert prints it, the whole
#      command's wall-clock time (best of 3 each) and the size;
#   b. Blender imports MODEL (its FBX or glTF importer, the oracle's settings) and exports GLB with its default
#      settings plus the content Ossa writes (tangents, morph tangents, every influence): time of the export
#      operator alone (best of 3) and size, for comparison;
#   c. Blender re-imports NAME.ossa.glb and evaluates it with shared/oracle/blender_eval.py at the clips and times
#      of the source's oracle evaluation (shared/oracle/NAME.blender.json) into OUT_DIR/NAME.export.blender.json;
#      deviation = worst world joint / evaluated vertex position difference / model size; pass when <= 1e-4.
#   d. prints a Markdown table; exits 1 when an Ossa export is missing or a comparison fails.
#
# Usage:  scripts/blender-gltf-check.sh OSSA_BINARY OUT_DIR [MODEL...]
#         scripts/blender-gltf-check.sh --self-test OUT_DIR [MODEL...]   (Blender's own export stands in for Ossa's)
# Default models: the readable files of ../shared/models (FBX 6100 excluded) and its morph/*.gltf.
# Needs: apt-get install -y --no-install-recommends blender python3-numpy   (no display needed)
# Environment: BLENDER (blender), OSSA_MODELS_DIR, OSSA_ORACLE_DIR (../shared/models, ../shared/oracle).
set -u
here=$(cd "$(dirname "$0")" && pwd)
py=$here/blender_gltf_check.py
shared=$(cd "$here/../.." && pwd)/shared
models_dir=${OSSA_MODELS_DIR:-$shared/models}
oracle_dir=${OSSA_ORACLE_DIR:-$shared/oracle}
blender=${BLENDER:-blender}
export OSSA_ORACLE_SCRIPT=$oracle_dir/blender_eval.py

if [ $# -lt 2 ]; then sed -n '2,18p' "$0"; exit 2; fi
ossa=$1 out=$2
shift 2
mkdir -p "$out" && out=$(cd "$out" && pwd)
if [ $# -eq 0 ]; then
    set --
    for f in "$models_dir"/*.fbx "$models_dir"/*.glb "$models_dir"/*.gltf "$models_dir"/morph/*.gltf; do
        case $f in *_6100_*|*'*'*) continue ;; esac
        set -- "$@" "$f"
    done
fi

bl() {  # run blender_gltf_check.py inside Blender, appending Blender's chatter to the model's log
    "$blender" -b --factory-startup --python-exit-code 1 --python "$py" -- "$@" >>"$log" 2>&1
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

names=()
for model in "$@"; do
    model=$(cd "$(dirname "$model")" && pwd)/$(basename "$model")
    name=$(basename "${model%.*}")
    names+=("$name")
    log=$out/$name.log
    : >"$log"
    t_model=$SECONDS
    rm -f "$out/$name".*.glb "$out/$name".*.json

    # a. Ossa's export, best of 3: the export itself (what `convert` prints as "exported in X ms", as Blender's
    #    export operator is timed alone) and the whole command (process start, guarded import, export)
    best= best_export=
    for _ in 1 2 3; do
        t0=$(now_ms)
        if [ "$ossa" = --self-test ]; then
            bl export "$model" "$out/$name.ossa.glb" 1 stand-in && [ -s "$out/$name.ossa.glb" ]
        else
            "$ossa" convert "$model" -o "$out/$name.ossa.glb" >"$out/$name.convert.txt" 2>>"$log"
        fi || { best=; break; }
        dt=$(($(now_ms) - t0))
        if [ -z "$best" ] || [ "$dt" -lt "$best" ]; then best=$dt; fi
        export_ms=$(sed -n 's/.*exported in \([0-9.]*\) ms.*/\1/p' "$out/$name.convert.txt" 2>/dev/null)
        if [ -n "$export_ms" ] && { [ -z "$best_export" ] || awk "BEGIN{exit !($export_ms < $best_export)}"; }; then
            best_export=$export_ms
        fi
    done
    if [ -n "$best" ] && [ -s "$out/$name.ossa.glb" ]; then
        echo "{\"ms\": ${best_export:-$best}, \"command_ms\": $best, \"bytes\": $(stat -c %s "$out/$name.ossa.glb")}" \
            >"$out/$name.ossa.glb.timing.json"
    else
        echo '{"error": "no export (see '"$name"'.log)"}' >"$out/$name.ossa.glb.timing.json"
        rm -f "$out/$name.ossa.glb"
    fi

    # b. Blender's export of the same source, timed inside Blender
    bl export "$model" "$out/$name.blender.glb" 3

    # c. the source's oracle evaluation (ASCII FBX: its binary twin's); made here when shared/ has none
    rel=${model#"$models_dir"/}
    src=$oracle_dir/${rel%.*}.blender.json
    if [ -f "$src" ] && ! grep -q '"ok":true' "$src"; then src=${src/_ascii_/_binary_}; fi
    if [ ! -f "$src" ]; then
        src=$out/$name.source.blender.json
        "$blender" -b --factory-startup --python "$oracle_dir/blender_eval.py" -- "$model" "$src" >>"$log" 2>&1
    fi
    if [ -s "$out/$name.ossa.glb" ]; then
        bl check "$src" "$out/$name.ossa.glb" "$out/$name.export.blender.json" "$out/$name.check.json"
    fi
    echo "$name: $((SECONDS - t_model)) s" >&2
done
python3 "$py" table "$out" "${names[@]}"
