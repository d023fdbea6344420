"""The ChaCha20 loops of every backend, called directly through the test hooks
(poly1305x._core._testing; no engine in between):

* ``_testing.kernel_chacha20``: the bare key stream (src NULL);
* ``_testing.kernel_chacha20_xor``: XOR into data, out of place (src != dst),
  in place (src == dst), and split into two calls on one state (the kernel
  must store the advanced counter back).

Oracles: tests/support/reference.py (pure Python RFC 8439) and cryptography's
ChaCha20 (OpenSSL).  The vector kernels work in batches of 4, 8 and 16 blocks,
so every block count 1..40 is covered, plus counters that carry from word 12
into word 13 inside a batch.
"""
import random
import struct

import pytest

from tests.support import reference
from poly1305x._core import _dispatch, _testing
from poly1305x._kernels._vectors import CHACHA20_2_4_2, CHACHA20_BLOCK_2_3_2

import cryptography  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms  # noqa: E402

EMULATED = _dispatch.emulated_backends()

# Block counts: every count up to 40 crosses each batch size and tail shape of
# the 4-, 8- and 16-block loops; 100 and 1000 exercise many full batches.
COUNTS = list(range(1, 41)) + [100, 1000]
# The SIMDe build is slow: fewer cases, still every tail shape up to 2 x 16 + 8.
COUNTS_EMU = list(range(1, 41)) + [100]


def counts_for(name):
    return COUNTS_EMU if name in EMULATED else COUNTS


def openssl_stream(key, nonce, counter, nbytes):
    """Key stream from cryptography's ChaCha20 (16-byte nonce: LE counter + nonce)."""
    enc = Cipher(algorithms.ChaCha20(key, struct.pack("<I", counter) + nonce), None).encryptor()
    return enc.update(bytes(nbytes))


def reference_stream64(key, nonce, counter, nblocks):
    """Key stream of the kernels' contract: the counter is the 64-bit number in
    words 12-13, i.e. RFC 8439's 32-bit counter carrying into the first nonce
    word.  Modelled with the reference's 8-byte-nonce (64-bit counter) form."""
    c64 = counter | (struct.unpack("<I", nonce[:4])[0] << 32)
    return b"".join(reference.chacha20_block(key, (c64 + i) % 2**64, nonce[4:])
                    for i in range(nblocks))


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


# --- known answers -----------------------------------------------------------

# RFC 8439 2.4.2, and 2.3.2 (the block at counter 1, also the dispatcher's
# self-test): the package's one copy (poly1305x/_kernels/_vectors.py).
RFC_KEY = CHACHA20_2_4_2["key"]
RFC_242_NONCE = CHACHA20_2_4_2["nonce"]
RFC_242_PT = CHACHA20_2_4_2["pt"]
RFC_242_CT = CHACHA20_2_4_2["ct"]
RFC_232_NONCE = CHACHA20_BLOCK_2_3_2["nonce"]
RFC_232_BLOCK = CHACHA20_BLOCK_2_3_2["block"]


def test_rfc8439_2_3_2_block(name):
    assert _testing.kernel_chacha20(name, RFC_KEY, RFC_232_NONCE, 1, 1) == RFC_232_BLOCK


@pytest.mark.parametrize("in_place", [False, True])
def test_rfc8439_2_4_2_encryption(name, in_place):
    padded = RFC_242_PT + bytes(-len(RFC_242_PT) % 64)
    out = _testing.kernel_chacha20_xor(name, RFC_KEY, RFC_242_NONCE, padded, 1, in_place)
    assert out[:len(RFC_242_PT)] == RFC_242_CT


# --- every block count against OpenSSL -----------------------------------------

def test_key_stream_every_count(name):
    rng = random.Random(8439)
    bad = []
    for n in counts_for(name):
        key = rng.randbytes(32)
        nonce = rng.randbytes(12)
        ctr = rng.randrange(0, 2**31)
        if _testing.kernel_chacha20(name, key, nonce, n, ctr) != openssl_stream(key, nonce, ctr, 64 * n):
            bad.append(n)
    assert bad == []


