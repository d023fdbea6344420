"""The Poly1305 block kernels of every backend, driven one message at a time
through ``_testing.kernel_poly1305`` (whole blocks in one call, then the padded
tail), compared with two independent oracles: the big-integer reference of RFC
8439 (tests/support/reference.py) and OpenSSL through ``cryptography``.

The vector kernels switch paths by length: below a threshold the scalar loop,
then groups of four/eight (AVX2) or sixteen (IFMA) blocks with leftovers handed
to the scalar loop.  The length tests below cross all of those boundaries.

The emulated backend (the AVX-512 IFMA kernel compiled against SIMDe, see
setup.py POLY1305X_SIMDE) runs the same tests: it is the only check of the
IFMA arithmetic on CPUs without AVX-512.  The kernel_poly1305 hook starts
from h = 0 with no cached powers; streaming (h != 0 coming in, powers cached)
is covered by the engine's tests.
"""
import random

import pytest

import poly1305x
from poly1305x._core._dispatch import emulated_backends
from poly1305x._core._testing import kernel_poly1305
from poly1305x._kernels._vectors import POLY1305_2_5_2
from tests.support.reference import poly1305 as ref_poly1305

try:
    from cryptography.hazmat.primitives.poly1305 import Poly1305 as _CryptoPoly1305
except ImportError:  # pragma: no cover - cryptography is a test dependency
    _CryptoPoly1305 = None

NATIVE = poly1305x.backends()
EMULATED = emulated_backends()
ALL = NATIVE + EMULATED

# Clamp maximum: r = 0x0ffffffc0ffffffc0ffffffc0fffffff has every limb (in any
# radix the kernels use) at its largest allowed value.
R_CLAMP_MAX = (0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF).to_bytes(16, "little")
# Thresholds and group sizes of the vector kernels, in blocks (AVX2: 8 with
# cached powers / 12 fresh, groups of 4 and 8; IFMA: 16-block steps).
BOUNDARY_BLOCKS = (4, 7, 8, 9, 11, 12, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 49,
                   63, 64, 65, 127, 128, 129)


def both_oracles(key, msg):
    tag = ref_poly1305(key, msg)
    if _CryptoPoly1305 is not None:
        assert _CryptoPoly1305.generate_tag(key, msg) == tag, "the two oracles disagree"
    return tag


def check(name, key, msg):
    got = kernel_poly1305(name, key, msg)
    want = both_oracles(key, msg)
    assert got == want, f"{name}: len {len(msg)} key {key.hex()}"


def test_backends_present():
    assert "portable" in NATIVE
    assert ALL == list(dict.fromkeys(ALL))


@pytest.mark.parametrize("name", ALL)
def test_rfc8439_vector(name):
    v = POLY1305_2_5_2      # RFC 8439 section 2.5.2
    assert kernel_poly1305(name, v["key"], v["msg"]) == v["tag"]


@pytest.mark.parametrize("name", ALL)
def test_lengths_around_multiples_of_64(name):
    """64*k + d for k <= 40, |d| <= 16: every group/leftover split and both
    full and partial final blocks."""
    rng = random.Random(0x64)
    for k in range(41):
        for d in range(-16, 17):
            n = 64 * k + d
            if n < 0:
                continue
            check(name, rng.randbytes(32), rng.randbytes(n))


@pytest.mark.parametrize("name", ALL)
def test_thresholds_plus_minus_one_block(name):
    rng = random.Random(0x7E)
    for nb in BOUNDARY_BLOCKS:
        for blocks in (nb - 1, nb, nb + 1):
            for tail in (0, 1, 15):
                check(name, rng.randbytes(32), rng.randbytes(16 * blocks + tail))


# Long runs of 0xff with 0xff keys drive every limb to its largest values: the
# carries of the vector loops and of the lane sums are at their worst.
FF_LENGTHS = [16 * b + t for b in (1, 8, 12, 16, 24, 32, 64, 100, 257, 1024) for t in (0, 5, 15)]
FF_LENGTHS += [1 << 16, (1 << 16) + 15, 300000 + 7]


@pytest.mark.parametrize("name", ALL)
def test_ff_carry_stress(name):
    key = b"\xff" * 32
    for n in FF_LENGTHS:
        check(name, key, b"\xff" * n)


@pytest.mark.parametrize("name", ALL)
def test_r_at_clamp_maximum(name):
    """r with every limb at its clamp maximum, with s at 0, 0xff.. and random,
    on messages of 0xff, 0x00 and random bytes."""
    rng = random.Random(0xC1A)
    for s in (bytes(16), b"\xff" * 16, rng.randbytes(16)):
        key = R_CLAMP_MAX + s
        for n in (0, 15, 16, 128, 191, 192, 256, 1000, 4096, 4099, 65536 + 3):
            check(name, key, b"\xff" * n)
            check(name, key, bytes(n))
            check(name, key, rng.randbytes(n))


@pytest.mark.parametrize("name", ALL)
def test_near_p_blocks(name):
    """Blocks that make each lane's accumulator sit near multiples of p:
    all-0xff blocks (value 2^129 - 1 with the pad bit), blocks equal to
    p - 2^128 = 2^128 - 5 (so block + 2^128 = p) and to 0."""
    rng = random.Random(0x9E)
    p_block = ((1 << 128) - 5).to_bytes(16, "little")
    for n_blocks in (12, 16, 20, 64, 129):
        for pattern in (p_block, b"\xff" * 16, bytes(16)):
            msg = pattern * n_blocks
            for key in (b"\xff" * 32, R_CLAMP_MAX + bytes(16), rng.randbytes(32)):
                check(name, key, msg)
                check(name, key, msg + b"\xff" * 7)


def _random_cases(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        u = rng.random()
        if u < 0.5:
            n = rng.randrange(0, 513)
        elif u < 0.9:
            n = rng.randrange(0, 4097)
        else:
            n = rng.randrange(0, 20001)
        key = rng.randbytes(32)
        if rng.random() < 0.05:
            key = R_CLAMP_MAX + key[16:]
        if rng.random() < 0.05:
            msg = b"\xff" * n
        else:
            msg = rng.randbytes(n)
        yield key, msg


@pytest.mark.parametrize("name", ALL)
def test_random(name):
    """10,000 seeded random cases per backend (the emulated one too: it runs
    the IFMA arithmetic lane by lane in C, still fast enough)."""
    count = 10000
    for key, msg in _random_cases(0x5EED + sum(name.encode()), count):
        check(name, key, msg)


@pytest.mark.parametrize("name", ALL)
def test_one_mebibyte(name):
    rng = random.Random(0x1)
    for n in ((1 << 20), (1 << 20) + 13):
        check(name, rng.randbytes(32), rng.randbytes(n))


@pytest.mark.parametrize("name", ALL)
def test_backends_agree_with_portable(name):
    """Same inputs, every backend, bit-identical tags (cheap cross-check over
    many lengths, independent of the oracles' speed)."""
    rng = random.Random(0xA6)
    for n in list(range(0, 3 * 256 + 1)) + [rng.randrange(0, 1 << 15) for _ in range(50)]:
        key, msg = rng.randbytes(32), rng.randbytes(n)
        assert kernel_poly1305(name, key, msg) == kernel_poly1305("portable", key, msg), n
