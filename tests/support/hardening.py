"""Shared pieces of the hardening tests (tests/hardening/test_hardening_*.py): zero-page
buffers of any size, closed-form Poly1305 oracles for them, and a subprocess
runner for crash reproducers.  (Threads: tests/support/helpers.run_threads and
tests/support/threads.py.)"""
import ctypes
import mmap
import os
import subprocess
import sys
import textwrap

from tests.support.reference import P1305

SANITIZED = bool(os.environ.get("POLY1305X_SANITIZED"))
AEAD_MAX = (2**32 - 1) * 64          # RFC 8439: 2^38 - 64 bytes of plaintext
UNINIT = "not initialised"


def zero_map(n):
    """A read-only memoryview of n zero bytes that costs no memory: an
    anonymous MAP_NORESERVE mapping (reads hit the shared zero page).  Lets
    the tests hand the library buffers of 2^32 and 2^38 bytes."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    MAP_NORESERVE = 0x4000
    p = libc.mmap(None, n, mmap.PROT_READ,
                  mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
    if p in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), f"cannot map {n} bytes of address space")
    arr = (ctypes.c_char * n).from_address(p)
    view = memoryview(arr).cast("B")
    # ctypes arrays made from_address export writable buffers; the mapping is
    # PROT_READ, so hand out a read-only view (a write would fault).
    ro = view.toreadonly()
    ro_release = [view, arr]

    class Mapping:
        def __init__(self):
            self.view = ro

        def close(self):
            self.view.release()
            ro_release[0].release()
            libc.munmap(p, n)

    return Mapping()


def poly1305_zeros(key, n):
    """Poly1305 of n zero bytes, for any n (2^38 included) in microseconds:
    k full zero blocks each add 2^128, so h = 2^128 (r + r^2 + ... + r^k)."""
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:], "little")
    k, tail = divmod(n, 16)
    h = 0
    if k:
        assert r > 1
        h = (1 << 128) * r * (pow(r, k, P1305) - 1) * pow(r - 1, -1, P1305) % P1305
    if tail:
        h = (h + (1 << (8 * tail))) * r % P1305
    return ((h + s) % (1 << 128)).to_bytes(16, "little")


def poly1305_continue(key, h_msg_prefix_zero_blocks, rest):
    """Poly1305 of (k zero blocks) || rest, rest absorbed as in the RFC."""
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:], "little")
    k = h_msg_prefix_zero_blocks
    h = (1 << 128) * r * (pow(r, k, P1305) - 1) * pow(r - 1, -1, P1305) % P1305 if k else 0
    for i in range(0, len(rest), 16):
        block = rest[i:i + 16] + b"\x01"
        h = (h + int.from_bytes(block, "little")) * r % P1305
    return ((h + s) % (1 << 128)).to_bytes(16, "little")


def random_size(rng):
    """Mostly short messages, a fifth of them above the 4 KiB GIL threshold."""
    x = rng.random()
    if x < 0.4:
        return rng.randrange(0, 64)
    if x < 0.8:
        return rng.randrange(64, 4096)
    return rng.randrange(4096, 40000)



def run_python(code, timeout=120, env=None):
    """Run code in a fresh interpreter (crash reproducers: a crash is a failed
    test, not a dead test run).  Returns the CompletedProcess; the code sees
    the poly1305x this process imported (the tree's, or an installed one),
    and then the tests package (``from tests.support.hardening import ...``):
    the directory above tests/ comes after poly1305x's, so its poly1305x/
    never shadows an installed one."""
    import poly1305x
    root = os.path.dirname(os.path.dirname(os.path.abspath(poly1305x.__file__)))
    tests_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.pathsep.join([root, tests_parent, os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": path, **(env or {})})


def assert_clean_exit(proc, expect="OK"):
    """The child exited 0 (no signal) and printed `expect` last."""
    detail = f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert proc.returncode == 0, detail
    assert proc.stdout.strip().splitlines()[-1:] == [expect], detail
