#!/bin/bash
# Keyed (exact keys) against fixed-rate clips: the character update of every clip of the bundled sample and
# of ../shared/models, each pair measured in one `ossa bench` run (interleaved, 16 characters, median of 31
# rounds), RUNS runs per clip; prints each clip's ratio range and the worst.
#   bench/keyed-vs-fixed.sh [BUILD_DIR] [RUNS]      (defaults: build/release, 5)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ossa=${1:-$root/build/release}/ossa
runs=${2:-5}
source "$root/bench/common.sh"
model_files "$root" "$root/assets/sample/ossa_sample.fbx"
printf '%-44s %-22s %-18s %-18s %s\n' file clip "fixed ns" "keyed ns" "keyed / fixed"
for f in "${files[@]}"; do
  "$ossa" info "$f" 2>/dev/null | awk '/^clips:/{c=1; next} c && /^  [^ ]/{print $1} /^$/{c=0}' |
    while read -r clip; do
      for _ in $(seq "$runs"); do "$ossa" bench "$f" --clip "$clip" --json 2>/dev/null; echo; done |
        python3 -c '
import json, sys
rows = [json.loads(line) for line in sys.stdin if line.strip()]
fixed = [r["update_ns"] for r in rows]
keyed = [r["keyed_update_ns"] for r in rows]
ratio = sorted(k / f for k, f in zip(keyed, fixed))
print("%-44s %-22s %-18s %-18s %.2f (%.2f-%.2f)" % (sys.argv[1][-44:], sys.argv[2][-22:],
      "%.0f-%.0f" % (min(fixed), max(fixed)), "%.0f-%.0f" % (min(keyed), max(keyed)),
      ratio[len(ratio) // 2], ratio[0], ratio[-1]))' "$(basename "$f")" "$clip"
    done
done
