#!/usr/bin/env bash
# Each wheel of wheelhouse/ (.ci/wheels.sh) installed into a clean venv whose
# PATH has no C compiler, then tested against the installed wheel (pytest runs
# outside the source tree; .ci/poly1305x_installed_check.py fails the run if
# the tests would import anything else):
#
#   cp311, cp312, cp313   self-test + the kernel and AEAD tests (SUBSET, on
#   x86_64                pyenv's CPython): the whole suite runs from source
#                         on 3.11 (the README's tests, the sanitizers) and on
#                         the two newest wheels
#   cp314, cp315 x86_64   self-test + the whole suite, on Debian sid's CPython
#                         inside the sid root (.ci/sid-root.sh); the peers from
#                         their cp314/cp315 wheels, fetched by the host's pip;
#                         a test module needing a peer with no such wheel is
#                         left out by name, with the reason printed
#   cp311 aarch64         .ci/aarch64.sh on this wheel (qemu-user): self-test,
#                         the kernel, ChaCha20 and AEAD tests
#   musllinux             not run: no musl CPython can be had here
#
# One line per wheel, `wheel <tag> <python>: N passed, N failed`, and for the
# sid interpreters `cpython 3.14: N passed, N failed` (the same run).  Exits
# non-zero if any line has a failure.  POLY1305X_TEST_JOBS (default 2) test
# runs at once.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
OUT=${1:-$SRC/wheelhouse}
JOBS=${POLY1305X_TEST_JOBS:-2}
HOSTPY=/var/cache/poly1305x-ci/wheels/tools-venv/bin/python
SUBSET=(tests/core/test_poly1305.py tests/core/test_chacha20.py tests/core/test_aead.py
        tests/kernels/test_chacha20_kernels.py tests/kernels/test_poly1305_kernels.py)
SECONDS=0

work=$(mktemp -d -t poly1305x-wheel-tests-XXXXXX)
SID_WORK=$work
. .ci/sid-root.sh
trap 'sid_umount; rm -rf "$work"' EXIT

. .ci/lib.sh     # find_python, junit_counts

# A PATH without a C compiler: links to everything in the system bin
# directories except compilers, assemblers and linkers.
NOCC=$work/nocc-bin
mkdir -p "$NOCC"
for d in /usr/sbin /usr/bin /sbin /bin; do
    for f in "$d"/*; do
        n=${f##*/}
        [[ $n =~ ^(cc|c\+\+|c89|c99|cpp|gcc|g\+\+|clang|clang\+\+|tcc|ld|as|zig)(-[0-9.]+)?$ ]] && continue
        [[ $n =~ -(gcc|g\+\+|cc|c\+\+|cpp|ld|as)(-[0-9.]+)?$|^ld\. ]] && continue
        [ -e "$NOCC/$n" ] || ln -s "$f" "$NOCC/$n"
    done
done
if PATH=$NOCC command -v cc gcc clang >/dev/null 2>&1; then
    echo "wheel-tests: a compiler is left on the test PATH" >&2
    exit 1
fi

