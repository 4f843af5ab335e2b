#!/usr/bin/env bash
# Build Project Chrono's Python modules (pychrono.core, .fea, .postprocess) from a Chrono
# source archive into a cache directory outside the checkout, and make them importable by
# this interpreter through a .pth file in its site-packages.
#
#   scripts/build-pychrono.sh [--if-missing] [--install-deps] [ARCHIVE]
#
# ARCHIVE       a Chrono 10.x source archive (.tar.xz / .tar.gz); default: $CHRONO_SRC_ARCHIVE,
#               else the first chrono-*-src.tar.* in ../shared/vendor or ./vendor
# --if-missing  do nothing when `import pychrono.core` already finds the real PyChrono
#               (a conda install, or an earlier run of this script)
# --install-deps  install the build tools with apt-get when they are missing (needs root)
#
# Cache: $CHRONO_FLEX_CHRONO_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/chrono_flex; the source
# goes to CACHE/src, the build to CACHE/build. A finished build (a stamp naming the archive's
# checksum and the interpreter) is reused: only the .pth file is written again. An
# interrupted build resumes where it stopped. The interpreter is $PYTHON, else python3.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
if_missing=0
install_deps=0
archive=${CHRONO_SRC_ARCHIVE:-}
for arg in "$@"; do
  case "$arg" in
    --if-missing) if_missing=1 ;;
    --install-deps) install_deps=1 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "build-pychrono: unknown option '$arg' (see --help)" >&2; exit 2 ;;
    *) archive=$arg ;;
  esac
done

real_pychrono() {
  "$python" - <<'PY' >/dev/null 2>&1
import pychrono.core as c
assert hasattr(c, "ChSystemNSC")
import pychrono.fea
PY
}

if [ "$if_missing" = 1 ] && real_pychrono; then
  echo "build-pychrono: the real PyChrono already imports; nothing to build"
  exit 0
fi

if [ -z "$archive" ]; then
  for dir in "$here/../shared/vendor" "$here/vendor"; do
    for f in "$dir"/chrono-*-src.tar.*; do
      [ -f "$f" ] && { archive=$f; break 2; }
    done
  done
fi
if [ -z "$archive" ] && [ "$if_missing" = 1 ]; then
  echo "build-pychrono: PyChrono is absent and no Chrono source archive was found;" \
       "the tests that need it will be skipped (see README, Getting PyChrono)"
  exit 0
fi
if [ -z "$archive" ] || [ ! -f "$archive" ]; then
  echo "build-pychrono: no Chrono source archive (got '${archive}'); pass its path or set" \
       "CHRONO_SRC_ARCHIVE" >&2
  exit 2
fi
archive=$(cd "$(dirname "$archive")" && pwd)/$(basename "$archive")

cache=${CHRONO_FLEX_CHRONO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/chrono_flex}
src=$cache/src
build=$cache/build
stamp=$build/.chrono_flex-complete
mkdir -p "$cache"

# One build at a time per cache directory.
exec 9>"$cache/.lock"
if ! flock -n 9; then
  echo "build-pychrono: another build holds $cache/.lock; waiting for it"
  flock 9
fi

sum=$(sha256sum "$archive" | cut -c1-16)
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
pyexe=$("$python" -c 'import sys; print(sys.executable)')
want="archive=$sum python=$pyver"
t0=$(date +%s)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$build/bin/pychrono" ]; then
  echo "build-pychrono: reusing the finished build in $build"
else
  if [ -f "$src/.archive" ] && [ "$(cat "$src/.archive")" != "$sum" ]; then
    echo "build-pychrono: $src holds another archive; starting afresh"
    rm -rf "$src" "$build"
  fi
  if [ -f "$build/.python" ] && [ "$(cat "$build/.python")" != "$pyver" ]; then
    echo "build-pychrono: $build was configured for Python $(cat "$build/.python"); starting afresh"
    rm -rf "$build"
  fi

  missing=()
  for tool in cmake ninja swig c++; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  [ -f /usr/include/eigen3/Eigen/Core ] || [ -n "${EIGEN3_INCLUDE_DIR:-}" ] || missing+=(eigen3)
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$install_deps" = 1 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
      echo "build-pychrono: installing the build tools (${missing[*]}) with apt-get"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        cmake ninja-build swig libeigen3-dev g++ >/dev/null
    else
      echo "build-pychrono: missing build tools: ${missing[*]} (Debian: apt-get install" \
           "cmake ninja-build swig libeigen3-dev g++; or rerun with --install-deps as root)" >&2
      exit 2
    fi
  fi

  if [ ! -f "$src/.archive" ]; then
    echo "build-pychrono: unpacking $(basename "$archive") into $src"
    rm -rf "$src"
    mkdir -p "$src"
    tar -xf "$archive" -C "$src"
    # An archive with one top folder: build from inside it.
    if [ ! -f "$src/CMakeLists.txt" ]; then
      top=$(find "$src" -mindepth 1 -maxdepth 1 -type d | head -n 1)
      [ -f "$top/CMakeLists.txt" ] || { echo "build-pychrono: no CMakeLists.txt in the archive" >&2; exit 2; }
      ( shopt -s dotglob; mv "$top"/* "$src"/ ) && rmdir "$top"
    fi
    echo "$sum" >"$src/.archive"
  fi

  mkdir -p "$build"
  log=$cache/build.log
  echo "build-pychrono: building pychrono.core, .fea, .postprocess in $build" \
       "(log: $log; about 25-60 minutes on two cores)"
  if [ ! -f "$build/build.ninja" ]; then
    cmake -G Ninja -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DCH_ENABLE_MODULE_PYTHON=ON -DCH_ENABLE_MODULE_POSTPROCESS=ON \
      -DBUILD_DEMOS=OFF -DBUILD_TESTING=OFF -DBUILD_BENCHMARKING=OFF \
      -DPython3_EXECUTABLE="$pyexe" >"$log" 2>&1 \
      || { tail -n 30 "$log" >&2; echo "build-pychrono: configure failed (log: $log)" >&2; exit 1; }
    echo "$pyver" >"$build/.python"
  fi
  jobs=${CHRONO_BUILD_JOBS:-$(nproc)}
  if ! ninja -C "$build" -j "$jobs" core fea postprocess >>"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "build-pychrono: the build failed (log: $log)" >&2
    exit 1
  fi
  echo "$want" >"$stamp"
fi

site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
pth=$site/chrono_flex_pychrono.pth
echo "$build/bin" >"$pth"
if ! real_pychrono; then
  echo "build-pychrono: wrote $pth, but \`import pychrono.core\` still fails" >&2
  exit 1
fi
echo "build-pychrono: pychrono importable through $pth ($(( $(date +%s) - t0 )) s)"
