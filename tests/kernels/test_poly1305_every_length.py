"""Poly1305 on every backend at every length from 0 to 2000 bytes, against
both oracles (the big-integer reference and OpenSSL through cryptography),
and with an accumulator at or above p coming into the vector loops.

Every length crosses each kernel's own split of a message: the scalar
threshold (fresh powers), the groups of four, eight or sixteen blocks, the
leftover blocks and the padded final block.  The accumulator edge: with r = 1
the three blocks 2^128 - 5 + k (k = 0..4), 0, 0 (each with its 2^128 bit)
sum to h = p + k < 2^130, an unreduced representation the scalar loop keeps
as it is (it folds only the bits at 2^130 and up); the next update hands that
h to the vector loop (lane 0 of its first group)."""
import random

import pytest

from poly1305x._core._testing import kernel_poly1305, kernel_poly1305_lanes
from poly1305x.mac import Poly1305
from tests.kernels.test_poly1305_kernels import ALL, R_CLAMP_MAX, both_oracles
from tests.support.helpers import backend_selected

P = (1 << 130) - 5
R_ONE = (1).to_bytes(16, "little")


@pytest.mark.parametrize("name", ALL)
def test_every_length_0_to_2000(name):
    rng = random.Random(0xE1 + sum(name.encode()))
    for n in range(2001):
        key, msg = rng.randbytes(32), rng.randbytes(n)
        assert kernel_poly1305(name, key, msg) == both_oracles(key, msg), n


@pytest.mark.parametrize("name", ALL)
def test_every_length_all_ff(name):
    """r at its clamp maximum and every byte 0xff (each limb of r, 5 r and
    every block at its largest): lengths 0..1100, then every length around
    the 16-block steps up to 4 KiB."""
    key = R_CLAMP_MAX + b"\xff" * 16
    lengths = list(range(1101)) + [256 * k + d for k in range(5, 17) for d in range(-17, 18)]
    for n in lengths:
        msg = b"\xff" * n
        assert kernel_poly1305(name, key, msg) == both_oracles(key, msg), n


@pytest.mark.parametrize("k", range(5))
def test_accumulator_at_or_above_p_enters_the_vector_loop(backend, k):
    """h = p + k after three blocks (r = 1, see the module docstring), then
    long updates: the tag is that of the whole message mod p."""
    rng = random.Random(k)
    block = ((1 << 128) - 5 + k).to_bytes(16, "little") + bytes(32)
    assert sum(int.from_bytes(block[i:i + 16] + b"\x01", "little") for i in (0, 16, 32)) == P + k
    for s in (bytes(16), b"\xff" * 16):
        for tail in (0, 7, 16 * 24, 16 * 24 + 5, 16 * 40, 4096 + 3):
            for body in (b"\xff" * tail, rng.randbytes(tail)):
                key = R_ONE + s
                with backend_selected(backend):
                    mac = Poly1305(key)
                    mac.update(block)
                    mac.update(body)
                    tag = mac.finalize()
                assert tag == both_oracles(key, block + body), (k, len(body))


@pytest.mark.parametrize("name", ALL)
def test_random_chunks_of_long_messages(name):
    """Messages up to 8 KiB in random pieces (odd sizes, single bytes, long
    runs): the vector loops see h != 0 and cached powers between calls."""
    rng = random.Random(0xC4 + sum(name.encode()))
    for _ in range(60):
        key = rng.randbytes(32) if rng.random() < 0.8 else R_CLAMP_MAX + rng.randbytes(16)
        msg = rng.randbytes(rng.randrange(0, 8193))
        with backend_selected(name):
            mac = Poly1305(key)
            at = 0
            while at < len(msg):
                step = rng.choice((1, 15, 16, 17, rng.randrange(1, 2048)))
                mac.update(msg[at:at + step])
                at += step
            tag = mac.finalize()
        assert tag == both_oracles(key, msg), len(msg)


@pytest.mark.parametrize("count", [1, 7, 8, 9, 15, 16, 17, 33])
def test_lanes_at_the_limb_bounds(backend, count):
    """The batch's Poly1305 lanes (kernel_table.poly1305_lanes) with r at its
    clamp maximum and every block 0xff, lengths 0..30 blocks spread over the
    lanes (a set's lanes end at different steps; past 24 blocks a message
    goes to the one-message kernel on the x86 lanes)."""
    keys = [R_CLAMP_MAX + (b"\xff" * 16 if j % 2 else bytes(16)) for j in range(count)]
    msgs = [b"\xff" * 16 * ((5 * j + count) % 31) for j in range(count)]
    tags = kernel_poly1305_lanes(backend, keys, msgs)
    assert tags == [both_oracles(k, m) for k, m in zip(keys, msgs)]
