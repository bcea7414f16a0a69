#!/usr/bin/env bash
# Mutation testing: how many plausible developer mistakes does the test suite catch?
#
# Each entry of scripts/mutations.txt is one small mistake (a flipped sign, a dropped branch, a wrong
# threshold) in one source file; an entry may carry "= why" when the mutant is known to be equivalent (no test
# can tell it apart from the correct code, e.g. unreachable with assimp 5.2.5): it still runs, and a survivor
# is then reported with that reason instead of as a gap. The script copies the tracked sources to a scratch
# folder, builds Release there once, checks that the suite passes, then for each mutation: applies it (its
# text must occur exactly once), rebuilds incrementally, runs the whole suite (ctest --preset release,
# stopping at the first failure) and undoes it. A mutation is KILLED when a test fails, SURVIVED when the suite passes, STILLBORN when it
# does not compile (not counted). It prints the kill rate and every survivor with its description.
#
# Usage: scripts/mutate.sh [--check] [--only N[,N...]] [--min-rate PCT]
#   --check       only verify that every mutation applies to the current sources (seconds; CI runs this)
#   --only        run these mutations (numbers as listed by --check)
#   --min-rate    exit 1 when the kill rate is below PCT (default 0: report only)
# Environment: OSSA_MUTATE_DIR (scratch folder, default /tmp/ossa-mutate; reused between runs),
#   OSSA_SHARED_DIR or ../shared beside the checkout (models and Blender's evaluations: without them the
#   tests that compare with Blender skip, and fewer mutations are killed).
# Cost on the 2-core machine: ~3 min for the first build, then ~30-90 s per mutation.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
catalogue="$here/scripts/mutations.txt"
check_only=0 only="" min_rate=0
while (($#)); do
  case "$1" in
    --check) check_only=1 ;;
    --only) only=",$2," && shift ;;
    --min-rate) min_rate="$2" && shift ;;
    -h | --help) sed -n '2,20p' "${BASH_SOURCE[0]}" && exit 0 ;;
    *) echo "mutate: unknown argument $1" >&2 && exit 2 ;;
  esac
  shift
done

