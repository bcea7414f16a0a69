#!/usr/bin/env bash
# Runs the hostile-input suite (tests/test_cli_hostile.cpp: every class of SECURITY.md, inputs generated in
# code) against an `ossa` binary: the release build's by default, or the one given.
# Usage: scripts/hostile-check.sh [PATH/TO/ossa]     (builds the release preset first when needed)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
cli="${1:-build/release/ossa}"
if [ ! -x build/release/tests/ossa_cli_tests ] || [ "$cli" = build/release/ossa ]; then
  scripts/bootstrap.sh release >/dev/null
fi
[ -x "$cli" ] || { echo "hostile-check: no ossa binary at $cli"; exit 2; }
echo "hostile-check: $(realpath "$cli")"
OSSA_CLI="$(realpath "$cli")" build/release/tests/ossa_cli_tests --gtest_brief=1
