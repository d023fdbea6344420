#!/usr/bin/env bash
# Real clients' own test suites, from their PyPI sdists (none of their files
# changed), each in a venv of its own, plain and with poly1305x:
#  * HAP-python, pyatv and aioesphomeapi with POLY1305X_INSTALL=cryptography
#    (their venv's start-up hook, a .pth line, imports poly1305x first, as
#    docs/migrating-cryptography.md says): cryptography's ChaCha20Poly1305
#    and Poly1305 names are poly1305x's before the clients bind them;
#  * aioquic with use_with_aioquic() and the ChaCha20 suite preferred, beside
#    a "control" pass with the preference alone (as .ci/peer-suites.sh does).
# .ci/client_plugin.py checks the install and counts the frames and packets
# poly1305x served; the job fails when a test that passes plain fails with
# poly1305x (.ci/peer_compare.py, after one re-run), or when the count is 0.
# aiohomekit's sdists (4.0.1, 4.0.0, 3.2.20) ship no tests, and
# noiseprotocol's (0.3.1, aioesphomeapi's Noise) none either: see "frames".
# HAP-python's sdist ships its test modules without tests/__init__.py and
# tests/conftest.py (the `driver` fixture): the two modules that import from
# the package are left out, and the tests that need the fixture fail plain
# (named, not counted); test_hap_crypto.py and the rest run.
# aioesphomeapi's sdist lacks tests/common.py, which its frame-helper and
# Noise tests (and eight more modules) import: those ten are left out, the
# rest run (with the install on at start-up), and its count of frames is 0:
# NO_COUNT names it, so the job reports that instead of failing on it.
# pyatv: tests/auth and tests/support (its HAP session and ChaCha20 frame
# cipher, support/test_chacha20.py, and the TLV8/SRP pieces); its functional
# tests (a fake Apple TV over loopback, minutes each) time out here plain.
# Frames: our tests of two clients' real frame code, unmodified, from their
# PyPI wheels (tests/clients/, run in the client's venv from this tree, plain
# and with POLY1305X_INSTALL=cryptography and the plugin): aiohomekit's HAP
# session encryption (SecureHomeKitProtocol, its BLE keys and CoAP context)
# and aioesphomeapi's Noise frame helper, each against an end written on
# cryptography's own compiled class.  Both passes must pass every test, the
# count must be above 0, and the passes' transcripts (the wire bytes where
# the keys are fixed, the packets where Noise's are random) must be equal.
# Prints "<client> suite: N passed, N failed" per client, "<client> frames:
# ..." per frame run, and the time taken.
# Run from the CI venv (poly1305x installed); sdists and venvs are cached
# under /var/cache/poly1305x-ci/clients ($POLY1305X_CLIENT_CACHE).
# CLIENT_RUNS="suites frames" (the default) or one of them.
set -euo pipefail
cd "$(dirname "$0")/.."
HAP_VERSION=5.0.0
PYATV_VERSION=0.18.0
ESPHOME_VERSION=46.23.0
AIOQUIC_VERSION=1.7.2
# name|dist==version|test tools|tests (a named subset where the suite is long)
CLIENTS=(
    "hap-python|HAP-python==$HAP_VERSION|pytest pytest-asyncio pytest-timeout|${HAP_TESTS:-tests --ignore=tests/test_accessory.py --ignore=tests/test_accessory_driver.py}"
    "pyatv|pyatv==$PYATV_VERSION|pytest pytest-asyncio pytest-timeout deepdiff pytest-httpserver|${PYATV_TESTS:-tests/auth tests/support}"
    "aioesphomeapi|aioesphomeapi==$ESPHOME_VERSION|pytest pytest-asyncio pytest-timeout|${ESPHOME_TESTS:-tests $(printf -- '--ignore=tests/%s.py ' test__frame_helper test_client test_connection test_discover test_log_runner test_noise test_outgoing_connection test_provide_time test_reconnect_logic test_zeroconf)}"
    "aioquic|aioquic==$AIOQUIC_VERSION|pytest|tests"
)
NO_COUNT="aioesphomeapi"
AIOHOMEKIT_VERSION=4.0.1
# name|dist==version|test tools|module of tests/clients
FRAMES=(
    "aiohomekit|aiohomekit==$AIOHOMEKIT_VERSION|pytest pytest-asyncio|tests/clients/test_aiohomekit_frames.py"
    "aioesphomeapi|aioesphomeapi==$ESPHOME_VERSION|pytest pytest-asyncio pytest-timeout|tests/clients/test_aioesphomeapi_frames.py"
)
CACHE=${POLY1305X_CLIENT_CACHE:-/var/cache/poly1305x-ci/clients}
mkdir -p "$CACHE/sdists"
export PIP_DISABLE_PIP_VERSION_CHECK=1
pyver=$(python -c 'import sys; print("%d.%d" % sys.version_info[:2])')
ci_site=$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/plugin"
cp .ci/client_plugin.py tests/support/peer_plugin.py "$WORK/plugin/"
status=0
t_all=$SECONDS

