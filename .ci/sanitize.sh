#!/usr/bin/env bash
# Sanitizer job: build every extension (the SIMDe-emulated AVX-512 test backend
# included) with AddressSanitizer + UndefinedBehaviorSanitizer into a private
# copy of the tree, then run the test suite against that build with the ASan
# runtime preloaded into Python.  The main build (the editable install) is never
# touched: the copy lives in a temporary directory that is deleted at the end.
#
# Usage (inside the venv the project is installed in, e.g. .venv-ci):
#   .ci/sanitize.sh                    # CI: the suite minus two peer-suite
#                                      # re-runs (see below), nproc processes
#   SANITIZE_TESTS=all .ci/sanitize.sh # the whole suite, every backend
#   SANITIZE_TESTS="tests/core/test_aead.py -k wycheproof" .ci/sanitize.sh
# Other knobs:
#   PYTHON=...           interpreter (default: python on PATH)
#   SANITIZE_REF=HEAD    build a committed revision (git archive) instead of the
#                        working tree
#   SANITIZE_KEEP=1      keep the build directory (its path is printed)
#   SANITIZE_JOBS=N      parallel compiles (default: nproc)
#   SANITIZE_WORKERS=N   test processes (pytest-xdist, by module; default:
#                        nproc; 1 runs the tests in one process)
#
# Needs: gcc with libasan/libubsan (Debian: gcc, libgcc-12-dev: present wherever
# gcc is), Cython >= 3.0.8 and setuptools in the venv (installed if missing),
# libsimde-dev for the emulated AVX-512 backend (the build drops it otherwise).
# Exit status: non-zero on a build failure, a failing test, or any ASan/UBSan
# report (UBSan is compiled with -fno-sanitize-recover, so a report also aborts
# the test process; the log is grepped as a second line of defence).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY=${PYTHON:-python}
TESTS=${SANITIZE_TESTS:-subset}

# The CI default: the whole suite, every backend, except two re-runs of peers'
# own suites through our code, the longest modules under ASan: pycryptodome's
# (tests/faces/test_pycryptodome_suite.py) and aioquic's with use_with_aioquic()
# (one test of tests/integrations/test_quic.py).  Both drive the same kernels
# through the same engine calls as the rest.  SANITIZE_TESTS=all runs
# everything.
# Left out of both, and said when run: one module builds a module with setup.py
# (a compiler under the ASan preload), one reads the git history, which this
# copy of the files lacks; the main job runs both.
LEFT_OUT=(--ignore=tests/packaging/test_build_cache.py --ignore=tests/tooling/test_figures.py)
SUBSET=(tests --ignore=tests/faces/test_pycryptodome_suite.py
        --deselect=tests/integrations/test_quic.py::test_aioquic_own_tests_with_the_switch_on
        "${LEFT_OUT[@]}")

CC=${CC:-gcc}
LIBASAN=$("$CC" -print-file-name=libasan.so)
if [ ! -e "$LIBASAN" ] || [ "$LIBASAN" = libasan.so ]; then
    echo "sanitize: $CC has no libasan.so" >&2
    exit 2
fi

"$PY" - <<'EOF' || "$PY" -m pip install -q "Cython>=3.0.8" "setuptools>=77" wheel
import Cython, setuptools  # noqa: F401
from Cython.Compiler.Version import version
assert tuple(int(x) for x in version.split(".")[:2]) >= (3, 0)
EOF
# The suite under ASan is CPU-bound and single-threaded: pytest-xdist spreads
# its modules over the cores (--dist loadfile keeps each module, and its
# module-scoped fixtures such as the sshd, in one process).
WORKERS=${SANITIZE_WORKERS:-$(nproc)}
XDIST=()
if [ "$WORKERS" -gt 1 ]; then
    "$PY" -c 'import xdist' 2>/dev/null || "$PY" -m pip install -q "pytest-xdist>=3"
    # a worker that a sanitizer aborts fails its test; two such crashes end the run
    XDIST=(-n "$WORKERS" --dist loadfile --max-worker-restart=2)
fi

if [ -n "${SANITIZE_DIR:-}" ]; then
    # development: reuse a kept build (SANITIZE_KEEP=1 printed its path); only
    # the tests are refreshed from the tree
    WORK=$SANITIZE_DIR
    SANITIZE_KEEP=1
    rm -rf "$WORK/tests" && cp -r "$ROOT/tests" "$WORK/tests"
