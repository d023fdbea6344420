"""The Poly1305 lanes of the batch AEAD (kernel_table.poly1305_lanes) with
chosen one-time keys, on every backend: the final reduction when the
accumulator is p or more (r = 1 and blocks of 0xff: h = 2^130 - 2 and up)
and s carrying past 2^128, which the AEAD's derived keys never reach in a
test.  Checked against cryptography's one-message Poly1305."""
import random

import pytest
from cryptography.hazmat.primitives.poly1305 import Poly1305

from poly1305x._core import _engine


def reference(key, msg):
    return Poly1305.generate_tag(key, msg)


def lanes_or_skip(keys, msgs):
    tags = _engine._poly1305_lanes_tags(keys, msgs)
    if tags is None:
        pytest.skip("this backend has no Poly1305 lanes")
    return tags


R_ONE = (1).to_bytes(16, "little")
S_MAX = b"\xff" * 16


@pytest.mark.parametrize("count", [1, 3, 8, 9, 16, 17])
def test_accumulator_at_or_over_p(backend, count):
    """r = 1: h is the sum of the blocks (each 2^128 + block), so two blocks
    of 0xff give 2^130 - 2 >= p, and more blocks go past 2^130."""
    keys, msgs = [], []
    for j in range(count):
        s = S_MAX if j % 2 else bytes(range(16))
        keys.append(R_ONE + s)
        msgs.append(b"\xff" * 16 * (2 + j % 5))
    assert lanes_or_skip(keys, msgs) == [reference(k, m) for k, m in zip(keys, msgs)]


def test_h_just_below_and_at_p(backend):
    """h = p - 3 ... p + 3 = 2^130 - 2 (two blocks under r = 1) and s = 0 or
    all ones: the tag is h mod p + s mod 2^128."""
    p = (1 << 130) - 5
    keys, msgs = [], []
    for h in range(p - 3, p + 4):
        # h = m1 + m2 with m_i = 2^128 + b_i: b1 = 2^128 - 1, b2 = h - 2^129 - b1
        b1 = (1 << 128) - 1
        b2 = h - (1 << 129) - b1
        for s in (bytes(16), S_MAX):
            keys.append(R_ONE + s)
            msgs.append(b1.to_bytes(16, "little") + b2.to_bytes(16, "little"))
    assert lanes_or_skip(keys, msgs) == [reference(k, m) for k, m in zip(keys, msgs)]


def test_random_keys_and_lengths(backend):
    rng = random.Random(29)
    for count in (2, 7, 16, 33, 64):
        keys = [rng.randbytes(32) for _ in range(count)]
        msgs = [rng.randbytes(16 * rng.randrange(0, 70)) for _ in range(count)]
        assert lanes_or_skip(keys, msgs) == [reference(k, m) for k, m in zip(keys, msgs)]
