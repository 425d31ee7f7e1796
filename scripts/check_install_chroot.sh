#!/usr/bin/env bash
# Run deploy/install.sh for real in a fresh Debian bookworm chroot (the base of Raspberry Pi
# OS) and check what it left behind, step by step.  This is as far as a machine that is not
# a Pi can go: apt-get, useradd, the venv and pip, the profile and its owner, the unit and
# its enabling at boot all run as on a Pi; only starting the service needs a running systemd.
#
#   sudo bash scripts/check_install_chroot.sh [--root DIR] [--keep]
#
# Needs root, debootstrap (installed here from Debian's packages when missing) and the
# package registries (Debian's for the base system and apt, PyPI for pip).  The base system
# is cached in DIR.base (default /var/cache/table-companion/bookworm.base) so a second run
# only copies it; the install runs in a fresh copy every time.  Not part of the test suite:
# the first run downloads a base system (about 5 minutes); its figures are in
# deploy/README.md.  Prints PASS or FAIL per check and exits 1 if any failed.
set -euo pipefail

SRC="$(cd "$(dirname "$0")/.." && pwd)"
ROOT=/var/cache/table-companion/bookworm
KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --root) ROOT="${2%/}"; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
BASE="$ROOT.base"
if [ "$(id -u)" -ne 0 ]; then echo "run as root: chroot and debootstrap need it" >&2; exit 1; fi

started=$(date +%s)
lap() { echo "   ($(( $(date +%s) - started )) s so far)"; }
failures=0
check() {  # check "what" command...: PASS or FAIL with the command's own words
  local what="$1"; shift
  local out
  if out="$("$@" 2>&1)"; then
    echo "PASS $what${out:+: $(echo "$out" | tail -n 1)}"
  else
    echo "FAIL $what: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
    failures=$((failures + 1))
  fi
}
inside() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

mounted=()
cleanup() {
  for ((i=${#mounted[@]}-1; i>=0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  if [ "$KEEP" -eq 0 ] && [ -d "$ROOT" ]; then rm -rf --one-file-system "$ROOT"; fi
}
trap cleanup EXIT

echo "== 1 a Debian bookworm base system"
if [ ! -x "$BASE/usr/bin/python3" ]; then
  command -v debootstrap >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  rm -rf "$BASE"
  mkdir -p "$(dirname "$BASE")"
  # systemd for systemctl and systemd-analyze; python3 as Raspberry Pi OS Lite ships it
  debootstrap --variant=minbase --include=systemd,python3,ca-certificates,sudo bookworm "$BASE" >/dev/null
fi
rm -rf "$ROOT"
cp -a "$BASE" "$ROOT"
lap

echo "== 2 a clean checkout of this commit in the chroot, as the owner would unpack it"
mkdir -p "$ROOT/home/pi/table-companion"
git -C "$SRC" archive HEAD | tar -x -C "$ROOT/home/pi/table-companion"
for fs in proc sys dev dev/pts; do
  mkdir -p "$ROOT/$fs"
  mount --bind "/$fs" "$ROOT/$fs"
  mounted+=("$ROOT/$fs")
done
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
echo "127.0.1.1 $(hostname)" >> "$ROOT/etc/hosts"  # sudo wants its host name resolved
# this machine's own certificate authorities (a network that inspects TLS has its own): on a
# Pi the chroot's Debian bundle is what pip uses; here pip must trust what the host trusts
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"

echo "== 3 deploy/install.sh, for real"
if inside bash /home/pi/table-companion/deploy/install.sh > "$ROOT/install.log" 2>&1; then
  echo "PASS install.sh exited 0"
else
  echo "FAIL install.sh exited non-zero; its last lines:"
  tail -n 20 "$ROOT/install.log"
  failures=$((failures + 1))
fi
grep '^== ' "$ROOT/install.log" || true
lap

echo "== 4 what it left behind"
check "the service user exists, in the groups it could join" inside id companion
check "the user has no login shell" bash -c "[ \"\$(chroot '$ROOT' getent passwd companion | cut -d: -f7)\" = /usr/sbin/nologin ] && echo nologin"
check "the venv imports the companion and OpenCV" \
  inside /opt/table-companion/venv/bin/python -c "import companion, cv2, serial, gpiozero, flask; print('companion', cv2.__version__)"
check "the venv sees the system's packages (for Picamera2 on a Pi)" \
  grep -q "include-system-site-packages = true" "$ROOT/opt/table-companion/venv/pyvenv.cfg"
check "the profile was written, with a fresh 6-digit PIN" \
  bash -c "grep -E '^pin = \"[0-9]{6}\"' '$ROOT/etc/table-companion/profile/table.toml'"
check "the profile loads and validates" \
  inside /opt/table-companion/venv/bin/python -c "from companion.profile import Profile; p = Profile.load('/etc/table-companion/profile'); print('profile ok: game', p.get('table', 'game'))"
check "the profile and the data folder belong to the service user" \
  bash -c "[ \"\$(chroot '$ROOT' stat -c %U /etc/table-companion/profile /etc/table-companion/profile/table.toml /var/lib/table-companion | sort -u)\" = companion ] && echo owned"
check "the unit is installed" test -f "$ROOT/etc/systemd/system/table-companion.service"
check "the unit is enabled at boot" \
  bash -c "readlink '$ROOT/etc/systemd/system/multi-user.target.wants/table-companion.service'"
check "systemctl in the chroot calls it enabled" inside systemctl is-enabled table-companion.service
# --man=no: a minimal base system has no man pages for the unit's Documentation= line
check "systemd-analyze verify accepts the installed unit" \
  inside systemd-analyze verify --man=no /etc/systemd/system/table-companion.service
doctor_out="$(inside sudo -u companion /opt/table-companion/venv/bin/companion doctor --profile /etc/table-companion/profile 2>&1 || true)"
echo "$doctor_out" | sed 's/^/   doctor| /'
check "doctor runs as the service user and names what to fix" \
  bash -c "printf '%s' \"\$1\" | grep -q 'profile' && printf '%s' \"\$1\" | grep -Eqi 'fail|warn|ok'" _ "$doctor_out"

echo "== 5 a second run keeps the owner's profile"
pin_before="$(grep '^pin' "$ROOT/etc/table-companion/profile/table.toml" 2>/dev/null || echo none)"
if inside bash /home/pi/table-companion/deploy/install.sh > "$ROOT/install2.log" 2>&1; then
  check "the PIN is unchanged after a re-install" \
    bash -c "[ \"\$(grep '^pin' '$ROOT/etc/table-companion/profile/table.toml')\" = '$pin_before' ] && echo kept"
else
  echo "FAIL the second install.sh run exited non-zero"; tail -n 10 "$ROOT/install2.log"
  failures=$((failures + 1))
fi
lap

if [ "$failures" -eq 0 ]; then
  echo "all checks passed in $(( $(date +%s) - started )) s"
else
  echo "$failures check(s) failed"
  exit 1
fi
