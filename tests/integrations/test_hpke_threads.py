"""HPKE contexts shared between threads: every seal claims its
sequence number before it encrypts, so N concurrent seals use N distinct
nonces and leave seq at N; opens run one at a time and a failed one does not
consume its number (RFC 9180 section 5.2, as rfc9180).  Messages are 16 KiB,
so that poly1305x releases the GIL while it encrypts.  Which sequence number
a ciphertext was sealed at is read back from its key stream (ciphertext XOR
plaintext), and then each is opened by a recipient context in that order."""
import os

import pytest

from tests.support.helpers import run_threads

from poly1305x import hpke
from poly1305x._core._engine import ChaCha20Poly1305 as EngineAEAD

THREADS, PER_THREAD, SIZE = 8, 40, 16 * 1024
KEY = bytes(range(32))
BASE = bytes.fromhex("5c4d98150661b848853b547f")


def sealed_at(sealed, count):
    """{seq: (pt, ct)} from the key stream of each ciphertext; fails on a
    ciphertext that no seq in 0..count-1 made, and on two at one seq."""
    nonce = hpke.Context(KEY, BASE).compute_nonce
    stream = {hpke.seal(KEY, nonce(s), b"", bytes(16))[:16]: s for s in range(count)}
    by_seq = {}
    for pt, ct in sealed:
        ks = bytes(a ^ b for a, b in zip(ct[:16], pt[:16]))
        assert ks in stream, "a ciphertext sealed at no sequence number in range"
        s = stream[ks]
        assert s not in by_seq, f"nonce reuse: seq {s} sealed twice"
        by_seq[s] = pt, ct
    return by_seq


def seal_from_threads(seal):
    """THREADS x PER_THREAD seals of distinct 16 KiB messages through seal."""
    sealed = []

    def body(i):
        mine = []
        for j in range(PER_THREAD):
            pt = bytes([i, j]) + os.urandom(SIZE - 2)
            mine.append((pt, seal(b"aad", pt)))
        sealed.extend(mine)

    run_threads(body, THREADS)
    return sealed


def test_concurrent_seals_use_distinct_nonces(backend):
    ctx = hpke.Context(KEY, BASE)
    sealed = seal_from_threads(ctx.seal)
    n = THREADS * PER_THREAD
    assert ctx.seq == n
    by_seq = sealed_at(sealed, n)
    assert sorted(by_seq) == list(range(n))
    rx = hpke.Context(KEY, BASE)
    for s in range(n):
        pt, ct = by_seq[s]
        assert rx.open(b"aad", ct) == pt
    assert rx.seq == n
    # and the next single-threaded seal is at seq n, not a repeat
    pt = bytes(SIZE)
    assert sealed_at([(pt, ctx.seal(b"aad", pt))], n + 1).keys() == {n}


def test_concurrent_opens_open_each_message_once(backend):
    """8 threads race to open the message at the context's seq: each message
    opens exactly once, the losers get InvalidTag without moving seq."""
    n = 200
    tx = hpke.Context(KEY, BASE)
    msgs = [k.to_bytes(2, "big") * (2 * SIZE) for k in range(n)]
    cts = [tx.seal(b"aad", m) for m in msgs]
    rx = hpke.Context(KEY, BASE)
    opened = []

    def body(i):
        while True:
            s = rx.seq
            if s >= n:
                return
            try:
                opened.append(rx.open(b"aad", cts[s]))
            except hpke.InvalidTag:
                pass        # another thread opened cts[s] first

    run_threads(body, THREADS)
    assert rx.seq == n
    assert sorted(opened) == msgs


def test_failed_seal_gives_its_number_back(backend):
    ctx = hpke.Context(KEY, BASE)
    ctx.seal(b"", b"first")
    with pytest.raises(TypeError):
        ctx.seal(b"", "not bytes")
    assert ctx.seq == 1
    assert hpke.Context(KEY, BASE, seq=1).open(b"", ctx.seal(b"", b"second")) == b"second"


def test_failed_open_leaves_seq(backend):
    tx, rx = hpke.Context(KEY, BASE), hpke.Context(KEY, BASE)
    ct = tx.seal(b"", bytes(SIZE))
    with pytest.raises(hpke.InvalidTag):
        rx.open(b"other aad", ct)
    assert rx.seq == 0
    assert rx.open(b"", ct) == bytes(SIZE) and rx.seq == 1


def test_rfc9180_context_on_poly1305x_reuses_no_nonce(backend):
    """rfc9180's context reads seq, encrypts, stores seq + 1; on poly1305x
    (which releases the GIL) its seal and open are serialised per context."""
    from rfc9180 import AEADID, HPKE, KDFID, KEMID
    from rfc9180.context import ContextRecipient, ContextSender

    was = hpke.use_with_rfc9180()
    try:
        h = HPKE(KEMID.DHKEM_X25519_HKDF_SHA256, KDFID.HKDF_SHA256, AEADID.CHACHA20_POLY1305)
        assert h.aead.cipher is EngineAEAD

        def context(cls):
            return cls(h.aead, h.kdf, KEY, BASE, bytes(32), b"HPKE suite")

        for _ in range(3):      # before the fix, reuse came in most rounds
            tx = context(ContextSender)
            sealed = seal_from_threads(tx.seal)
            n = THREADS * PER_THREAD
            assert tx.seq == n
            by_seq = sealed_at(sealed, n)
            rx = context(ContextRecipient)
            for s in range(n):
                pt, ct = by_seq[s]
                assert rx.open(b"aad", ct) == pt
    finally:
        hpke.use_with_rfc9180(was)


def test_rfc9180_wrapped_methods_keep_their_signature():
    """The serialising wrapper takes rfc9180's arguments as rfc9180 does
    (keywords too), and leaves contexts on rfc9180's own cipher alone."""
    from rfc9180 import AEADID, HPKE, KDFID, KEMID
    from rfc9180.context import Context as Rfc9180Context
    from rfc9180.context import ContextRecipient, ContextSender

    was = hpke.use_with_rfc9180()
    try:
        assert Rfc9180Context.seal.__wrapped__ is not None
        for aead_id in (AEADID.CHACHA20_POLY1305, AEADID.AES_128_GCM):
            h = HPKE(KEMID.DHKEM_X25519_HKDF_SHA256, KDFID.HKDF_SHA256, aead_id)
            key = KEY[:h.aead.Nk]
            tx = ContextSender(h.aead, h.kdf, key, BASE, bytes(32), b"suite")
            rx = ContextRecipient(h.aead, h.kdf, key, BASE, bytes(32), b"suite")
            ct = tx.seal(aad=b"a", pt=b"message")
            assert rx.open(aad=b"a", ct=ct) == b"message"
            assert (tx.seq, rx.seq) == (1, 1)
            assert ("_poly1305x_lock" in tx.__dict__) == (aead_id == AEADID.CHACHA20_POLY1305)
    finally:
        hpke.use_with_rfc9180(was)
