#!/usr/bin/env bash
# Regenerate docs/screenshots/*.png: the browser test plays one whole game of each of the
# five games by tapping the page and photographs it at 1024x768, 768x1024 and 390x844
# (plus the set-up page), and writes the taps per declaration to docs/screenshots/taps.json.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${SCREENSHOTS_DIR:-docs/screenshots}"  # extra arguments go to pytest
rm -f "$OUT"/*.png "$OUT"/taps.json
mkdir -p "$OUT"
COMPANION_SCREENSHOTS="$OUT" .venv/bin/python -m pytest -q -p no:cacheprovider \
  tests/test_browser.py -k "whole_game or set_up" "$@"
ls "$OUT"