# The test extra, from pyproject.toml.
mapfile -t TEST_REQS < <("$HOSTPY" -c 'import tomllib
for r in tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["test"]:
    print(r)')
# Which test modules import each peer (for leaving them out on a missing wheel).
declare -A IMPORTS=([pycryptodome]=Crypto [pycryptodomex]=Cryptodome [noiseprotocol]=noise
                    [pyserpent]=serpent [pycryptodome-test-vectors]=pycryptodome_test_vectors)

# The clean tree the tests run from (tracked files; no built modules).
mkdir -p "$work/tree" "$work/run"
git ls-files -z | grep -zvE '^(wheelhouse)/' \
    | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done \
    | xargs -0 cp --parents -t "$work/tree"
cp .ci/poly1305x_installed_check.py "$work/run/"
export POLY1305X_SDIST_CACHE=$work/sdists

tagof() { local b=${1##*/}; b=${b%.whl}; echo "${b#*-*-}" | sed -E 's/-cp[0-9]+-/-/; s/manylinux2014_[a-z0-9_]+\.//'; }

# report NAME LOG JUNIT SELFTEST-RC PREFIX...: the summary line(s)
report() {
    local name=$1 log=$2 junit=$3 st=$4 p f s
    shift 4
    read -r p f s <<<"$(junit_counts "$HOSTPY" "$junit")"
    if [ "$st" = 0 ]; then p=$((p + 1)); else f=$((f + 1)); fi
    [ "$p" -gt 1 ] || f=$((f + 1))
    local extra=""
    [ "$s" = 0 ] || extra=" ($s of them skipped)"
    for prefix in "$@"; do
        echo "$prefix: $p passed, $f failed$extra" >>"$work/summary"
    done
    [ "$f" = 0 ] || { echo "wheel-tests: $name failed; its log:" >&2; grep -E "^(FAILED|ERROR)|Error" "$log" | tail -30 >&2; }
}

# Test modules that build poly1305x from source: they need a C compiler (and
# PyPI for the build requirements), which these venvs must not have; the main
# job of .ci/run runs them.
BUILD_IGNORES=""
for t in tests/packaging/test_wheel_contents.py tests/packaging/test_build_cache.py \
         tests/packaging/test_new_backend.py tests/tooling/test_floor.py; do
    [ -f "$work/tree/$t" ] || continue
    BUILD_IGNORES+=" --ignore=$work/tree/$t"
    echo "wheel tests: leaving out $t: it builds from source, with a C compiler" >>"$work/summary"
done
# A test module that reads the git history (the age of the committed figures):
# the sid runs read a copy of the tracked files, with no history; the main job
# runs it.
for t in tests/tooling/test_figures.py \
         tests/packaging/test_no_factory_closures.py::test_the_rule_fails_on_the_old_peer_wrappers; do
    [ -f "$work/tree/${t%%::*}" ] || continue
    case $t in *::*) BUILD_IGNORES+=" --deselect=$t" ;;   # rootdir-relative
               *) BUILD_IGNORES+=" --ignore=$work/tree/$t" ;; esac
    echo "wheel tests: leaving out $t: it reads the git history" >>"$work/summary"
done

# aioquic's own tests with use_with_aioquic() on (a minute and more a run):
# .ci/client-suites.sh runs aioquic's whole suite that way, and the main job
# runs this test; the rest of tests/integrations/test_quic.py runs here.
for t in tests/integrations/test_quic.py::test_aioquic_own_tests_with_the_switch_on; do
    BUILD_IGNORES+=" --deselect=$t"
    echo "wheel tests: leaving out $t: the client suites run aioquic's own suite" >>"$work/summary"
done

# --- phase 1: the venvs (sequential: downloads) ---------------------------------
declare -a RUNS=()
for whl in "$OUT"/*.whl; do
    tag=$(tagof "$whl")
    case $tag in
        cp311-manylinux_2_17_x86_64|cp312-manylinux_2_17_x86_64|cp313-manylinux_2_17_x86_64)
            v=${tag:2:1}.${tag:3:2}
            py=$(find_python "$v")
            venv=$work/venv-$tag
            echo "wheel-tests: [${SECONDS}s] venv $tag ($py)"
            "$py" -m venv "$venv"
            PATH=$venv/bin:$NOCC "$venv/bin/python" -m pip install -q "$whl[test]" \
                >"$work/$tag.install.log" 2>&1 || { cat "$work/$tag.install.log"; exit 1; }
            RUNS+=("host $tag $venv/bin/python $whl -$BUILD_IGNORES")
            ;;
        cp314-manylinux_2_17_x86_64|cp315-manylinux_2_17_x86_64)
            v=${tag:2:1}.${tag:3:2}
            echo "wheel-tests: [${SECONDS}s] venv $tag (Debian sid python$v)"
            [ "${#SID_MOUNTS[@]}" -gt 0 ] || { sid_ensure; sid_mount; }
            dl=/var/cache/poly1305x-wheels/$v
            missing=$(sid_wheels "$v" "$SID_ROOT$dl" "${TEST_REQS[@]}")
            venv=/opt/poly1305x-test-$v
            rm -rf "$SID_ROOT$venv"
            sid_run "python$v" -m venv "$venv"
            have=()
            ignores=$BUILD_IGNORES
            for r in "${TEST_REQS[@]}"; do
                if grep -qxF "$r" <<<"$missing"; then
                    d=$(sed -E 's/[<>=!~ ;].*//' <<<"$r")
                    mod=${IMPORTS[$d]:-$d}
                    for t in $(grep -rlE --include='test_*.py' "^\s*(import|from) $mod\b" "$work"/tree/tests || true); do
                        ignores+=" --ignore=$t"
                        echo "cpython $v: skipping ${t#"$work"/tree/}: no cp${v/./} wheel of $d on PyPI" \
                            | tee -a "$work/summary"
                    done
                else
                    have+=("$r")
                fi
            done
            # OpenSSH 10 (sid) makes no DSA keys; the test that needs
            # ssh-keygen to make one is left out there, by name
            # (test_openssh_cryptography.py takes the key types it can make).
            if ! sid_run sh -c 'd=$(mktemp -d) && ssh-keygen -q -t dsa -N "" -f "$d/k"; r=$?; rm -rf "$d"; exit $r' \
                    >/dev/null 2>&1; then
                for t in tests/openssh/test_openssh_hardening.py::test_ssh_keygen_dsa_key_still_accepted; do
                    case $t in *::*) ignores+=" --deselect=$t" ;;   # rootdir-relative
                               *) ignores+=" --ignore=$work/tree/$t" ;; esac
                    echo "cpython $v: leaving out $t: ssh-keygen $(sid_run ssh -V 2>&1 | cut -d, -f1) makes no DSA keys" \
                        | tee -a "$work/summary"
                done
            fi
            # The sid root has no objdump: the wheel audit above checks the
            # same thing (no IFMA instruction in avx512f's module) on every wheel.
            if ! sid_run sh -c 'command -v objdump' >/dev/null 2>&1; then
                t=tests/kernels/test_avx512f_backend.py::test_module_holds_no_ifma_instruction
                ignores+=" --deselect=$t"
                echo "cpython $v: leaving out $t: the root has no objdump (the wheel audit checks it)" \
                    | tee -a "$work/summary"
            fi
            # cryptography's own tests come from its sdist and vectors wheel,
            # fetched from PyPI's simple API at run time, which the root cannot
            # reach; the host runs and the main job run them.
            for t in tests/faces/test_cryptography_suite.py; do
                ignores+=" --ignore=$work/tree/$t"
                echo "cpython $v: leaving out $t: it fetches cryptography's sdist from PyPI" \
                    | tee -a "$work/summary"
            done
            cp "$whl" "$work/"   # (the root sees $work, not wheelhouse/)
            sid_run "$venv/bin/python" -m pip install -q --no-index --find-links "$dl" \
                "$work/${whl##*/}" "${have[@]}" >"$work/$tag.install.log" 2>&1 \
                || { cat "$work/$tag.install.log"; exit 1; }
            if sid_run sh -c 'command -v cc || command -v gcc || command -v clang' >/dev/null; then
                echo "wheel-tests: the sid root has a C compiler" >&2
                exit 1
            fi
            RUNS+=("sid $tag $venv/bin/python $whl $v$ignores")
            ;;
        cp311-manylinux_2_17_aarch64)
            RUNS+=("aarch64 $tag - $whl")
            ;;
        *musllinux*)
            echo "wheel $tag: not run (no musl CPython here)" >>"$work/summary"
            ;;
        *)
            echo "wheel-tests: no test route for $tag" >&2
            exit 1
            ;;
    esac
