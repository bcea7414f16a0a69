#!/usr/bin/env bash
# Builds the libFuzzer targets with ASan + UBSan (preset `fuzz`, clang) and runs each for SECONDS (default 60)
# on seed corpora made from the bundled assets. Exit status is non-zero when a fuzzer finds a crash.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: fuzz_ossa_loader fuzz_import fuzz_scene_wire
# fuzz_notifies fuzz_anim_graph fuzz_image; default all). Each run's last lines (runs, edges "cov:", corpus) are printed.
set -euo pipefail
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_ossa_loader fuzz_import fuzz_scene_wire fuzz_notifies fuzz_anim_graph fuzz_image)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
for p in clang libclang-rt-14-dev; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    sudo_cmd=(); [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev
    break
  fi
done
scripts/configure-preset.sh fuzz
cmake --build --preset fuzz -j 2

corpus=build/fuzz/corpus   # what the fuzzers add (kept between runs)
seeds=build/fuzz/seeds     # rebuilt each run from the repository (and ../shared/models when present)
mkdir -p "$corpus/ossa" "$corpus/import" "$corpus/wire" "$corpus/notifies" "$corpus/graph" "$corpus/image"
rm -rf "$seeds" && mkdir -p "$seeds/ossa" "$seeds/import" "$seeds/wire" "$seeds/notifies" "$seeds/graph" "$seeds/image"
cp assets/sample/*.notifies.json "$seeds/notifies/"
cp assets/sample/*.animgraph.json "$seeds/graph/"
cp assets/sample/*.png "$seeds/image/"
# .ossa seeds in each clip layout, from the release CLI when it is built, else none (libFuzzer starts empty).
if [ -x build/release/ossa ]; then
  build/release/ossa --trusted convert assets/sample/ossa_sample.glb -o "$seeds/ossa/keyed.ossa" --clips Walk --keys >/dev/null
  build/release/ossa --trusted convert assets/sample/ossa_sample.glb -o "$seeds/ossa/fixed.ossa" --clips Wave --fps 10 >/dev/null
  build/release/ossa --trusted convert assets/sample/ossa_sample.glb -o "$seeds/ossa/compressed.ossa" --clips Idle --compress >/dev/null
  # Morph targets and weights (MORPH_TARGETS, MORPH_WEIGHTS sections), as keys and compressed.
  build/release/ossa --trusted convert fuzz/seeds/tiny_morph.glb -o "$seeds/ossa/morph.ossa" --keys >/dev/null
  build/release/ossa --trusted convert fuzz/seeds/tiny_morph.glb -o "$seeds/ossa/morph_compressed.ossa" --compress >/dev/null
  build/release/ossa --trusted convert fuzz/seeds/tiny_morph_tangents.glb -o "$seeds/ossa/morph_tangents.ossa" >/dev/null
fi
# Import seeds: the first byte picks the reader (0 glb, 1 gltf, 2 fbx, 3 dae, 4 bvh). The few-KB files in fuzz/seeds
# keep the fuzzer fast; the sample and the shared models (not in users' clones) bring the real variety.
add_import_seed() {
  local code
  case "${1##*.}" in glb) code='\x00' ;; gltf) code='\x01' ;; fbx) code='\x02' ;; dae) code='\x03' ;; bvh) code='\x04' ;; *) return ;; esac
  { printf "$code"; cat "$1"; } > "$seeds/import/$(basename "$1").seed"
}
for f in fuzz/seeds/* assets/sample/ossa_sample.{glb,fbx,dae} ../shared/models/* ../shared/mocap/*_001.bvh; do
  if [ -f "$f" ]; then add_import_seed "$f"; fi
done
# Regression inputs: what fuzzing found once, kept in the form the target reads (fuzz/regressions/TARGET_DIR/;
# an import input starts with its format byte). libFuzzer runs every seed before it mutates, so each run
# checks them all.
for dir in ossa import wire notifies graph image; do
  for f in fuzz/regressions/$dir/*; do
    if [ -f "$f" ]; then cp "$f" "$seeds/$dir/regression-$(basename "$f")"; fi
  done
done
# Import guard replies (the scene's byte form, src/import/scene_wire.h) of the small seeds (a few KB each).
for f in fuzz/seeds/*; do
  OSSA_WRITE_WIRE_SEED="$seeds/wire/$(basename "$f").wire" OSSA_WIRE_SEED_MODEL="$f" build/fuzz/fuzz/fuzz_scene_wire
done
# OSSA_FUZZ_SEED: a number repeats a run's mutations; "commit" derives one from the checked-out commit (CI:
# every commit explores new inputs, and the printed seed repeats its run); unset, each run draws anew.
if [ "${OSSA_FUZZ_SEED:-}" = commit ]; then
  OSSA_FUZZ_SEED=$(( 0x$(git rev-parse --short=7 HEAD) ))
  echo "fuzz: seed $OSSA_FUZZ_SEED (from commit $(git rev-parse --short=7 HEAD)); repeat with OSSA_FUZZ_SEED=$OSSA_FUZZ_SEED scripts/fuzz.sh $seconds"
fi
# assimp leaks on the damaged files it rejects.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
for target in "${targets[@]}"; do
  case "$target" in
    fuzz_ossa_loader) dir=ossa ;; fuzz_import) dir=import ;; fuzz_scene_wire) dir=wire ;; fuzz_notifies) dir=notifies ;; fuzz_anim_graph) dir=graph ;; fuzz_image) dir=image ;;
    *) echo "fuzz: unknown target $target"; exit 2 ;;
  esac
  echo "fuzz: $target for ${seconds}s"
  # The import target enforces its own budgets (ImportOptions::isolate: assimp reads in a child process with
  # 1 GB and 20 s), so libFuzzer's per-allocation limit, which the child inherits, is set above that budget.
  # Amplification and slow inputs are findings (SECURITY.md's cost model): one input may take at most 10 s,
  # and (for the .ossa loader, whose inputs are at most 2 MB) allocate at most 256 MB at once: more than 100x
  # what the file holds. The import target enforces its own budgets (ImportOptions::isolate: assimp reads in a
  # child process with 1 GB and 20 s), so libFuzzer's limits, which the child inherits, sit above them.
  extra=(-timeout=10 -report_slow_units=1)
  if [ -n "${OSSA_FUZZ_SEED:-}" ]; then extra+=(-seed="$OSSA_FUZZ_SEED"); fi
  if [ "$target" = fuzz_ossa_loader ]; then extra+=(-malloc_limit_mb=256); fi
  if [ "$target" = fuzz_import ]; then extra=("${extra[@]:2}" -malloc_limit_mb=65536 -timeout=60 -report_slow_units=1); fi
  status=0
  build/fuzz/fuzz/$target "${extra[@]}" -max_total_time="$seconds" -print_final_stats=1 -max_len=2000000 -rss_limit_mb=2048 \
    -artifact_prefix=build/fuzz/ "$corpus/$dir" "$seeds/$dir" > "build/fuzz/$target.log" 2>&1 || status=$?
  grep -E "Done [0-9]+ runs|ERROR|SUMMARY|stat::peak_rss_mb|Slowest unit" "build/fuzz/$target.log" | sort -u || true
  grep -E "^#[0-9]+.*cov: " "build/fuzz/$target.log" | tail -1 || true
  grep -q "Slowest unit" "build/fuzz/$target.log" || echo "fuzz: $target: no input took 1 s or more"
  if [ "$status" != 0 ]; then
    echo "fuzz: $target found a problem (log: build/fuzz/$target.log; artifacts: build/fuzz/crash-*; once fixed, keep the input in fuzz/regressions/$dir/)"
    tail -40 "build/fuzz/$target.log"
    exit 1
  fi
done
echo "fuzz: no findings"
