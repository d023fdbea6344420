"""The multi-buffer ChaCha20 of every backend (kernel_table.chacha20_lanes:
one message's key stream per vector lane), called alone through the test hook
``_testing.kernel_chacha20_lanes`` (no batch logic in between), against
cryptography's ChaCha20 (OpenSSL) lane by lane: every lane count up to 17 and
a few beyond the widest group, lanes of different lengths (0 blocks
included) side by side, and counters that end exactly at 2^32."""
import random
import struct

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

from poly1305x._core import _testing


def openssl_stream(key, nonce, counter, nblocks):
    enc = Cipher(algorithms.ChaCha20(key, struct.pack("<I", counter) + nonce), None).encryptor()
    return enc.update(bytes(64 * nblocks))


def lanes_against_openssl(name, keys, nonces, counters, nblocks):
    got = _testing.kernel_chacha20_lanes(name, keys, nonces, counters, nblocks)
    assert len(got) == len(keys)
    for j, (k, n, c, b) in enumerate(zip(keys, nonces, counters, nblocks)):
        assert got[j] == openssl_stream(k, n, c, b), (name, j, c, b)


@pytest.mark.parametrize("nlanes", list(range(1, 18)) + [31, 33, 64])
def test_lanes_of_mixed_lengths(name, nlanes):
    rng = random.Random(nlanes)
    keys = [rng.randbytes(32) for _ in range(nlanes)]
    nonces = [rng.randbytes(12) for _ in range(nlanes)]
    counters = [rng.choice([0, 1, rng.randrange(1 << 31)]) for _ in range(nlanes)]
    nblocks = [rng.randrange(0, 20) for _ in range(nlanes)]
    lanes_against_openssl(name, keys, nonces, counters, nblocks)


def test_equal_lanes_and_an_empty_one(name):
    key, nonce = bytes(range(32)), bytes(range(12))
    lanes_against_openssl(name, [key] * 9, [nonce] * 9, [1] * 8 + [5], [4] * 8 + [0])


def test_counter_ends_at_2_32(name):
    """The last block of each lane has word 12 = 0xffffffff: no carry needed."""
    rng = random.Random(7)
    nblocks = [1, 2, 3, 8, 16, 17]
    counters = [(1 << 32) - b for b in nblocks]
    keys = [rng.randbytes(32) for _ in nblocks]
    nonces = [rng.randbytes(12) for _ in nblocks]
    lanes_against_openssl(name, keys, nonces, counters, nblocks)


def test_hook_refuses_bad_arguments():
    k, n = bytes(32), bytes(12)
    for args in (([bytes(31)], [n], [0], [1]), ([k], [bytes(8)], [0], [1]),
                 ([k], [n], [0, 1], [1]), ([k], [n], [1 << 32], [0]),
                 ([k], [n], [(1 << 32) - 1], [2]), ([k], [n], [0], [-1])):
        with pytest.raises(ValueError):
            _testing.kernel_chacha20_lanes("portable", *args)
    assert _testing.kernel_chacha20_lanes("portable", [], [], [], []) == []