done
# The peers' sdists the suite unpacks (tests/support/peer_sdist.py), fetched once by a
# host venv (pip inside the sid root cannot reach PyPI); same versions there.
h=$(find_python 3.11)
for r in "${RUNS[@]}"; do
    set -- $r
    [ "$1" = host ] || continue
    (cd "$work/tree/tests/support" && PATH=$NOCC "$3" -c 'import peer_sdist
for d in ("rfc9420", "rfc9180", "aioquic"):
    peer_sdist.fetch(d)') >>"$work/sdist-fetch.log" 2>&1 || { cat "$work/sdist-fetch.log"; exit 1; }
    break
done

# --- phase 2: the runs ($JOBS at a time) -----------------------------------------
one() {
    local kind=$1 tag=$2 py=$3 whl=$4 v=${5:-} log=$work/$2.log junit=$work/$2.xml st=0
    shift 4; shift || true
    local ignores=("$@")
    case $kind in
        host)
            local sel=("${SUBSET[@]/#/$SRC/}")  # every host run (cp311-cp313)
            ignores=("${ignores[@]/#--ignore=$work\/tree/--ignore=$SRC}")
            (
                cd "$work/run"
                export PATH=$(dirname "$py"):$NOCC POLY1305X_SOURCE_TREE=$SRC
                "$py" -m poly1305x selftest >"$log" 2>&1 || exit 3
                "$py" -m pytest -p poly1305x_installed_check -p no:cacheprovider \
                    --rootdir "$SRC" -q --junitxml="$junit" "${ignores[@]}" "${sel[@]}" >>"$log" 2>&1
            ) || st=$?
            local pyv
            pyv=$("$py" -c 'import platform; print(platform.python_version())')
            [ "$st" = 3 ] || st=0
            report "$tag" "$log" "$junit" "$st" "wheel $tag $pyv"
            ;;
        sid)
            local pyv
            pyv=$(sid_run "$py" -c 'import platform; print(platform.python_version())')
            sid_run sh -c 'cd "$1" && "$2" -m poly1305x selftest' - "$work/run" "$py" >"$log" 2>&1 || st=3
            sid_run sh -c 'cd "$1" && shift && exec "$@"' - "$work/run" \
                env PYTHONPATH="$work/run" POLY1305X_SOURCE_TREE="$work/tree" \
                POLY1305X_SDIST_CACHE="$POLY1305X_SDIST_CACHE" \
                "$py" -m pytest -p poly1305x_installed_check -p no:cacheprovider \
                --rootdir "$work/tree" -q --junitxml="$junit" "${ignores[@]}" "$work/tree/tests" \
                >>"$log" 2>&1 || true
            report "$tag" "$log" "$junit" "$st" "wheel $tag $pyv" "cpython $v"
            ;;
        aarch64)
            local line
            line=$(POLY1305X_AARCH64_WHEEL=$whl POLY1305X_AARCH64_LOG=$log bash "$SRC/.ci/aarch64.sh" \
                   2>>"$log" | grep -E '^aarch64: ' | tail -1 || true)
            echo "wheel $tag 3.11-arm64-qemu: ${line#aarch64: }" >>"$work/summary"
            [[ $line == *" 0 failed" ]] || { echo "wheel-tests: $tag failed" >&2; tail -30 "$log" >&2; }
            ;;
    esac
    echo "wheel-tests: [${SECONDS}s] $tag done"
}
pids=()
for r in "${RUNS[@]}"; do
    # shellcheck disable=SC2086
    one $r &
    pids+=($!)
    if [ "${#pids[@]}" -ge "$JOBS" ]; then wait "${pids[0]}" || true; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || true; done

for r in "${RUNS[@]}"; do
    set -- $r
    grep -q "^wheel $2 " "$work/summary" || echo "wheel $2: no result" >>"$work/summary"
done
echo "=== wheel tests [${SECONDS}s]"
sort "$work/summary"
! grep -E ' [1-9][0-9]* failed|no result' "$work/summary" >/dev/null
