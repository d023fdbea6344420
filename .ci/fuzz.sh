#!/usr/bin/env bash
# Fuzz job: run each coverage-guided fuzz target (atheris / libFuzzer) for a
# bounded time from the seed corpus in tests/fuzz/corpus/<target>/, then print
# executions and coverage per target.  Exit non-zero on any finding (the
# crashing input is kept and its path printed) or on a target that cannot run.
#
# The targets run from the root of the tree as modules (python -m
# tests.fuzz.fuzz_<target>), so the poly1305x they test is the tree's: the
# editable install of README block 2, as in CI.
#
# Usage (inside the venv the project is installed in, e.g. .venv-ci):
#   .ci/fuzz.sh                         # every target, FUZZ_SECONDS each (45)
#   FUZZ_SECONDS=600 .ci/fuzz.sh aead_open
#   FUZZ_UPDATE_CORPUS=1 .ci/fuzz.sh    # merge new inputs into the seed corpus
# Knobs: PYTHON (default python), FUZZ_SECONDS, FUZZ_ARTIFACTS (where crashing
# inputs go; default a temporary directory that is kept on failure),
# FUZZ_COVERAGE=0 to skip the line-coverage replay.
#
# Needs: atheris (pip install atheris; wheels for CPython 3.8-3.11 on
# x86-64 Linux), bcrypt (in the test extra) for the OpenSSH target, coverage
# (pip) for the line-coverage figures (optional; skipped when missing).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY=${PYTHON:-python}
SECONDS_PER_TARGET=${FUZZ_SECONDS:-45}
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(poly1305 aead_open openssh)

"$PY" -c "import atheris" 2>/dev/null || "$PY" -m pip install -q atheris
# The OpenSSH target must run: a missing module is a failure, not a skip.
"$PY" -c "import poly1305x.openssh" || { echo "fuzz: poly1305x.openssh does not import" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/poly1305x-fuzz.XXXXXX")
ART=${FUZZ_ARTIFACTS:-$WORK/artifacts}
mkdir -p "$ART"
status=0
summary=()
cd "$ROOT"
for t in "${TARGETS[@]}"; do
    seeds="tests/fuzz/corpus/$t"
    new="$WORK/corpus-$t"
    mkdir -p "$new"
    log="$WORK/$t.log"
    echo "fuzz: $t for ${SECONDS_PER_TARGET}s" >&2
    set +e
    # new inputs go to the first directory; the seed corpus is only read
    "$PY" -m "tests.fuzz.fuzz_$t" -max_total_time="$SECONDS_PER_TARGET" \
        -print_final_stats=1 -timeout=20 -rss_limit_mb=3072 -max_len=4096 \
        -artifact_prefix="$ART/$t-" "$new" "$seeds" > "$log" 2>&1
    rc=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    line=$(grep -E "^#[0-9]+[[:space:]]+(DONE|INITED)" "$log" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\/[0-9a-zA-Z]*\).*/cov \1, features \2, corpus \3/p' <<<"$line")
    if [ $rc -ne 0 ]; then
        status=1
        echo "fuzz: $t FAILED (exit $rc); last lines of its log:" >&2
        grep -v -E "^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)" "$log" | tail -40 >&2
        ls -1 "$ART"/"$t"-* 2>/dev/null | sed 's/^/fuzz: crashing input: /' >&2 || true
    fi
    summary+=("$t: ${execs:-?} executions, ${cov:-no coverage line}, exit $rc")
    if [ "${FUZZ_UPDATE_CORPUS:-0}" = 1 ] && [ $rc -eq 0 ]; then
        "$PY" -m "tests.fuzz.fuzz_$t" -merge=1 "$seeds" "$new" > "$WORK/$t.merge.log" 2>&1
        echo "fuzz: merged into $seeds ($(ls "$seeds" | wc -l) files)" >&2
    fi
done

# Line coverage of the package's Python code by each target's seed corpus plus
# what this run found (the compiled kernels are not measured here).
if [ "${FUZZ_COVERAGE:-1}" = 1 ]; then
    "$PY" -c "import coverage" 2>/dev/null || "$PY" -m pip install -q coverage || true
fi
if [ "${FUZZ_COVERAGE:-1}" = 1 ] && "$PY" -c "import coverage" 2>/dev/null; then
    for t in "${TARGETS[@]}"; do
        "$PY" -m coverage run --data-file="$WORK/.cov-$t" --include='*/poly1305x/*' \
            -m tests.fuzz.replay "$t" "tests/fuzz/corpus/$t" "$WORK/corpus-$t" > /dev/null 2>&1 || true
        pct=$("$PY" -m coverage report --data-file="$WORK/.cov-$t" 2>/dev/null \
              | awk -v t="$t" '$1 ~ /openssh.py$/ && t == "openssh" {print "openssh.py " $NF}
                               $1 == "TOTAL" {print "package Python total " $NF}' | paste -sd, -)
        summary+=("$t: line coverage of poly1305x/*.py by the corpus: ${pct:-n/a}")
    done
fi

echo "fuzz summary:"
printf '  %s\n' "${summary[@]}"
if [ $status -ne 0 ]; then
    echo "fuzz: FAILED; artifacts kept in $ART" >&2
else
    [ -n "${FUZZ_ARTIFACTS:-}" ] || rm -rf "$WORK"
fi
exit $status
