#!/usr/bin/env bash
# Regenerate docs/screenshots/*.png: the browser test plays one whole game of each of the
# five games by tapping the page and photographs it at phone 390x844, tablet 1180x820 and
# 820x1180 and TV 1920x1080 (plus the set-up page), and writes per game and size the banner's
# place, font sizes, the lowest contrast, options per step and taps per declaration to
# docs/screenshots/figures.json.  PYTHON=/path/to/python picks the interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${SCREENSHOTS_DIR:-docs/screenshots}"  # extra arguments go to pytest
rm -f "$OUT"/{times_square,king_of_clubs,jivecat,baron_voodoo,swing_state,setup}-*.png \
  "$OUT"/taps.json "$OUT"/figures.json  # only the pictures it makes
mkdir -p "$OUT"
COMPANION_SCREENSHOTS="$OUT" PYTHONPATH="$PWD" "${PYTHON:-.venv/bin/python}" -m pytest -q -p no:cacheprovider \
  tests/test_browser.py -k "whole_game or set_up" "$@"
ls "$OUT"