else
WORK=$(mktemp -d "${TMPDIR:-/tmp}/poly1305x-sanitize.XXXXXX")
fi
cleanup() {
    if [ "${SANITIZE_KEEP:-0}" = 1 ]; then
        echo "sanitize: kept $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

# 1. a private copy of the sources (no build products: .gitignore excludes them)
if [ -n "${SANITIZE_DIR:-}" ]; then
    :
elif [ -n "${SANITIZE_REF:-}" ]; then
    git -C "$ROOT" archive "$SANITIZE_REF" | tar -x -C "$WORK"
else
    (cd "$ROOT" && git ls-files -co --exclude-standard -z \
        | xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' \
        | tar --null -T - -cf -) | tar -x -C "$WORK"
fi

# 2. the sanitized build, in place in the copy
SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
if [ -z "${SANITIZE_DIR:-}" ]; then
    echo "sanitize: building with POLY1305X_CFLAGS=\"$SAN_FLAGS\"" >&2
    start=$(date +%s)
    (cd "$WORK" && POLY1305X_CFLAGS="$SAN_FLAGS" POLY1305X_SIMDE=1 \
        "$PY" setup.py -q build_ext --inplace -j "${SANITIZE_JOBS:-$(nproc)}") \
        > "$WORK/build.log" 2>&1 || { tail -50 "$WORK/build.log" >&2; exit 1; }
    grep -h "poly1305x build:" "$WORK/build.log" >&2 || true
    echo "sanitize: build took $(( $(date +%s) - start )) s" >&2
fi

# 3. the tests, against the copy (cwd first on sys.path beats the editable
#    install's meta-path finder; checked below)
export LD_PRELOAD="$LIBASAN${LD_PRELOAD:+:$LD_PRELOAD}"
# Python leaks by design (interned objects, static types): no leak check.
# PYTHONMALLOC=malloc: every bytes/bytearray is its own malloc block, so an
# overrun past a Python buffer is caught, not hidden inside a pymalloc arena.
# allocator_may_return_null + max_allocation_size_mb: an absurd allocation is a
# MemoryError as without ASan, instead of ASan poisoning (and the kernel's OOM
# killer reaping) a 2^38-byte block.
# log_path: every report, from pytest, its xdist workers and any Python a
# test starts (whose stderr the test may capture), lands in $WORK/san-report.PID.
export ASAN_OPTIONS="allocator_may_return_null=1:max_allocation_size_mb=8192:detect_leaks=0:abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:print_summary=1:log_path=$WORK/san-report"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:report_error_type=1:log_path=$WORK/san-report"
export PYTHONMALLOC=malloc
export PYTHONFAULTHANDLER=1
# pycryptodome (a test oracle) dlopens its C parts with RTLD_DEEPBIND, which the
# ASan runtime refuses (google/sanitizers#611) by killing the process.
export PYCRYPTODOME_DISABLE_DEEPBIND=1
export POLY1305X_SANITIZED=1  # tests may shorten their budgets
cd "$WORK"
"$PY" - <<'EOF'
import os, sys
import poly1305x, poly1305x._core._engine as e, poly1305x._kernels._portable as p
here = os.getcwd()
for m in (poly1305x, e, p):
    assert os.path.realpath(m.__file__).startswith(os.path.realpath(here)), \
        f"sanitize: {m.__name__} imported from {m.__file__}, not the sanitized copy"
from poly1305x._core import _dispatch
print("sanitize: backends", poly1305x.backends(), "emulated", _dispatch.emulated_backends(),
      file=sys.stderr)
EOF

if [ "$TESTS" = subset ]; then
    args=("${SUBSET[@]}")
elif [ "$TESTS" = all ]; then
    args=(tests "${LEFT_OUT[@]}")
else
    # shellcheck disable=SC2206
    args=($TESTS)
fi

echo "sanitize: leaving out tests/packaging/test_build_cache.py (it builds from source) and" \
     "tests/tooling/test_figures.py (it reads the git history)" >&2
rm -f "$WORK"/san-report.*
set +e
"$PY" -m pytest -q -p no:cacheprovider -o addopts= --import-mode=importlib -rfE "${XDIST[@]}" "${args[@]}" 2>&1 | tee "$WORK/pytest.log"
rc=${PIPESTATUS[0]}
set -e

pattern="ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer|SUMMARY: (Address|UndefinedBehavior)Sanitizer"
reports=$(cat "$WORK/pytest.log" "$WORK"/san-report.* 2>/dev/null | grep -c -E "$pattern" || true)
for f in "$WORK"/san-report.*; do
    [ -f "$f" ] || continue
    echo "sanitize: report ${f##*/}:" >&2
    head -60 "$f" >&2
done
summary=$(grep -E "(passed|failed).* in [0-9.]+s" "$WORK/pytest.log" | tail -1 || true)
if [ -z "$summary" ]; then
    echo "sanitize: pytest died before its summary (signal or sanitizer abort; exit $rc)" >&2
    tail -30 "$WORK/pytest.log" >&2
    exit 1
fi
echo "sanitize: tests: ${summary:-none}; sanitizer reports: $reports" >&2
if [ "$reports" != 0 ]; then
    echo "sanitize: FAILED: sanitizer reports above" >&2
    exit 1
fi
if [ "$rc" = 5 ]; then
    echo "sanitize: pytest collected no tests" >&2
    exit 1
fi
exit "$rc"
