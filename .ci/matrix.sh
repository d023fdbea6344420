#!/usr/bin/env bash
# The sdist, every CI run: built from a clean copy of the tree, then installed
# into a fresh virtualenv per CPython that holds nothing but pip (the build
# takes setuptools and Cython from the sdist's build-requires, in pip's
# isolated build, and the system C compiler), and `python -m poly1305x
# selftest` run from an empty directory, so it is the installed copy.
#
#   bash .ci/matrix.sh            # 3.11 and 3.13
#   bash .ci/matrix.sh 3.12       # any others
#
# The test suite itself runs on the release wheels (.ci/wheel-tests.sh: the
# whole suite on cp314 and cp315); the full 3.11..3.15 matrix
# from sdists is `nox -s tests` (noxfile.py).
#
# Interpreters: ~/.pyenv/versions/3.X.* (newest patch release, not the
# free-threaded "t" builds), else python3.X on PATH.  A missing one fails.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1

if [ $# -gt 0 ]; then versions=("$@"); else versions=(3.11 3.13); fi

. .ci/lib.sh     # find_python

work=$(mktemp -d -t poly1305x-matrix-XXXXXX)
trap 'rm -rf "$work"' EXIT

# The sdist, from a clean copy of the tree (tracked and untracked-not-ignored
# files: none of the in-tree build's *.so, *.c or build/).
mkdir -p "$work/src" "$work/dist"
git ls-files -z --cached --others --exclude-standard \
    | grep -zvE '^(\.nox|dist|build|\.venv[^/]*)/' \
    | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done \
    | xargs -0 cp --parents -t "$work/src"
py0=$(find_python "${versions[-1]}")
"$py0" -m venv "$work/sdist-venv"
"$work/sdist-venv/bin/python" -m pip install -q build
"$work/sdist-venv/bin/python" -m build -q --sdist --outdir "$work/dist" "$work/src" >"$work/sdist.log" 2>&1 \
    || { cat "$work/sdist.log"; exit 1; }
sdist=$(ls "$work"/dist/poly1305x-*.tar.gz)
echo "matrix: sdist $(basename "$sdist")"

status=0
summary=()
for v in "${versions[@]}"; do
    py=$(find_python "$v")
    venv=$work/venv-$v
    start=$SECONDS
    echo "=== CPython $v: $py"
    "$py" -m venv "$venv"
    # A copy of the sdist per venv: pip caches the wheel it builds under the
    # sdist's path.
    mkdir -p "$work/sdist-$v" && cp "$sdist" "$work/sdist-$v/"
    rc=0
    POLY1305X_SIMDE=0 "$venv/bin/python" -m pip install -q --no-cache-dir \
        "$work/sdist-$v/$(basename "$sdist")" || rc=$?
    if [ "$rc" = 0 ]; then
        mkdir -p "$work/run-$v"
        (cd "$work/run-$v" && "$venv/bin/python" -c 'import sys, poly1305x
assert poly1305x.__file__.startswith(sys.prefix), poly1305x.__file__' \
            && "$venv/bin/python" -m poly1305x selftest) || rc=$?
    fi
    if [ "$rc" = 0 ]; then r="self-test passed"; else r="FAILED (rc=$rc)"; status=1; fi
    summary+=("sdist $(basename "$sdist") on CPython $v: $r ($((SECONDS - start)) s)")
done
printf '%s\n' "${summary[@]}"
exit $status