sdist() {   # sdist DIST VERSION: the sdist's path in the cache
    local dist=$1 version=$2 have
    have=$(ls "$CACHE/sdists/"*"-$version.tar.gz" 2>/dev/null | grep -i "/${dist//-/[-_]}-$version" || true)
    if [ -z "$have" ]; then
        # pip download prepares the metadata, which aioesphomeapi's build
        # cannot do here (minutes of compiling): the index's file, hash checked
        python -c "import sys; from tests.support.sdist_index import download_sdist
download_sdist(sys.argv[1], sys.argv[2], sys.argv[3])" "$dist" "$version" "$CACHE/sdists" >/dev/null
        have=$(ls "$CACHE/sdists/"*"-$version.tar.gz" | grep -i "/${dist//-/[-_]}-$version")
    fi
    echo "$have"
}

run_pass() {    # run_pass NAME ROOT VENV PASS TAG TESTS...: TAG names its report and log
    local name=$1 root=$2 venv=$3 pass=$4 tag=$5 rc; shift 5
    local env=(POLY1305X_CLIENT="$name" POLY1305X_CLIENT_PASS="$pass"
               POLY1305X_CLIENT_COUNT="$WORK/$name-$tag.count"
               POLY1305X_CLIENT_FRAMES="$WORK/$name-$tag.frames" PYTHONDONTWRITEBYTECODE=1)
    local plugin=()
    if [ "$pass" != plain ]; then
        env+=(PYTHONPATH="$WORK/plugin")
        plugin=(-p client_plugin)
        [ "$name" = aioquic ] || env+=(POLY1305X_INSTALL=cryptography)
    fi
    set +e
    (cd "$root" && env "${env[@]}" timeout 900 "$venv/bin/python" -m pytest -q -o addopts= \
        "${plugin[@]}" --junitxml="$WORK/$name-$tag.xml" "$@" > "$WORK/$name-$tag.log" 2>&1)
    rc=$?
    set -e
    echo $rc > "$WORK/$name-$tag.rc"
}

client_venv() {     # client_venv NAME SPEC TOOLS: the client's venv (cached), its path
    local name=$1 spec=$2 tools=$3 venv site
    venv="$CACHE/venv-$pyver-$name-${spec##*==}"
    if [ ! -f "$venv/.complete" ]; then
        rm -rf "$venv"
        python -m venv "$venv"
        # shellcheck disable=SC2086  (tools is a word list)
        "$venv/bin/python" -m pip install -q "$spec" $tools >&2 \
            2> >(grep -v '^WARNING: Location' >&2)
        touch "$venv/.complete"
    fi
    site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    # poly1305x from the CI venv, after the client's own packages; then the
    # start-up hook of docs/migrating-cryptography.md
    printf '%s\n' "import site; site.addsitedir('$ci_site')" \
        'import os; os.environ.get("POLY1305X_INSTALL", "0") != "0" and __import__("poly1305x")' \
        > "$site/zz_poly1305x_ci.pth"
    echo "$venv"
}

runs=${CLIENT_RUNS:-suites frames}
[[ " $runs " == *" suites "* ]] || CLIENTS=()
[[ " $runs " == *" frames "* ]] || FRAMES=()

