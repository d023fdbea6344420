# Sourced by .ci/wheels.sh and .ci/wheel-tests.sh: a Debian sid (amd64) root
# with CPython 3.14 and 3.15 (python3.X, -dev, -venv).  Debian serves those
# interpreters only as binary packages built against glibc >= 2.38, newer than
# Debian 12's 2.36, so they run inside this root (chroot), not on the host.
#
#   sid_ensure   make the root once (debootstrap, ~2-3 min, ~520 MB), cached in
#                $POLY1305X_SID_CACHE (default /var/cache/poly1305x-ci/sid)
#   sid_mount    /proc, /dev and $SID_WORK (the caller's work directory, at the
#                same path) inside the root; sid_umount undoes it (the caller
#                sets an EXIT trap)
#   sid_run CMD  run CMD inside the root, as root, with a small environment
#
# pip inside the root cannot reach PyPI here (the 3.14/3.15 ssl module refuses
# this network's proxy certificate), so the host's pip fetches the wheels a
# venv inside the root needs (`pip download --python-version 3.X`) and pip
# inside the root installs them with --no-index.
SID_CACHE=${POLY1305X_SID_CACHE:-/var/cache/poly1305x-ci/sid}
SID_MIRROR=${POLY1305X_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SID_ROOT=$SID_CACHE/root-sid
SID_VERSIONS=(3.14 3.15)
SID_PACKAGES=ca-certificates,openssh-client,openssh-server
for _v in "${SID_VERSIONS[@]}"; do
    SID_PACKAGES+=",python$_v,python$_v-dev,python$_v-venv"
done
unset _v
SID_MOUNTS=()

sid_ensure() {
    local id
    id=$(printf '%s\n' "$SID_PACKAGES" | sha256sum | cut -c1-16)
    mkdir -p "$SID_CACHE"
    exec 8>"$SID_CACHE/.lock"
    flock 8
    if [ ! -f "$SID_ROOT/.complete-$id" ]; then
        if ! command -v debootstrap >/dev/null 2>&1; then
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
        fi
        if grep -qF " $SID_ROOT/" /proc/mounts; then   # never rm -rf through a bind mount
            echo "sid-root: $SID_ROOT has mounts left (umount them first)" >&2
            flock -u 8
            return 1
        fi
        rm -rf "$SID_ROOT"
        debootstrap --variant=minbase --include="$SID_PACKAGES" sid "$SID_ROOT" "$SID_MIRROR" \
            || { echo "sid-root: debootstrap failed" >&2; flock -u 8; return 1; }
        rm -f "$SID_ROOT"/var/cache/apt/archives/*.deb
        touch "$SID_ROOT/.complete-$id"
    fi
    flock -u 8
}

_sid_bind() {  # _sid_bind SRC DEST-INSIDE-ROOT [mount options...]
    local src=$1 dst=$SID_ROOT$2
    shift 2
    mkdir -p "$dst"
    mountpoint -q "$dst" && return 0
    mount "$@" "$src" "$dst"
    SID_MOUNTS=("$dst" "${SID_MOUNTS[@]}")
}

sid_mount() {
    _sid_bind proc /proc -t proc
    _sid_bind /dev /dev --bind
    _sid_bind /dev/pts /dev/pts --bind
    _sid_bind "$SID_WORK" "$SID_WORK" --bind
    mkdir -p "$SID_ROOT/run/sshd"
}

sid_umount() {
    local m
    for m in "${SID_MOUNTS[@]}"; do
        umount -l "$m" 2>/dev/null || true
    done
    SID_MOUNTS=()
}

sid_run() {
    chroot "$SID_ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
        PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin PYTHONDONTWRITEBYTECODE=1 \
        PIP_DISABLE_PIP_VERSION_CHECK=1 "$@"
}

# sid_wheels V DIR REQ...: the host's pip downloads the cp3V x86_64 wheels (and
# their dependencies) of each requirement into DIR; prints the requirements that
# have none, one a line.
sid_wheels() {
    local v=$1 dir=$2 r
    shift 2
    local plats=() p
    for p in manylinux2014_x86_64 manylinux_2_17_x86_64 manylinux_2_28_x86_64 \
             manylinux_2_34_x86_64 manylinux_2_39_x86_64 linux_x86_64; do
        plats+=(--platform "$p")
    done
    mkdir -p "$dir"
    # all at once first (one resolution); one by one only to name the missing
    "$HOSTPY" -m pip download -q -d "$dir" --only-binary=:all: --python-version "$v" \
        --implementation cp --abi "cp${v/./}" --abi abi3 --abi none "${plats[@]}" "$@" \
        >>"$dir/download.log" 2>&1 && return 0
    for r in "$@"; do
        "$HOSTPY" -m pip download -q -d "$dir" --only-binary=:all: --python-version "$v" \
            --implementation cp --abi "cp${v/./}" --abi abi3 --abi none "${plats[@]}" "$r" \
            >>"$dir/download.log" 2>&1 || echo "$r"
    done
}
