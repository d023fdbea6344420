"""Several threads on one stateful poly1305x object (ChaCha20, streaming
Poly1305, ChaCha20_Poly1305): 8 threads hammer one object; every call either
completes correctly or raises the documented RuntimeError, and the object's
state afterwards is what the completed calls, in some order, make it.

Written for free-threaded CPython run with PYTHON_GIL=0, as
test_freethreading.py (which says more); on a GIL build the threads switch
every microsecond.
"""
import random

import pytest

import poly1305x
from poly1305x import ChaCha20, ChaCha20_Poly1305, mac
from tests.support.helpers import run_threads
from tests.support.threads import BUSY, NTHREADS, fastest_switch  # noqa: F401 - a fixture

pytestmark = pytest.mark.usefixtures("fastest_switch")


STATEFUL_CALLS = 300


def _hammer(call, seed):
    """STATEFUL_CALLS calls of call(length) from one thread: the (length,
    output) of each completed call, and how many raised the RuntimeError."""
    rng = random.Random(seed)
    done, refused = [], 0
    for _ in range(STATEFUL_CALLS):
        n = rng.randrange(4096, 12000) if rng.random() < 0.3 else rng.randrange(16, 300)
        try:
            done.append((n, call(n)))
        except RuntimeError as exc:
            assert BUSY in str(exc), exc
            refused += 1
    return done, refused


def _tiles(outputs, stream):
    """The outputs, each a piece of stream, cover stream exactly once, in some
    order: the calls each took a whole, fresh piece of the key stream."""
    by_head = {}
    for out in outputs:
        assert out[:16] not in by_head, "two calls got the same key stream"
        by_head[out[:16]] = out
    pos = 0
    while pos < len(stream):
        out = by_head.pop(stream[pos:pos + 16], None)
        assert out is not None, f"no call got the key stream at byte {pos}"
        assert out == stream[pos:pos + len(out)], f"the call at byte {pos} got a mangled key stream"
        pos += len(out)
    assert not by_head and pos == len(stream)


def _report(results):
    done = [d for ds, _ in results for d in ds]
    refused = sum(r for _, r in results)
    print(f"{len(done)} calls completed, {refused} refused with RuntimeError")
    return done


def test_hammer_chacha20_cipher():
    key, nonce = bytes(range(32)), bytes(range(12))
    shared = ChaCha20.new(key=key, nonce=nonce)
    done = _report(run_threads(
        lambda i: _hammer(lambda n: shared.encrypt(bytes(n)), 4000 + i), NTHREADS))
    total = sum(n for n, _ in done)
    stream = ChaCha20.new(key=key, nonce=nonce).encrypt(bytes(total + 64))
    _tiles([out for _, out in done], stream[:total])
    # The state after: the next call continues right after the last byte used.
    assert shared.encrypt(bytes(64)) == stream[total:]


def test_hammer_streaming_mac():
    key = bytes(range(64, 96))
    shared = mac.Poly1305(key)
    # One byte value everywhere: whatever order the updates ran in, the MAC'd
    # message is that byte times the total length.
    done = _report(run_threads(
        lambda i: _hammer(lambda n: shared.update(b"\x5a" * n), 5000 + i), NTHREADS))
    total = sum(n for n, _ in done)
    assert shared.finalize() == mac.Poly1305.generate_tag(key, b"\x5a" * total)


def test_hammer_pycryptodome_mac():
    key = bytes(range(32))
    shared = poly1305x.Poly1305.new(key=key, cipher=poly1305x.ChaCha20, nonce=bytes(12))
    done = _report(run_threads(
        lambda i: _hammer(lambda n: shared.update(b"\xa5" * n), 6000 + i), NTHREADS))
    total = sum(n for n, _ in done)
    ref = poly1305x.Poly1305.new(key=key, cipher=poly1305x.ChaCha20, nonce=bytes(12), data=b"\xa5" * total)
    assert shared.digest() == ref.digest()


def test_hammer_chacha20_poly1305_cipher():
    key, nonce = bytes(range(1, 33)), bytes(range(12))
    shared = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    shared.update(b"header")
    done = _report(run_threads(
        lambda i: _hammer(lambda n: shared.encrypt(bytes(n)), 7000 + i), NTHREADS))
    total = sum(n for n, _ in done)
    ref = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    ref.update(b"header")
    stream = ref.encrypt(bytes(total))
    _tiles([out for _, out in done], stream)
    # The tag covers the ciphertext in the order the calls ran, which is the
    # key stream's order: the single-thread tag.
    assert shared.digest() == ref.digest()


def test_concurrent_digest_and_finalize():
    """The finishing calls from 8 threads at once: pycryptodome-shaped
    digest() may be repeated and always gives the one tag; cryptography-
    shaped finalize() gives the tag once, then AlreadyFinalized.  A thread may
    also get the documented RuntimeError; never a different tag."""
    key, nonce = bytes(range(5, 37)), bytes(12)
    for round_ in range(50):
        msg = bytes([round_]) * (round_ * 61 + 5)
        ref = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        ref_ct, ref_tag = ref.encrypt_and_digest(msg)
        shared = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        assert shared.encrypt(msg) == ref_ct

        def digest(i):
            try:
                return shared.digest()
            except RuntimeError as exc:
                assert BUSY in str(exc), exc
                return None
        tags = run_threads(digest, NTHREADS)
        assert set(tags) - {None} == {ref_tag}, "a thread got a wrong tag"
        assert shared.digest() == ref_tag

        m = mac.Poly1305(key)
        m.update(msg)

        def finalize(i):
            try:
                return m.finalize()
            except poly1305x.AlreadyFinalized:
                return "finalized"
            except RuntimeError as exc:
                assert BUSY in str(exc), exc
                return None
        got = run_threads(finalize, NTHREADS)
        assert got.count(mac.Poly1305.generate_tag(key, msg)) == 1, got
        assert set(got) <= {mac.Poly1305.generate_tag(key, msg), "finalized", None}, got
