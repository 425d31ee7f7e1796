#!/usr/bin/env bash
# Install Table Companion on Raspberry Pi OS (Bookworm or later) as a systemd service.
#
#   sudo bash deploy/install.sh            # the whole install
#   bash deploy/install.sh --dry-run       # print every step, change nothing
#   bash deploy/install.sh --prefix /tmp/root --no-system [--venv DIR]
#                                          # the file steps under a prefix (a chroot's root,
#                                          # or a test), no apt, user or systemctl
#
# Steps: Debian packages (python3-venv; python3-picamera2 and python3-lgpio where the
# archive has them) -> a system user 'companion' in the video, dialout and gpio groups ->
# a venv that sees the system's Picamera2 (--system-site-packages) with the companion in it
# -> /etc/table-companion/profile/table.toml from the example (never overwritten) ->
# /var/lib/table-companion for the game log -> the systemd unit, enabled at boot.
set -euo pipefail

SRC="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX=""
DRY=0
SYSTEM=1
VENV=""
START=0
USER_NAME=companion

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX="${2%/}"; shift 2 ;;
    --dry-run) DRY=1; shift ;;
    --no-system) SYSTEM=0; shift ;;
    --venv) VENV="$2"; shift 2 ;;
    --start) START=1; shift ;;
    -h|--help) usage 0 ;;
    *) echo "unknown option: $1" >&2; usage 2 ;;
  esac
done

OPT="$PREFIX/opt/table-companion"
ETC="$PREFIX/etc/table-companion"
PROFILE="$ETC/profile"
DATA="$PREFIX/var/lib/table-companion"
UNIT_DIR="$PREFIX/etc/systemd/system"
UNIT="$UNIT_DIR/table-companion.service"
VENV="${VENV:-$OPT/venv}"

step() { echo "== $*"; }
run() {
  echo "+ $*"
  if [ "$DRY" -eq 0 ]; then "$@"; fi
}

if [ "$SYSTEM" -eq 1 ] && [ "$DRY" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
  echo "run as root (sudo bash $0), or with --dry-run to see the steps" >&2
  exit 1
fi

step "1/6 Debian packages"
PACKAGES=(python3-venv python3-pip)
for optional in python3-picamera2 python3-lgpio; do
  if [ "$DRY" -eq 1 ] || apt-cache show "$optional" >/dev/null 2>&1; then PACKAGES+=("$optional"); fi
done
if [ "$SYSTEM" -eq 1 ]; then
  run apt-get update
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y "${PACKAGES[@]}"
else
  echo "  (skipped: --no-system) would install: ${PACKAGES[*]}"
fi

step "2/6 the service's user"
if [ "$SYSTEM" -eq 1 ]; then
  GROUPS_WANTED=""
  for group in video dialout gpio; do
    if [ "$DRY" -eq 1 ] || getent group "$group" >/dev/null; then GROUPS_WANTED="${GROUPS_WANTED:+$GROUPS_WANTED,}$group"; fi
  done
  if [ "$DRY" -eq 1 ] || ! id "$USER_NAME" >/dev/null 2>&1; then
    run useradd --system --user-group --home-dir /var/lib/table-companion --shell /usr/sbin/nologin \
      ${GROUPS_WANTED:+--groups "$GROUPS_WANTED"} "$USER_NAME"
  elif [ -n "$GROUPS_WANTED" ]; then
    run usermod --append --groups "$GROUPS_WANTED" "$USER_NAME"
  fi
else
  echo "  (skipped: --no-system) would add the system user $USER_NAME (groups video, dialout, gpio)"
fi

step "3/6 the companion in a venv ($VENV)"
if [ -x "$VENV/bin/companion" ] && [ "$VENV" != "$OPT/venv" ]; then
  echo "  using the existing venv $VENV"
else
  run mkdir -p "$OPT"
  run python3 -m venv --system-site-packages "$VENV"
  run "$VENV/bin/pip" install --upgrade "$SRC"
fi

step "4/6 the table profile ($PROFILE)"
run mkdir -p "$PROFILE" "$DATA"
if [ -e "$PROFILE/table.toml" ]; then
  echo "  $PROFILE/table.toml exists: kept as it is"
else
  PIN="$(od -An -N4 -tu4 /dev/urandom | tr -d ' ' | tail -c 7 | sed 's/^0/1/')"  # this table's own
  echo "+ write $PROFILE/table.toml from docs/profile-example/table.toml (data_dir = $DATA, a new 6-digit PIN)"
  if [ "$DRY" -eq 0 ]; then
    sed -e "s|^data_dir = .*|data_dir = \"$DATA\"|" -e "s|^pin = \"[0-9]*\"|pin = \"$PIN\"|" \
      "$SRC/docs/profile-example/table.toml" > "$PROFILE/table.toml"
  fi
fi
if [ "$SYSTEM" -eq 1 ]; then
  run chown -R "$USER_NAME:$USER_NAME" "$DATA" "$PROFILE"
fi

step "5/6 the systemd unit ($UNIT)"
run mkdir -p "$UNIT_DIR"
echo "+ write $UNIT (ExecStart=$VENV/bin/companion serve --profile $PROFILE)"
if [ "$DRY" -eq 0 ]; then
  sed -e "s|/opt/table-companion/venv|$VENV|g" \
      -e "s|/etc/table-companion/profile|$PROFILE|g" \
      -e "s|^WorkingDirectory=.*|WorkingDirectory=$DATA|" \
      "$SRC/deploy/table-companion.service" > "$UNIT"
fi

step "6/6 start at boot"
if [ "$SYSTEM" -eq 1 ]; then
  if [ "$DRY" -eq 1 ] || [ -d /run/systemd/system ]; then
    run systemctl daemon-reload
  else  # a chroot or an SD-card image being built: no systemd runs, enabling still works
    echo "  systemd is not running here (a chroot or an image being built): no reload needed;"
    echo "  the service is enabled now and starts at the first boot"
  fi
  run systemctl enable table-companion.service
  if [ "$START" -eq 1 ]; then
    if [ "$DRY" -eq 1 ] || [ -d /run/systemd/system ]; then
      run systemctl restart table-companion.service
    else
      echo "  (not started: no running systemd here)"
    fi
  fi
else
  echo "  (skipped: --no-system) would run: systemctl daemon-reload; systemctl enable table-companion.service"
fi

cat <<DONE
Done. Next:
  1. edit $PROFILE/table.toml (game, players, camera, serial, pin)
  2. calibrate: sudo -u $USER_NAME $VENV/bin/companion calibrate markers --profile $PROFILE  (see calibration/README.md)
  3. check:     sudo -u $USER_NAME $VENV/bin/companion doctor --profile $PROFILE
  4. start:     sudo systemctl start table-companion; journalctl -u table-companion -f
DONE
