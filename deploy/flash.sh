#!/usr/bin/env bash
# Flash the table device's firmware to a Raspberry Pi Pico running MicroPython, with mpremote.
#
#   bash deploy/flash.sh [PORT]        # PORT: e.g. /dev/ttyACM0; default: mpremote's auto
#   bash deploy/flash.sh --dry-run     # print the mpremote commands only
#
# The Pico needs MicroPython first (hold BOOTSEL, plug in, copy the RPI_PI_PICO .uf2 from
# micropython.org to the drive that appears). mpremote: pip install mpremote.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
DRY=0
PORT=auto
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY=1 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) PORT="$arg" ;;
  esac
done
MPREMOTE="${MPREMOTE:-mpremote}"
if [ "$DRY" -eq 0 ] && ! command -v "$MPREMOTE" >/dev/null 2>&1; then
  echo "mpremote is not installed: pip install mpremote (or set MPREMOTE=/path/to/mpremote)" >&2
  exit 1
fi
run() { echo "+ $*"; if [ "$DRY" -eq 0 ]; then "$@"; fi; }
# main.py last: the Pico runs it at boot, and it imports the others
for file in protocol.py mfrc522.py app.py main.py; do
  run "$MPREMOTE" connect "$PORT" fs cp "$SRC/firmware/$file" ":$file"
done
run "$MPREMOTE" connect "$PORT" reset
echo "flashed; check with: companion doctor --serial ${PORT/auto//dev/ttyACM0}"