@pytest.mark.parametrize("in_place", [False, True], ids=["src!=dst", "src==dst"])
def test_xor_every_count(name, in_place):
    rng = random.Random(7539 + in_place)
    bad = []
    for n in counts_for(name):
        key = rng.randbytes(32)
        nonce = rng.randbytes(12)
        ctr = rng.randrange(0, 2**31)
        data = rng.randbytes(64 * n)
        want = xor(data, openssl_stream(key, nonce, ctr, 64 * n))
        got = _testing.kernel_chacha20_xor(name, key, nonce, data, ctr, in_place)
        if got != want:
            bad.append(n)
    assert bad == []


def test_xor_is_an_involution_in_place(name):
    rng = random.Random(99)
    key, nonce = rng.randbytes(32), rng.randbytes(12)
    data = rng.randbytes(64 * 37)
    once = _testing.kernel_chacha20_xor(name, key, nonce, data, 5, True)
    assert once != data
    assert _testing.kernel_chacha20_xor(name, key, nonce, once, 5, True) == data


@pytest.mark.parametrize("split", [0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 33,
                                   39, 40])
def test_counter_is_stored_back(name, split):
    """Two calls on one state give the same bytes as one call: the first call
    must leave the counter advanced by exactly its block count.  In place, it
    must also store no block past its count (a batch cut short, such as 7 of
    8 or 9-15 of 16, computes the blocks after): such a block would be XORed
    twice."""
    rng = random.Random(split)
    key, nonce = rng.randbytes(32), rng.randbytes(12)
    data = rng.randbytes(64 * 40)
    want = xor(data, openssl_stream(key, nonce, 3, len(data)))
    assert _testing.kernel_chacha20_xor(name, key, nonce, data, 3, False, split) == want
    assert _testing.kernel_chacha20_xor(name, key, nonce, data, 3, True, split) == want


# --- the 64-bit counter: carry out of word 12 inside a batch ------------------

WRAP_COUNTERS = [0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFC, 0xFFFFFFF9, 0xFFFFFFF8,
                 0xFFFFFFF7, 0xFFFFFFF1, 0xFFFFFFF0, 0xFFFFFFEF, 0xFFFFFFE1, 0xFFFFFFE0]
WRAP_COUNTS = [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 20, 24, 31, 32, 33, 40]


@pytest.mark.parametrize("ctr", WRAP_COUNTERS, ids=hex)
def test_counter_carry_into_word_13(name, ctr):
    rng = random.Random(ctr)
    key = rng.randbytes(32)
    # Nonce word 0 (state word 13) all ones as well: the carry then also wraps
    # the 64-bit counter to 0, which the kernels must do mod 2^64.
    for nonce in (rng.randbytes(12), b"\xff\xff\xff\xff" + rng.randbytes(8)):
        ref = reference_stream64(key, nonce, ctr, max(WRAP_COUNTS))
        for n in WRAP_COUNTS:
            assert _testing.kernel_chacha20(name, key, nonce, n, ctr) == ref[:64 * n], n
        data = rng.randbytes(64 * 33)
        assert (_testing.kernel_chacha20_xor(name, key, nonce, data, ctr, True, 11)
                == xor(data, ref[:64 * 33]))


def test_wrap_differs_from_32_bit_wrap(name):
    """Guard for the oracle above: after the carry the blocks are not those of
    a 32-bit counter that wraps within the same nonce."""
    key, nonce = bytes(range(32)), bytes(12)
    after = _testing.kernel_chacha20(name, key, nonce, 2, 0xFFFFFFFF)[64:]
    assert after != reference.chacha20_block(key, 0, nonce)
    assert after == reference.chacha20_block(key, 0, b"\x01\0\0\0" + bytes(8))


# --- cross-check: all backends agree with `scalar` on long random inputs -------

def test_backends_agree_on_long_input(name):
    rng = random.Random(4242)
    key, nonce = rng.randbytes(32), rng.randbytes(12)
    n = 1000 if name not in EMULATED else 300
    data = rng.randbytes(64 * n)
    scalar = _testing.kernel_chacha20_xor("scalar", key, nonce, data, 0xFFFFFF00)
    assert _testing.kernel_chacha20_xor(name, key, nonce, data, 0xFFFFFF00) == scalar
