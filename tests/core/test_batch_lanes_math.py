"""The batch AEAD's arithmetic and bookkeeping.  The Poly1305 lanes
(kernel_table.poly1305_lanes) with chosen one-time keys, on every backend:
the final reduction when the accumulator is p or more (r = 1 and blocks of
0xff: h = 2^130 - 2 and up) and s carrying past 2^128, which the AEAD's
derived keys never reach in a test, checked against cryptography's
one-message Poly1305.  The check for a repeated nonce at the sizes where its
table moves from the stack to the heap."""
import random

import pytest
from cryptography.hazmat.primitives.poly1305 import Poly1305

from poly1305x._core import _dispatch, _testing


def reference(key, msg):
    return Poly1305.generate_tag(key, msg)


def lanes(keys, msgs):
    """The selected backend's lane tags (every backend has Poly1305 lanes)."""
    return _testing.kernel_poly1305_lanes(_dispatch.backend(), keys, msgs)


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
    assert lanes(keys, msgs) == [reference(k, m) for k, m in zip(keys, msgs)]


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
    assert lanes(keys, msgs) == [reference(k, m) for k, m in zip(keys, msgs)]


def test_random_keys_and_lengths(backend):
    rng = random.Random(29)
    for count in (2, 7, 16, 33, 64):
        keys = [rng.randbytes(32) for _ in range(count)]
        msgs = [rng.randbytes(16 * rng.randrange(0, 70)) for _ in range(count)]
        assert lanes(keys, msgs) == [reference(k, m) for k, m in zip(keys, msgs)]


@pytest.mark.parametrize("count", [2, 9, 64, 256, 257, 1000])
@pytest.mark.parametrize("nonce_len", [12, 24])
def test_repeated_nonce_found_at_any_size(count, nonce_len):
    """The repeat check (its table on the stack up to 256 messages, on the
    heap past that, without the GIL from 2048): nonces that differ only past their first 8 bytes are
    distinct, a repeat anywhere is found and named by its later index."""
    from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305
    a = (ChaCha20Poly1305 if nonce_len == 12 else XChaCha20Poly1305)(bytes(32))
    head = b"\x07" * 8
    nonces = [head + i.to_bytes(nonce_len - 8, "big") for i in range(count)]
    data = [b"x"] * count
    assert a.decrypt_many(nonces, a.encrypt_many(nonces, data, None), None) == data
    for at in sorted({1, count // 2, count - 1}):
        bad = list(nonces)
        bad[at] = nonces[at - 1]
        with pytest.raises(ValueError, match=rf"nonces\[{at}\] repeats"):
            a.encrypt_many(bad, data, None)


@pytest.mark.parametrize("xs", [1, 2, 3, 4, 9, 16])
def test_batch_hchacha20_lanes(backend, xs):
    """XChaCha20 messages get their HChaCha20 subkeys across lanes when a
    group holds 3 or more of them: groups of 16 equal-length messages
    (one group each) with xs XChaCha20 messages among ChaCha20 ones under
    other keys and a key repeated, in the multi-key form, against single
    calls; and a single-key XChaCha20 batch against single calls (the
    XChaCha draft's vector inside batches: test_aead_batch)."""
    from poly1305x import aead as aeads
    from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305
    rng = random.Random(xs)
    for size in (0, 64, 200):
        xkeys = [XChaCha20Poly1305(rng.randbytes(32)) for _ in range(4)]
        ckey = ChaCha20Poly1305(rng.randbytes(32))
        keys = [xkeys[j % 4] if j < xs else (ckey if j % 2 else rng.randbytes(32))
                for j in range(16)]
        rng.shuffle(keys)
        nonces = [rng.randbytes(12 if isinstance(k, (bytes, ChaCha20Poly1305)) else 24)
                  for k in keys]
        data = [rng.randbytes(size) for _ in keys]
        aad = [rng.randbytes(rng.randrange(0, 40)) for _ in keys]
        want = [(ChaCha20Poly1305(k) if isinstance(k, bytes) else k).encrypt(n, d, x)
                for k, n, d, x in zip(keys, nonces, data, aad)]
        assert aeads.encrypt_many(keys, nonces, data, aad) == want
        assert aeads.decrypt_many(keys, nonces, want, aad) == data
    a = XChaCha20Poly1305(rng.randbytes(32))
    nonces = [rng.randbytes(24) for _ in range(40)]
    data = [rng.randbytes(64) for _ in nonces]
    cts = a.encrypt_many(nonces, data, None)
    assert cts == [a.encrypt(n, d, None) for n, d in zip(nonces, data)]
    assert a.decrypt_many(nonces, cts, None) == data