# The catalogue: "@ FILE | description", then "- OLD" and "+ NEW" (one line each, literal text), then
# optionally "= why it is equivalent".
files=() descriptions=() olds=() news=() equivalent=()
line_no=0 pending=""
while IFS= read -r line || [ -n "$line" ]; do
  line_no=$((line_no + 1))
  case "$line" in
    '' | '#'*) continue ;;
    '@ '*)
      [ -z "$pending" ] || { echo "mutations.txt:$line_no: entry before line $pending is incomplete" >&2 && exit 2; }
      rest="${line#@ }"
      files+=("${rest%% | *}")
      descriptions+=("${rest#* | }")
      pending=$line_no ;;
    '- '*) olds+=("${line#- }") ;;
    '+ '* | '+')
      news+=("${line#+}") && news[-1]="${news[-1]# }"
      equivalent+=("")
      [ ${#olds[@]} -eq ${#files[@]} ] || { echo "mutations.txt:$line_no: '+' without '-'" >&2 && exit 2; }
      pending="" ;;
    '= '*)
      [ ${#equivalent[@]} -eq ${#files[@]} ] || { echo "mutations.txt:$line_no: '=' before '+'" >&2 && exit 2; }
      equivalent[-1]="${line#= }" ;;
    *) echo "mutations.txt:$line_no: unexpected line: $line" >&2 && exit 2 ;;
  esac
done <"$catalogue"
[ -z "$pending" ] || { echo "mutations.txt:$pending: entry is incomplete" >&2 && exit 2; }
count=${#files[@]}

# Replaces the one occurrence of OLD by NEW in FILE (literal text; perl-base is on every Debian system).
apply() {
  OLD="$2" NEW="$3" perl -0777 -i -pe '
    my $n = () = /\Q$ENV{OLD}\E/g;
    die "the text occurs $n times (must be once)\n" unless $n == 1;
    s/\Q$ENV{OLD}\E/$ENV{NEW}/;' "$1"
}

# --check: every mutation applies to a copy of the current sources.
problems=0
for ((i = 0; i < count; i++)); do
  f="$here/${files[i]}"
  if [ ! -f "$f" ]; then
    echo "mutation $((i + 1)): ${files[i]} does not exist" >&2 && problems=$((problems + 1)) && continue
  fi
  tmp="$(mktemp)"
  cp "$f" "$tmp"
  if ! apply "$tmp" "${olds[i]}" "${news[i]}" 2>/tmp/ossa-mutate-apply.$$; then
    echo "mutation $((i + 1)) (${files[i]}): $(cat /tmp/ossa-mutate-apply.$$)" >&2
    problems=$((problems + 1))
  elif cmp -s "$f" "$tmp"; then
    echo "mutation $((i + 1)) (${files[i]}): changes nothing" >&2 && problems=$((problems + 1))
  fi
  rm -f "$tmp" /tmp/ossa-mutate-apply.$$
done
if ((problems)); then
  echo "mutate: $problems of $count mutations no longer apply; update scripts/mutations.txt" >&2
  exit 1
fi
if ((check_only)); then
  echo "mutate: all $count mutations apply to the current sources"
  exit 0
fi

# Scratch copy of the tracked (and new, unignored) files; ../shared linked beside it when present.
root="${OSSA_MUTATE_DIR:-/tmp/ossa-mutate}"
work="$root/ossa"
mkdir -p "$work"
shared="${OSSA_SHARED_DIR:-$here/../shared}"
if [ -d "$shared/models" ]; then
  ln -sfn "$(cd "$shared" && pwd)" "$root/shared"
else
  echo "mutate: no ../shared (models, Blender's evaluations): tests that need them skip"
fi
(cd "$here" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -C "$work" -xf -
# Files a previous run mutated were restored with new times; touch them so the build cannot reuse an object
# compiled from a mutant.
for f in "${files[@]}"; do touch "$work/$f"; done

log="$root/log"
mkdir -p "$log"
build() { (cd "$work" && cmake --preset release >/dev/null && cmake --build --preset release -j 2) >"$1" 2>&1; }
suite() { (cd "$work" && ctest --preset release -j 2 --stop-on-failure --timeout 300) >"$1" 2>&1; }

echo "mutate: building the scratch copy in $work"
build "$log/baseline-build.txt" || { echo "mutate: the unmutated build fails (see $log/baseline-build.txt)" >&2 && exit 1; }
suite "$log/baseline-tests.txt" || { echo "mutate: the unmutated suite fails (see $log/baseline-tests.txt)" >&2 && exit 1; }
echo "mutate: baseline builds and passes; $count mutations"

killed=0 survived=0 stillborn=0 ran=0 survived_equivalent=0
survivors=()
for ((i = 0; i < count; i++)); do
  n=$((i + 1))
  [ -z "$only" ] || [[ "$only" == *",$n,"* ]] || continue
  f="$work/${files[i]}"
  cp "$f" "$root/original"
  apply "$f" "${olds[i]}" "${news[i]}"
  start=$SECONDS
  if ! build "$log/$n-build.txt"; then
    verdict=STILLBORN && stillborn=$((stillborn + 1))
  elif suite "$log/$n-tests.txt"; then
    verdict=SURVIVED && survived=$((survived + 1))
    if [ -n "${equivalent[i]}" ]; then
      survived_equivalent=$((survived_equivalent + 1))
      survivors+=("$n ${files[i]}: ${descriptions[i]} (equivalent: ${equivalent[i]})")
    else
      survivors+=("$n ${files[i]}: ${descriptions[i]} (NOT EXPLAINED: a gap in the tests)")
    fi
  else
    killer="$(grep -m1 -oE '[0-9]+ - [^ ]+ \((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception)' "$log/$n-tests.txt" |
      sed -E 's/^[0-9]+ - //; s/$/)/' || true)"
    verdict="KILLED" && killed=$((killed + 1))
  fi
  ran=$((ran + 1))
  cp "$root/original" "$f"  # restored with a new time, so the next build recompiles it
  printf '%3d %-9s %4ds  %s: %s%s\n' "$n" "$verdict" $((SECONDS - start)) "${files[i]}" "${descriptions[i]}" \
    "$([ "$verdict" = KILLED ] && [ -n "$killer" ] && echo " [$killer]" || true)"
done

counted=$((killed + survived))
rate=$((counted ? 100 * killed / counted : 0))
meaningful=$((counted - survived_equivalent))
echo
echo "mutate: $killed of $counted mutations killed ($rate %); $survived survived, $survived_equivalent of them" \
  "known equivalent ($killed of $meaningful non-equivalent killed: $((meaningful ? 100 * killed / meaningful : 0)) %);" \
  "$stillborn did not compile"
for s in "${survivors[@]}"; do echo "  survived: $s"; done
echo "logs: $log"
((rate >= min_rate)) || exit 1
