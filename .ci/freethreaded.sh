#!/usr/bin/env bash
# Free-threaded CPython, every CI run: poly1305x from an sdist of
# this tree on a --disable-gil interpreter (.ci/build-freethreaded.sh: cached
# under /var/cache/poly1305x-ci, else built from Debian's source package in a
# few minutes), then
#   1. import poly1305x (every extension module, every backend selected) with
#      PYTHON_GIL unset: the GIL must still be off (sys._is_gil_enabled() is
#      False) and no RuntimeWarning about it;
#   2. with PYTHON_GIL=0: the self-test (known answers of every primitive on
#      every backend), then the engine, AEAD and thread tests.
# The whole suite there is `nox -s freethreaded`.
#
#   bash .ci/freethreaded.sh                    # the CI subset
#   bash .ci/freethreaded.sh tests/core/test_aead.py # other test paths
#   POLY1305X_FT_PYTHON=/path/python3.14t bash .ci/freethreaded.sh
#
# The test extra is installed preferring wheels (an older release's wheel over
# building a newer sdist), cryptography from a wheel only (its sdist needs a
# recent Rust).  Where a requirement cannot be installed on this
# interpreter (cryptography ships no cp313t wheel), the script names it and
# leaves out the test modules that import it, listing them: on 3.14t/3.15t
# everything installs and nothing is left out.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
unset PYTHON_GIL

if [ $# -gt 0 ]; then
    tests=("$@")
else
    tests=(tests/core/test_freethreading.py tests/core/test_freethreading_stateful.py
           tests/core/test_freethreading_module_state.py
           tests/core/test_aead.py tests/core/test_poly1305.py tests/core/test_chacha20.py
           tests/kernels/test_dispatch.py tests/kernels/test_poly1305_kernels.py tests/kernels/test_chacha20_kernels.py
           tests/core/test_aead_batch.py)
fi

py=${POLY1305X_FT_PYTHON:-}
if [ -z "$py" ]; then
    py=$(bash .ci/build-freethreaded.sh | tail -1)
fi
echo "freethreaded: $py ($("$py" -c 'import sys; print(sys.version.split()[0])'))"

work=$(mktemp -d -t poly1305x-ft-XXXXXX)
trap 'rm -rf "$work"' EXIT
venv=$ROOT/.venv-ci-ft
rm -rf "$venv"
"$py" -m venv "$venv"
vpy=$venv/bin/python
"$vpy" -m pip install -q --upgrade pip build

# The sdist, from a clean copy of the tree (as .ci/matrix.sh makes it).
mkdir -p "$work/src" "$work/dist" "$work/run"
git ls-files -z --cached --others --exclude-standard \
    | grep -zvE '^(\.nox|dist|build|\.venv[^/]*)/' \
    | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done \
    | xargs -0 cp --parents -t "$work/src"
"$vpy" -m build -q --sdist --outdir "$work/dist" "$work/src" >"$work/sdist.log" 2>&1 \
    || { cat "$work/sdist.log"; exit 1; }
sdist=$(ls "$work"/dist/poly1305x-*.tar.gz)
POLY1305X_SIMDE=0 "$vpy" -m pip install -q "$sdist"

# The test extra: all at once, else one by one, naming what does not install.
missing=()
if ! "$vpy" -m pip install -q --prefer-binary --only-binary=cryptography "$sdist[test]" 2>"$work/pip.log"; then
    mapfile -t reqs < <("$vpy" - <<'EOF'
import tomllib
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["test"]))
EOF
    )
    for req in "${reqs[@]}"; do
        "$vpy" -m pip install -q --prefer-binary --only-binary=cryptography "$req" 2>/dev/null || missing+=("$req")
    done
fi

cp "$ROOT/.ci/poly1305x_installed_check.py" "$work/run/"
cd "$work/run"

echo "freethreaded: GIL after importing poly1305x (PYTHON_GIL unset)"
"$vpy" -W error::RuntimeWarning -c '
import sys
import poly1305x, poly1305x.aead, poly1305x.mac, poly1305x.hpke, poly1305x.openssh
from poly1305x._core import _dispatch
for name in poly1305x.backends() + _dispatch.emulated_backends():
    _dispatch.set_backend(name)             # imports every SIMD module
print("  modules:", sorted(m for m in sys.modules if m.startswith("poly1305x._")))
print("  sys._is_gil_enabled():", sys._is_gil_enabled())
assert sys._is_gil_enabled() is False, "importing poly1305x turned the GIL back on"
'

# Test modules that import a package that could not be installed are left out, by name.
if [ ${#missing[@]} -gt 0 ]; then
    echo "freethreaded: NOT INSTALLABLE on this interpreter: ${missing[*]}"
    mods=()
    for req in "${missing[@]}"; do
        name=$(sed -E 's/[ ;<>=!~\[].*//' <<<"$req")
        case $name in
            pycryptodome) mods+=(Crypto) ;;
            pycryptodomex) mods+=(Cryptodome) ;;
            pycryptodome-test-vectors) mods+=(pycryptodome_test_vectors) ;;
            pyserpent) mods+=(serpent) ;;
            *) mods+=("$name") ;;
        esac
    done
    # A module-level import of one of them (an import inside try/except
    # ImportError is the test module's own business).
    pattern="^(import|from) ($(IFS='|'; echo "${mods[*]}"))\b"
    kept=()
    for t in "${tests[@]}"; do
        if [ -f "$ROOT/$t" ] && grep -qE "$pattern" "$ROOT/$t"; then
            echo "freethreaded: LEFT OUT $t (imports one of: ${mods[*]})"
        else
            kept+=("$ROOT/$t")
        fi
    done
else
    kept=()
    for t in "${tests[@]}"; do kept+=("$ROOT/$t"); done
fi
[ ${#kept[@]} -gt 0 ] || { echo "freethreaded: no test module left to run" >&2; exit 1; }

echo "freethreaded: python -m poly1305x selftest with PYTHON_GIL=0"
PYTHON_GIL=0 "$vpy" -m poly1305x selftest

echo "freethreaded: pytest with PYTHON_GIL=0"
set +e
PYTHON_GIL=0 POLY1305X_SOURCE_TREE=$ROOT "$vpy" -m pytest -p poly1305x_installed_check \
    -p no:cacheprovider --rootdir "$ROOT" -q "${kept[@]}"
rc=$?
set -e
[ "$rc" -eq 5 ] && { echo "freethreaded: pytest collected no tests" >&2; exit 1; }
exit "$rc"
