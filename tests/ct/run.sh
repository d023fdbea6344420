#!/usr/bin/env bash
# Constant-time check: build poly1305x with debug info (-g; same -O3 code as
# the release build) in a private copy, run tests/ct/ct_valgrind.py under
# valgrind memcheck with every secret marked undefined, and let
# check_report.py decide.  See docs/security.md, "Constant time".
#
# Usage (inside the project's venv):  tests/ct/run.sh [backend ...]
# Knobs: PYTHON (default python); CT_DIR=dir reuses a build made by an earlier
# run with CT_KEEP=1 (its path is printed).
# Needs: valgrind (Debian: valgrind, which also ships <valgrind/memcheck.h>),
# gcc, Cython + setuptools in the venv (installed if missing), libsimde-dev for
# the emulated AVX-512 backend.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY=${PYTHON:-python}
command -v valgrind >/dev/null || { echo "ct: valgrind is not installed" >&2; exit 2; }
[ -f /usr/include/valgrind/memcheck.h ] || { echo "ct: no <valgrind/memcheck.h>" >&2; exit 2; }

if [ -n "${CT_DIR:-}" ]; then
    WORK=$CT_DIR
    rm -rf "$WORK/tests" && cp -r "$ROOT/tests" "$WORK/tests"
else
    "$PY" -c "import Cython, setuptools" 2>/dev/null || "$PY" -m pip install -q "Cython>=3.0.8" "setuptools>=77" wheel
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/poly1305x-ct.XXXXXX")
    if [ "${CT_KEEP:-0}" = 1 ]; then
        trap 'echo "ct: kept $WORK" >&2' EXIT
    else
        trap 'rm -rf "$WORK"' EXIT
    fi
    (cd "$ROOT" && git ls-files -co --exclude-standard -z \
        | xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' \
        | tar --null -T - -cf -) | tar -x -C "$WORK"
    start=$(date +%s)
    (cd "$WORK" && POLY1305X_CFLAGS="-g" POLY1305X_SIMDE=1 \
        "$PY" setup.py -q build_ext --inplace -j "$(nproc)") > "$WORK/build.log" 2>&1 \
        || { tail -40 "$WORK/build.log" >&2; exit 1; }
    echo "ct: -g build took $(( $(date +%s) - start )) s" >&2
fi

gcc -shared -fPIC -O1 -o "$WORK/ct_mark.so" "$ROOT/tests/ct/ct_mark.c"
cd "$WORK"
start=$(date +%s)
set +e
# --vex-guest-chase=no: with chasing, VEX joins `if ok: <jump>` and the
# next jump to the same place into one exit, so the branch on the public
# compare result is reported a line late, where the checker cannot tell it
# from a secret-dependent one.
CT_MARK_LIB="$WORK/ct_mark.so" PYTHONMALLOC=malloc PYTHONPATH="$WORK${PYTHONPATH:+:$PYTHONPATH}" \
    valgrind --tool=memcheck --leak-check=no --error-limit=no --vex-guest-chase=no --xml=yes \
    --xml-file="$WORK/ct.xml" --log-file="$WORK/valgrind.log" \
    "$PY" tests/ct/ct_valgrind.py "$@" 2> "$WORK/ct.stderr"
rc=$?
set -e
if [ $rc -ne 0 ]; then
    echo "ct: the harness failed under valgrind (exit $rc)" >&2
    tail -30 "$WORK/ct.stderr" >&2
    exit 1
fi
grep "backends checked" "$WORK/ct.stderr" >&2 || true
echo "ct: valgrind run took $(( $(date +%s) - start )) s" >&2
"$PY" "$ROOT/tests/ct/check_report.py" "$WORK/ct.xml" "$WORK"
