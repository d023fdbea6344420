#!/usr/bin/env bash
# A free-threaded CPython (./configure --disable-gil) for the free-threaded CI
# step and `nox -s freethreaded`, built from Debian's source package of CPython
# (pyenv cannot download a free-threaded build here, and Debian's mirrors are
# the only source of CPython's code this machine reaches).
#
#   bash .ci/build-freethreaded.sh           # newest of 3.14, 3.15, 3.13 whose source the mirror serves
#   bash .ci/build-freethreaded.sh 3.14      # only 3.14 (fails if its source cannot be had)
#
# The last line printed on stdout is the interpreter's path, e.g.
# /var/cache/poly1305x-ci/cpython-3.14t/bin/python3.14t; everything else goes
# to stderr.  The result is cached there (POLY1305X_FT_CACHE) and reused while
# it still passes the check below (a free-threaded build with ssl, ctypes,
# zlib, bz2, lzma, sqlite3 and pip); otherwise it is built again from nothing:
#
#   1. build tools and the -dev packages of the modules pip and the tests need
#      (apt-get; on a machine that has them already, nothing is installed);
#   2. the source package from Debian's archive through a private apt
#      configuration (a `deb-src` line for sid and forky, signed by the
#      system's debian-archive-keyring; the system's own sources lists are not
#      touched): `apt-get source --download-only`, which checks the files'
#      hashes against the signed index;
#   3. the pristine upstream tarball inside it (the .orig.tar.xz) is unpacked
#      and built WITHOUT Debian's patches (they move site-packages to
#      dist-packages and change the sysconfig schemes for Debian's layout,
#      which a /var/cache prefix does not want);
#   4. ./configure --disable-gil --prefix=CACHE, make -j$(nproc) under nice
#      (no PGO/LTO, no test run: a few minutes on two cores), make install.
#
# POLY1305X_FT_SOURCE=/path/Python-3.X.Y.tar.xz (or an unpacked tree) builds
# that source instead of downloading one.
set -euo pipefail

CACHE=${POLY1305X_FT_CACHE:-/var/cache/poly1305x-ci}
JOBS=${POLY1305X_FT_JOBS:-$(nproc)}
if [ $# -gt 0 ]; then versions=("$@"); else versions=(3.14 3.15 3.13); fi
SUITES=(sid forky)

log() { echo "build-freethreaded: $*" >&2; }

# A working cached build: free-threaded, with the modules pip and the tests use.
CHECK='import sys, sysconfig, ssl, ctypes, zlib, bz2, lzma, sqlite3, hashlib, venv
assert sysconfig.get_config_var("Py_GIL_DISABLED") == 1, "not a free-threaded build"
print(sys.version.replace("\n", " "))'
works() {   # $1 = interpreter
    [ -x "$1" ] && "$1" -c "$CHECK" >&2 2>&1 && "$1" -m pip --version >/dev/null 2>&1
}

for v in "${versions[@]}"; do
    py=$CACHE/cpython-${v}t/bin/python${v}t
    if [ -f "$CACHE/cpython-${v}t/.poly1305x-ok" ] && works "$py"; then
        log "cached: $py"
        echo "$py"
        exit 0
    fi
done

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

# 1. Build dependencies (only the missing ones).
deps=(build-essential pkg-config xz-utils ca-certificates debian-archive-keyring
      libssl-dev libffi-dev zlib1g-dev libbz2-dev liblzma-dev libsqlite3-dev
      libreadline-dev libncurses-dev uuid-dev)
missing=()
for d in "${deps[@]}"; do
    dpkg-query -W -f='${Status}' "$d" 2>/dev/null | grep -q "install ok installed" || missing+=("$d")
done
if [ ${#missing[@]} -gt 0 ]; then
    log "apt-get install ${missing[*]}"
    $SUDO apt-get update -qq >&2
    $SUDO apt-get install -y -qq "${missing[@]}" >&2
fi

mkdir -p "$CACHE"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/poly1305x-cpython-XXXXXX")
trap 'rm -rf "$work"' EXIT

# 2. A private apt configuration that only knows the deb-src lines below.
apt_dir=$work/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial"
: >"$apt_dir/sources.list"
for s in "${SUITES[@]}"; do
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $s main" \
        >>"$apt_dir/sources.list"
done
APT_OPTS=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/none"
          -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir" -o "Dir::Cache::pkgcache="
          -o "Dir::Cache::srcpkgcache=" -o "APT::Sandbox::User=root")
APT=(apt-get -q "${APT_OPTS[@]}")

src=""
if [ -n "${POLY1305X_FT_SOURCE:-}" ]; then
    src=$POLY1305X_FT_SOURCE
    v=$(basename "$src" | grep -oE '3\.[0-9]+' | head -1)
    [ -n "$v" ] || { log "cannot tell the version of $src"; exit 1; }
    versions=("$v")
    log "source: $src"
else
    log "apt-get update (deb-src ${SUITES[*]})"
    "${APT[@]}" update >&2
    mkdir -p "$work/dl"
    for v in "${versions[@]}"; do
        # Newest version first; the index may list a version whose files the
        # mirror no longer (or not yet) serves, so older ones are tried too.
        cands=$(apt-cache "${APT_OPTS[@]}" showsrc --only-source "python$v" 2>/dev/null \
                | awk '/^Version:/{print $2}' | sort -rV | uniq || true)
        [ -n "$cands" ] || { log "python$v: not in the index of ${SUITES[*]}"; continue; }
        for ver in $cands; do
            if (cd "$work/dl" && "${APT[@]}" source --download-only "python$v=$ver" >"$work/dl/apt.log" 2>&1); then
                src=$(ls "$work"/dl/python"$v"_*.orig.tar.* | grep -v '\.asc$' | head -1)
                log "source: Debian's python$v $ver ($(basename "$src"))"
                break 2
            fi
            log "python$v $ver: $(grep -m1 -E '^E:' "$work/dl/apt.log" || echo 'download failed')"
            rm -f "$work"/dl/python"$v"_*
        done
    done
    [ -n "$src" ] || { log "no CPython source package of ${versions[*]} could be downloaded"; exit 1; }
    versions=("$v")
fi

# 3. The upstream tree.
if [ -d "$src" ]; then
    tree=$src
else
    mkdir -p "$work/tree"
    tar -xf "$src" -C "$work/tree" --strip-components=1
    tree=$work/tree
fi

# 4. Configure, build, install.
prefix=$CACHE/cpython-${v}t
exec 9>"$CACHE/.lock-${v}t"
flock 9
rm -rf "$prefix"
mkdir -p "$work/build"
cd "$work/build"
log "configure --disable-gil --prefix=$prefix"
"$tree/configure" -q --disable-gil --prefix="$prefix" --with-ensurepip=install >"$work/configure.log" 2>&1 \
    || { tail -40 "$work/configure.log" >&2; exit 1; }
log "make -j$JOBS (nice)"
nice -n 10 make -s -j"$JOBS" >"$work/make.log" 2>&1 || { tail -60 "$work/make.log" >&2; exit 1; }
grep -A12 -E 'necessary bits to build these optional modules were not found|Failed to build these modules' \
    "$work/make.log" >&2 || true
nice -n 10 make -s install >"$work/install.log" 2>&1 || { tail -40 "$work/install.log" >&2; exit 1; }
py=$prefix/bin/python${v}t
works "$py" || { log "the new build fails its check: $py"; exit 1; }
touch "$prefix/.poly1305x-ok"
log "built: $py"
echo "$py"
