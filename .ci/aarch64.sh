#!/usr/bin/env bash
# aarch64 in CI: cross-build a poly1305x wheel for aarch64 on this x86-64 host,
# then run it under qemu-user: `python -m poly1305x selftest` and the Poly1305,
# ChaCha20 and ChaCha20-Poly1305 known-answer and differential tests (RFC 8439,
# the XChaCha draft, Wycheproof, the big-integer reference, pycryptodome and
# cryptography), on every backend the aarch64 build has; it also checks that
# the build's portable Poly1305 is the NEON kernel (POLY_KIND), for one
# message and for a batch (POLY_LANES_KIND: two messages at once).
#
# Prints one line of its own on stdout, `aarch64: N passed, N failed` (each
# self-test backend line counts as one test), and exits non-zero unless N
# failed is 0 and N passed >= 100.  Everything else goes to the log
# ($POLY1305X_AARCH64_LOG, default a temporary file), shown on failure.
#
# The route (binfmt_misc is not available everywhere, so arm64 programs are
# always started through qemu-aarch64-static explicitly):
#  * apt: qemu-user-static debootstrap gcc-aarch64-linux-gnu libc6-dev-arm64-cross
#  * an arm64 Debian userland made by `debootstrap --foreign` (first stage only,
#    which runs no arm64 code) and unpacking its .debs with dpkg-deb -x; it is
#    both the cross compiler's sysroot (Python headers) and qemu's -L root
#  * the wheel built by the host's Python with the cross compiler
#  * a venv whose bin/python is a script running the arm64 python3 under qemu
#    (so tests that start `sys.executable` go through qemu too), with the test
#    dependencies' aarch64 wheels installed from the host by pip --platform
# The userland and the venv are cached in $POLY1305X_AARCH64_CACHE (default
# /var/cache/poly1305x-ci/aarch64) so a rerun on the same machine skips the
# downloads; either way the run is about three minutes here, most of it the
# tests under emulation.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/lib.sh     # junit_counts
SRC=$PWD
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1

