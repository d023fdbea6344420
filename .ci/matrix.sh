#!/usr/bin/env bash
# The oldest and newest supported CPython that this machine has, every CI run
# (the full 3.11..3.15 matrix is `nox -s tests`, see noxfile.py; the free-
# threaded build is .ci/freethreaded.sh).
#
#   bash .ci/matrix.sh            # 3.11 and 3.13
#   bash .ci/matrix.sh 3.12       # any others
#
# For each version: a fresh virtualenv (.venv-ci-3.X), poly1305x installed
# NON-editable from an sdist of this tree, with the test extra (an editable
# build would write a second interpreter's modules into poly1305x/), then the
# self-test and pytest on tests/ run from an empty temporary directory, so the
# source tree is not on sys.path; a small pytest plugin fails the run unless
# the poly1305x under test is the virtualenv's.
#
# Interpreters: ~/.pyenv/versions/3.X.* (newest patch release, not the
# free-threaded "t" builds), else python3.X on PATH.  A missing one fails.
# POLY1305X_MATRIX_SIMDE=1 also builds SIMDe's emulated AVX-512 backend (slower;
# .ci/run's main job already tests it).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1

if [ $# -gt 0 ]; then versions=("$@"); else versions=(3.11 3.13); fi

find_python() {
    local v=$1 root=${PYENV_ROOT:-$HOME/.pyenv} best="" p
    for p in $(ls -d "$root"/versions/"$v".*/bin/python"$v" 2>/dev/null | sort -V); do
        [[ $p =~ /[0-9]+\.[0-9]+\.[0-9]+/bin/ ]] && best=$p
    done
    [ -n "$best" ] || best=$(command -v "python$v" || true)
    [ -n "$best" ] || { echo "matrix: no CPython $v (pyenv or python$v on PATH)" >&2; return 1; }
    echo "$best"
}

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

# The plugin that checks which poly1305x the tests import.
mkdir -p "$work/run"
cp "$ROOT/.ci/poly1305x_installed_check.py" "$work/run/"

simde=0
[ "${POLY1305X_MATRIX_SIMDE:-0}" = 1 ] && [ -f /usr/include/simde/x86/avx512.h ] && simde=1

summary=()
status=0
total_passed=0
total_failed=0
for v in "${versions[@]}"; do
    py=$(find_python "$v")
    venv=$ROOT/.venv-ci-$v
    start=$SECONDS
    echo "=== CPython $v: $py"
    rm -rf "$venv"
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
    # A copy of the sdist per venv: pip caches the wheel it builds under the
    # sdist's path, and the build switches are not part of that key.
    mkdir -p "$work/sdist-$v" && cp "$sdist" "$work/sdist-$v/"
    POLY1305X_SIMDE=$simde "$venv/bin/python" -m pip install -q \
        "$work/sdist-$v/$(basename "$sdist")[test]"
    (
        cd "$work/run"
        export POLY1305X_SOURCE_TREE=$ROOT
        "$venv/bin/python" -m poly1305x selftest
        set +e
        "$venv/bin/python" -m pytest -p poly1305x_installed_check -p no:cacheprovider \
            --rootdir "$ROOT" -q "$ROOT/tests" 2>&1 | tee "$work/pytest-$v.log"
        rc=${PIPESTATUS[0]}
        [ "$rc" -eq 5 ] && { echo "matrix: pytest collected no tests on $v" >&2; rc=1; }
        exit "$rc"
    ) && rc=0 || rc=$?
    line=$(grep -E '[0-9]+ (passed|failed|errors?)\b.* in [0-9.]+s' "$work/pytest-$v.log" 2>/dev/null | tail -1 || true)
    summary+=("CPython $v: ${line:-no result} (rc=$rc, $((SECONDS - start)) s)")
    [ "$rc" -eq 0 ] || status=1
    for n in $(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '^[0-9]+' || true); do
        total_passed=$((total_passed + n))
    done
    for n in $(grep -oE '[0-9]+ (failed|errors?)' <<<"$line" | grep -oE '^[0-9]+' || true); do
        total_failed=$((total_failed + n))
    done
    [ -n "$line" ] || total_failed=$((total_failed + 1))
done

echo "=== matrix summary"
printf '%s\n' "${summary[@]}"
# The plain closing line, summed over the versions.
echo "matrix: $total_passed passed, $total_failed failed"
exit $status
