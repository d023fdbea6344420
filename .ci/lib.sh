# Sourced by the .ci shell scripts (`. .ci/lib.sh`, from the root of the tree):
# the helpers more than one of them needs, written once.
#
#   find_python 3.X        the newest pyenv CPython 3.X ($PYENV_ROOT, default
#                          ~/.pyenv; not a free-threaded "t" build), else
#                          python3.X on PATH; prints its path, or fails
#   junit_counts PY XML    "passed failed skipped" of a pytest JUnit report,
#                          read by interpreter PY; a skip is no pass, so it is
#                          counted in failed too (the skipped figure says how
#                          many of the failed were skips); no readable report
#                          (pytest could not start) is "0 1 0"

find_python() {
    local v=$1 root=${PYENV_ROOT:-$HOME/.pyenv} best="" p
    for p in $(ls -d "$root"/versions/"$v".*/bin/python"$v" 2>/dev/null | sort -V); do
        [[ $p =~ /[0-9]+\.[0-9]+\.[0-9]+/bin/ ]] && best=$p
    done
    [ -n "$best" ] || best=$(command -v "python$v" || true)
    [ -n "$best" ] || { echo "${0##*/}: no CPython $v (pyenv or python$v on PATH)" >&2; return 1; }
    echo "$best"
}

junit_counts() {
    "$1" - "$2" <<'EOF' 2>/dev/null || echo "0 1 0"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root)
n = {k: sum(int(s.get(k, 0)) for s in suites) for k in ("tests", "failures", "errors", "skipped")}
bad = n["failures"] + n["errors"] + n["skipped"]
print(n["tests"] - bad, bad, n["skipped"])
EOF
}