CACHE=${POLY1305X_AARCH64_CACHE:-/var/cache/poly1305x-ci/aarch64}
MIRROR=${POLY1305X_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm          # its python3 is 3.11
PYV=3.11
ROOT=$CACHE/root-$SUITE
VENV=$CACHE/venv-$PYV
# The tests that run under emulation (a few minutes in all).
TESTS=(tests/core/test_poly1305.py tests/core/test_chacha20.py tests/core/test_aead.py
       tests/kernels/test_chacha20_multiblock.py tests/kernels/test_chacha20_kernels.py
       tests/kernels/test_poly1305_kernels.py tests/kernels/test_poly1305_neon.py tests/core/test_aead_batch.py
       tests/kernels/test_poly1305_neon_lanes.py tests/kernels/test_chacha20_lanes.py)
# Their third-party imports (aarch64 or pure-Python wheels from PyPI).
REQS=("pytest>=7" "hypothesis>=6" "cryptography>=47" "pycryptodome>=3.20" "numpy")

work=$(mktemp -d -t poly1305x-aarch64-XXXXXX)
LOG=${POLY1305X_AARCH64_LOG:-$work/aarch64.log}
trap 'rm -rf "$work"' EXIT
: >"$LOG"
fail() {
    echo "aarch64.sh: $*; log follows" >&2
    tail -n 80 "$LOG" >&2
    echo "aarch64: 0 passed, 1 failed"
    exit 1
}
run() { "$@" >>"$LOG" 2>&1; }

# --- host tools ---------------------------------------------------------------
need=()
command -v qemu-aarch64-static >/dev/null 2>&1 || need+=(qemu-user-static)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need+=(gcc-aarch64-linux-gnu)
[ -d /usr/aarch64-linux-gnu/include ] || need+=(libc6-dev-arm64-cross)
if [ ${#need[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO=sudo
    run $SUDO apt-get update -qq || fail "apt-get update"
    DEBIAN_FRONTEND=noninteractive run $SUDO apt-get install -y -qq "${need[@]}" \
        || fail "apt-get install ${need[*]}"
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9          # one builder of the cache at a time (concurrent CI runs)

# --- the arm64 userland (cached) ------------------------------------------------
if [ ! -f "$ROOT/.complete" ]; then
    rm -rf "$ROOT"
    run debootstrap --arch=arm64 --foreign --variant=minbase \
        --include=python3,libpython$PYV-dev "$SUITE" "$ROOT" "$MIRROR" \
        || fail "debootstrap (first stage)"
    for deb in "$ROOT"/var/cache/apt/archives/*.deb; do
        dpkg-deb -x "$deb" "$ROOT" || fail "dpkg-deb -x $deb"
    done
    rm -f "$ROOT"/var/cache/apt/archives/*.deb
    touch "$ROOT/.complete"
fi
ARMPY=$ROOT/usr/bin/python$PYV
[ -x "$ARMPY" ] || fail "no $ARMPY in the arm64 root"

# --- the emulated venv and its test dependencies (cached by requirement list) ---
# A host venv with the build requirements, also the pip that fetches the
# emulated venv's wheels.
HOSTVENV=$CACHE/host-venv
if [ ! -f "$HOSTVENV/.complete" ]; then
    rm -rf "$HOSTVENV"
    run "${PYTHON:-python3}" -m venv "$HOSTVENV" || fail "host venv"
    run "$HOSTVENV/bin/python" -m pip install -q "setuptools>=77" "Cython>=3.0.8" wheel \
        || fail "host build requirements"
    touch "$HOSTVENV/.complete"
fi
HOSTPY=$HOSTVENV/bin/python

reqs_id=$(printf '%s\n' "${REQS[@]}" | sha256sum | cut -c1-16)
if [ ! -f "$VENV/.complete-$reqs_id" ]; then
    rm -rf "$VENV"
    mkdir -p "$VENV/bin" "$VENV/lib/python$PYV/site-packages"
    armver=$(qemu-aarch64-static -L "$ROOT" "$ARMPY" -c \
        'import platform; print(platform.python_version())' 2>>"$LOG") \
        || fail "the arm64 python does not start under qemu"
    printf 'home = %s\ninclude-system-site-packages = false\nversion = %s\n' \
        "$ROOT/usr/bin" "$armver" >"$VENV/pyvenv.cfg"
    # -0 "$0": argv[0] (hence sys.executable and the venv) is this script.
    cat >"$VENV/bin/python" <<EOF
#!/bin/sh
exec qemu-aarch64-static -L "$ROOT" -0 "\$0" "$ARMPY" "\$@"
EOF
    chmod +x "$VENV/bin/python"
    ln -s python "$VENV/bin/python3"
    plats=()
    for p in manylinux2014_aarch64 manylinux_2_17_aarch64 manylinux_2_28_aarch64 \
             manylinux_2_34_aarch64 linux_aarch64; do
        plats+=(--platform "$p")
    done
    run "$HOSTPY" -m pip install -q --target "$VENV/lib/python$PYV/site-packages" \
        "${plats[@]}" --only-binary=:all: --python-version "$PYV" --implementation cp \
        --abi "cp${PYV/./}" --abi abi3 --abi none "${REQS[@]}" \
        || fail "pip install of the test dependencies (aarch64 wheels)"
    touch "$VENV/.complete-$reqs_id"
fi

# POLY1305X_AARCH64_SETUP_ONLY=1: only the cached root and venv (.ci/wheels.sh
# cross-builds against the root's headers).
[ "${POLY1305X_AARCH64_SETUP_ONLY:-0}" = 1 ] && exit 0

# --- cross-build the wheel -------------------------------------------------------
# POLY1305X_AARCH64_WHEEL=path: test that wheel (.ci/wheels.sh's manylinux
# one) instead of building one here.
if [ -n "${POLY1305X_AARCH64_WHEEL:-}" ]; then
    mkdir -p "$work/dist"
    cp "$POLY1305X_AARCH64_WHEEL" "$work/dist/" || fail "no wheel $POLY1305X_AARCH64_WHEEL"
else
# A clean copy of the tree (tracked and untracked-not-ignored files), so no
# in-tree build artefact leaks in.
mkdir -p "$work/src" "$work/dist"
git ls-files -z --cached --others --exclude-standard \
    | grep -zvE '^(\.nox|dist|build|\.venv[^/]*)/' \
    | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done \
    | xargs -0 cp --parents -t "$work/src"
CC_ARM="aarch64-linux-gnu-gcc --sysroot=$ROOT"
(
    cd "$work/src"
    export _PYTHON_HOST_PLATFORM=linux-aarch64
    export CC="$CC_ARM" LDSHARED="$CC_ARM -shared"
    export CFLAGS="-I$ROOT/usr/include/python$PYV -I$ROOT/usr/include/aarch64-linux-gnu/python$PYV"
    export LDFLAGS="" SETUPTOOLS_EXT_SUFFIX=".cpython-${PYV/./}-aarch64-linux-gnu.so"
    export POLY1305X_SIMDE=0 POLY1305X_NO_SIMD=0 POLY1305X_NO_INT128=0 POLY1305X_CFLAGS=""
    "$HOSTPY" -m pip wheel -q --no-deps --no-build-isolation \
        -w "$work/dist" .
) >>"$LOG" 2>&1 || fail "cross-build of the aarch64 wheel"
fi
wheel=$(ls "$work"/dist/poly1305x-*.whl)
echo "wheel: $(basename "$wheel")" >>"$LOG"
"$HOSTPY" -m zipfile -l "$wheel" >"$work/wheel.txt"
cat "$work/wheel.txt" >>"$LOG"
grep -q '_portable\.cpython-[0-9]*-aarch64-linux-gnu\.so' "$work/wheel.txt" \
    || fail "the wheel has no aarch64 _portable module"
if grep -q '\(_x86_[a-z0-9_]*\|x86_64[a-z0-9_-]*\)\.so' "$work/wheel.txt"; then
    fail "the aarch64 wheel holds x86 modules"
fi

# --- run under qemu ------------------------------------------------------------------
# The wheel unpacked into a private site directory; tests run from a copy
# outside the source tree, so `import poly1305x` is the wheel's.
"$HOSTPY" -m zipfile -e "$wheel" "$work/site"
mkdir -p "$work/run"
cp -r "$SRC/tests" "$work/run/"
cd "$work/run"
export PYTHONPATH=$work/site

passed=0
failed=0
"$VENV/bin/python" -m poly1305x selftest >"$work/selftest.out" 2>&1 || true
cat "$work/selftest.out" >>"$LOG"
passed=$((passed + $(grep -c '^PASS' "$work/selftest.out" || true)))
failed=$((failed + $(grep -c '^FAIL' "$work/selftest.out" || true)))
grep -q '^PASS' "$work/selftest.out" || failed=$((failed + 1))
# What the wheel is: the portable modules, ChaCha20 on NEON (generic vectors)
# and the portable backend's Poly1305 on NEON (two lanes of 26-bit limbs).
if "$VENV/bin/python" -c "import poly1305x, poly1305x._kernels._portable as p
assert p.VEC_KIND == 'gnu-vector', p.VEC_KIND
assert p.POLY_KIND == 'neon-2x26' and p.HAVE_NEON_POLY, p.POLY_KIND
assert p.POLY_LANES_KIND == 'neon-2x26-lanes', p.POLY_LANES_KIND
from poly1305x._kernels._registry import BACKENDS    # the backends of every target
want = [b['name'] for b in BACKENDS if b['target'] is None and not b['emulated']]
assert poly1305x.backends() == want, (poly1305x.backends(), want)
print('aarch64 build:', p.VEC_KIND, p.POLY_KIND, p.POLY_LANES_KIND, poly1305x.backends())" >>"$LOG" 2>&1; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

"$VENV/bin/python" -m pytest -q -p no:cacheprovider -o addopts="" --import-mode=importlib \
    --junitxml="$work/junit.xml" "${TESTS[@]}" >>"$LOG" 2>&1 || true
# A skip is no pass: it counts as failed; no report at all (pytest could not
# start) as one failed test (.ci/lib.sh, junit_counts).
read -r t_passed t_failed _ <<<"$(junit_counts "$HOSTPY" "$work/junit.xml")"
passed=$((passed + t_passed))
failed=$((failed + t_failed))

if [ "$failed" -ne 0 ] || [ "$passed" -lt 100 ]; then
    echo "aarch64.sh: failures (or fewer than 100 tests); log follows" >&2
    grep -E "^(FAIL|FAILED|ERROR)|Error|error:" "$LOG" | tail -n 60 >&2 || true
    echo "aarch64: $passed passed, $failed failed"
    exit 1
fi
echo "aarch64: $passed passed, $failed failed"
