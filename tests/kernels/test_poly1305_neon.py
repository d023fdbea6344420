"""The ``portable`` backend's Poly1305, aimed at the 2-lane NEON kernel that it
runs on aarch64 (poly1305x/_kernels/_poly1305_neon.pxi): below 16 blocks and
for an odd last block it hands off to the scalar base-2^64 loop, above that it
takes pairs of blocks in two lanes, four blocks per step, and finishes with
[r^4, r^3] / [r^2, r^1] and a lane sum.

The same tests run on every platform.  On aarch64 they check the NEON kernel
(and `test_poly_kind` asserts that the build has it); elsewhere ``portable``
is the scalar loop and they are one more differential run of it.  Oracles: the
big-integer reference (tests/support/reference.py), OpenSSL through ``cryptography``,
and the ``scalar`` backend (the base-2^64 loop on every platform).
"""
import platform
import random

import pytest
from cryptography.hazmat.primitives.poly1305 import Poly1305 as CryptoPoly1305

from poly1305x._core._testing import kernel_poly1305
from poly1305x._kernels import _portable
from poly1305x.mac import Poly1305 as MacPoly1305
from tests.support.helpers import backend_selected
from tests.support.reference import poly1305 as ref_poly1305

AARCH64 = platform.machine().lower() in ("aarch64", "arm64")
# The kernel's switch-over (blocks) and step (blocks).
THRESHOLD = 16
STEP = 4
R_CLAMP_MAX = (0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF).to_bytes(16, "little")


def oracle(key, msg):
    tag = ref_poly1305(key, msg)
    assert CryptoPoly1305.generate_tag(key, msg) == tag, "the two oracles disagree"
    return tag


@pytest.fixture
def on_portable():
    with backend_selected("portable"):
        yield


def test_poly_kind():
    """aarch64 builds run the NEON kernel; every other build the scalar loop."""
    if AARCH64:
        assert _portable.POLY_KIND == "neon-2x26"
        assert _portable.HAVE_NEON_POLY is True
    else:
        assert _portable.HAVE_NEON_POLY is False
        assert _portable.POLY_KIND in ("scalar-64", "lanes2-emulated")


def test_every_length_to_1100():
    """Every message length 0..1100 (0..68 blocks plus tails): below, at and
    above the threshold, 2- and 4-block last steps, an odd last block, and
    the padded final block."""
    rng = random.Random(0x4E30)
    for n in range(1101):
        key, msg = rng.randbytes(32), rng.randbytes(n)
        tag = kernel_poly1305("portable", key, msg)
        assert tag == oracle(key, msg), n
        assert tag == kernel_poly1305("scalar", key, msg), n


@pytest.mark.parametrize("key_kind", ["ff", "clamp-max", "random"])
def test_around_threshold_and_steps(key_kind):
    """16 * b + t bytes for b around the threshold and a few step counts, with
    keys and messages that push every limb to its largest value."""
    rng = random.Random(0xB10C)
    for b in [THRESHOLD - 1, THRESHOLD, THRESHOLD + 1, THRESHOLD + 2, THRESHOLD + 3,
              THRESHOLD + STEP, 2 * THRESHOLD + 1, 255, 256, 257]:
        for t in (0, 1, 15):
            n = 16 * b + t
            key = {"ff": b"\xff" * 32, "clamp-max": R_CLAMP_MAX + rng.randbytes(16),
                   "random": rng.randbytes(32)}[key_kind]
            for msg in (b"\xff" * n, bytes(n), rng.randbytes(n)):
                assert kernel_poly1305("portable", key, msg) == oracle(key, msg), (n, key_kind)


def test_streaming_random_chunks(on_portable):
    """One key, many update() calls of random sizes: short calls (the scalar
    loop) and long ones (the lanes, with h coming in non-zero and the powers
    cached from an earlier call) drive one state in turn."""
    rng = random.Random(0x57EA)
    for case in range(120):
        key = R_CLAMP_MAX + rng.randbytes(16) if case % 10 == 0 else rng.randbytes(32)
        msg = rng.randbytes(rng.randrange(0, 6000))
        mac = MacPoly1305(key)
        assert mac.backend == "portable"
        i = 0
        while i < len(msg):
            size = rng.choice([rng.randrange(1, 40), rng.randrange(200, 300),
                               rng.randrange(256, 2048)])
            mac.update(msg[i:i + size])
            i += size
        assert mac.finalize() == oracle(key, msg), case


def test_streaming_block_aligned_calls(on_portable):
    """Whole-block update() calls of 2k and 2k+1 blocks around the threshold,
    so each call ends in a 2- or 4-block last step or an odd block."""
    rng = random.Random(0xA119)
    key = rng.randbytes(32)
    mac = MacPoly1305(key)
    parts = []
    for blocks in list(range(THRESHOLD - 2, THRESHOLD + 2 * STEP + 2)) * 2:
        part = rng.randbytes(16 * blocks)
        parts.append(part)
        mac.update(part)
    assert mac.finalize() == oracle(key, b"".join(parts))


def test_large_message_all_ff():
    key = b"\xff" * 32
    for n in (1 << 16, (1 << 16) + 31, 100003):
        msg = b"\xff" * n
        assert kernel_poly1305("portable", key, msg) == oracle(key, msg), n
