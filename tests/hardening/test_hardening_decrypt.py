"""Hardening: what a decryption returns and leaves behind.  Inputs changed by
another thread during a call (each byte read once: what is returned is what
was authenticated, and a thread watching a failed decrypt_into never sees
plaintext), and the zeros a failed decrypt_into leaves at every length.
(Buffers held while in use and odd outputs are in test_hardening_buffers.py.)"""
import random
import threading

import pytest

from poly1305x import InvalidTag
from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305
from tests.support.hardening import SANITIZED
from tests.support.threads import fast_switch  # noqa: F401 - a fixture


# ---------------------------------------------------------------------------
# Inputs changed by another thread during a call: each
# ciphertext byte is read once, so a decryption that succeeds returns the
# plaintext of exactly the bytes its tag covered.  Before, the MAC and the
# XOR read the buffer separately: 40 of 3,000 decryptions of a 1 MiB
# bytearray with one byte flipping returned plaintext of a never-authenticated
# ciphertext.
# ---------------------------------------------------------------------------

def _flipping(buf, positions, stop):
    while not stop.is_set():
        for i in positions:
            buf[i] ^= 0x80
            buf[i] ^= 0x80


def _race(decrypt, buf, positions, rounds):
    """decrypt() rounds times while another thread flips bytes of buf at
    positions; returns the distinct results of the calls that succeeded."""
    stop = threading.Event()
    t = threading.Thread(target=_flipping, args=(buf, positions, stop))
    t.start()
    results = set()
    try:
        for _ in range(rounds):
            try:
                results.add(bytes(decrypt()))
            except (InvalidTag, ValueError):
                pass
    finally:
        stop.set()
        t.join()
    return results


ROUNDS = 100 if SANITIZED else 600


@pytest.mark.usefixtures("fast_switch")
def test_decrypt_returns_only_what_was_authenticated():
    key, nonce = bytes(range(32)), bytes(12)
    n = 1 << 20
    pt = random.Random(6).randbytes(n)
    sealed = bytearray(ChaCha20Poly1305(key).encrypt(nonce, pt, b"ad"))
    aead = ChaCha20Poly1305(key)
    # bytes near the start of each 16 KiB slice and in the middle
    positions = [5, 16384 + 7, 300000, n - 3]
    out = bytearray(n)

    def into():
        aead.decrypt_into(nonce, sealed, b"ad", out)
        return out

    for call in (lambda: aead.decrypt(nonce, sealed, b"ad"), into):
        assert _race(call, sealed, positions, ROUNDS) <= {pt}


@pytest.mark.usefixtures("fast_switch")
def test_packet_open_returns_only_what_was_authenticated():
    from poly1305x.openssh._ssh import PacketCipher
    p = PacketCipher(bytes(range(64)))
    body = random.Random(7).randbytes((256 << 10) - 4)
    packet = len(body).to_bytes(4, "big") + body
    sealed = bytearray(p.seal(9, packet))
    assert _race(lambda: p.open(9, sealed), sealed, [2, 100, 70000, len(body)],
                 ROUNDS) <= {packet}


@pytest.mark.usefixtures("fast_switch")
def test_failed_decrypt_into_never_shows_plaintext():
    """While a forged 1 MiB message is decrypted into a shared buffer, another
    thread watching the buffer never sees plaintext (it holds ciphertext until
    the tag is checked, then zeros)."""
    key, nonce = bytes(range(32)), bytes(12)
    n = 1 << 20
    pt = random.Random(8).randbytes(n)
    sealed = bytearray(ChaCha20Poly1305(key).encrypt(nonce, pt, None))
    sealed[-1] ^= 1
    out = bytearray(n)
    spots = [(i, pt[i:i + 16]) for i in range(0, n, 65536)]
    stop, seen = threading.Event(), []

    def watch():
        while not stop.is_set():
            for i, want in spots:
                if out[i:i + 16] == want:
                    seen.append(i)

    t = threading.Thread(target=watch)
    t.start()
    try:
        for _ in range(ROUNDS // 10):
            with pytest.raises(InvalidTag):
                ChaCha20Poly1305(key).decrypt_into(nonce, sealed, None, out)
            assert out == bytes(n)
    finally:
        stop.set()
        t.join()
    assert seen == []


# ---------------------------------------------------------------------------
# What a failed decryption leaves behind (items 6 and 11): one rule at every
# length -- decrypt_into's buffer holds zeros; nothing is returned.
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 63, 100, 447, 448, 449, 5000, 16384, 16385, 100000])
def test_failed_decrypt_into_leaves_zeros(backend, n):
    key = bytes(range(32))
    pt = random.Random(n).randbytes(n)
    for cls, nonce in ((ChaCha20Poly1305, bytes(12)), (XChaCha20Poly1305, bytes(24))):
        sealed = bytearray(cls(key).encrypt(nonce, pt, b"ad"))
        for where in (0, len(sealed) // 2, len(sealed) - 1):
            bad = bytearray(sealed)
            bad[where] ^= 4
            out = bytearray(b"\xa5" * n)
            with pytest.raises(InvalidTag):
                cls(key).decrypt_into(nonce, bad, b"ad", out)
            assert out == bytes(n), (cls.__name__, where)
        out = bytearray(b"\xa5" * n)
        with pytest.raises(InvalidTag):
            cls(key).decrypt_into(nonce, sealed, b"AD", out)
        assert out == bytes(n)
        assert cls(key).decrypt_into(nonce, sealed, b"ad", out) == n and out == pt