for entry in "${CLIENTS[@]}"; do
    IFS='|' read -r name spec tools tests <<< "$entry"
    dist=${spec%%==*} version=${spec##*==} t0=$SECONDS
    tarball=$(sdist "$dist" "$version")
    venv=$(client_venv "$name" "$spec" "$tools")
    passes=(plain poly1305x)
    [ "$name" = aioquic ] && passes=(plain control poly1305x)
    for pass in "${passes[@]}"; do
        mkdir -p "$WORK/$pass"
        tar -xzf "$tarball" -C "$WORK/$pass"
        root=$(ls -d "$WORK/$pass/"*"-$version" | head -n 1)
        # shellcheck disable=SC2086  (tests is a word list)
        run_pass "$name" "$root" "$venv" "$pass" "$pass" $tests &
    done
    wait
    ok=1
    for pass in "${passes[@]}"; do
        rc=$(cat "$WORK/$name-$pass.rc")
        echo "$name, $pass: $(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed)' \
            "$WORK/$name-$pass.log" | tail -n 1) (pytest exit $rc)"
        if [ "$rc" -gt 1 ]; then
            tail -n 30 "$WORK/$name-$pass.log"
            echo "$name suite: the $pass pass did not run (pytest exit $rc)" >&2
            ok=0
        fi
    done
    if [ $ok = 1 ]; then
        served=$(cat "$WORK/$name-poly1305x.count" 2>/dev/null || echo 0)
        echo "$name: $served frames/packets through poly1305x"
        if [ "$served" -eq 0 ] && [[ " $NO_COUNT " == *" $name "* ]]; then
            echo "$name: no frame reached poly1305x: the tests that send them are not in its sdist"
        elif [ "$served" -eq 0 ]; then
            echo "$name suite: poly1305x served nothing" >&2
            status=1
        fi
        control="$WORK/$name-plain.xml"
        [ "$name" = aioquic ] && control="$WORK/$name-control.xml"
        if ! python .ci/peer_compare.py "$name" "$WORK/$name-plain.xml" "$control" \
                "$WORK/$name-poly1305x.xml" > "$WORK/$name.compare"; then
            grep -v ' suite: ' "$WORK/$name.compare" || true
            echo "$name: re-running the tests that failed only with poly1305x"
            root=$(ls -d "$WORK/poly1305x/"*"-$version" | head -n 1)
            # shellcheck disable=SC2086
            run_pass "$name" "$root" "$venv" poly1305x rerun --lf $tests || true
            python .ci/peer_compare.py "$name" "$WORK/$name-plain.xml" "$control" \
                "$WORK/$name-poly1305x.xml" "$WORK/$name-rerun.xml" || status=1
        else
            cat "$WORK/$name.compare"
        fi
    else
        status=1
    fi
    echo "$name: $((SECONDS - t0)) s"
done
for entry in "${FRAMES[@]}"; do
    IFS='|' read -r name spec tools module <<< "$entry"
    t0=$SECONDS
    venv=$(client_venv "$name" "$spec" "$tools")
    for pass in plain poly1305x; do
        run_pass "$name" "$PWD" "$venv" "$pass" "frames-$pass" "$module" &
    done
    wait
    line=()
    for pass in plain poly1305x; do
        rc=$(cat "$WORK/$name-frames-$pass.rc")
        line+=("$pass $(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed)' \
            "$WORK/$name-frames-$pass.log" | tail -n 1 | tr -d '=') (pytest exit $rc)")
        if [ "$rc" != 0 ]; then
            tail -n 40 "$WORK/$name-frames-$pass.log"
            echo "$name frames: a test failed in the $pass pass" >&2
            status=1
        fi
    done
    served=$(cat "$WORK/$name-frames-poly1305x.count" 2>/dev/null || echo 0)
    echo "$name frames (${spec#*==}, $module): ${line[0]}; ${line[1]}; $served calls through poly1305x"
    if [ "$served" -eq 0 ]; then
        echo "$name frames: poly1305x served nothing" >&2
        status=1
    fi
    if ! [ -s "$WORK/$name-frames-plain.frames" ] || ! cmp -s \
            <(sort "$WORK/$name-frames-plain.frames") <(sort "$WORK/$name-frames-poly1305x.frames"); then
        diff <(sort "$WORK/$name-frames-plain.frames") \
            <(sort "$WORK/$name-frames-poly1305x.frames") | head -n 20 || true
        echo "$name frames: the transcripts of the plain and poly1305x passes differ" >&2
        status=1
    else
        echo "$name frames: $(wc -l < "$WORK/$name-frames-plain.frames") transcripts, plain and poly1305x equal"
    fi
    echo "$name frames: $((SECONDS - t0)) s"
done
echo "client suites: $((SECONDS - t_all)) s"
exit $status
