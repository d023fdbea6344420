"""Hardening: shared stateful objects (a streaming MAC, a ChaCha20 stream, a
pycryptodome-style AEAD cipher).  They are not meant to be shared, but doing
so must never corrupt their state: a call that finds the object busy in
another thread raises RuntimeError("... is being used by another thread"),
every call that did run is applied exactly once, as if the calls had taken
turns, and a refused call changes nothing."""
import os
import threading

import pytest

import poly1305x
from poly1305x import ChaCha20, ChaCha20_Poly1305
from poly1305x import Poly1305 as PolyFace
from poly1305x.mac import Poly1305
from tests.support.helpers import run_threads
from tests.support.threads import BUSY, fast_switch  # noqa: F401 - a fixture

from Crypto.Cipher import ChaCha20 as PcdChaCha20
from Crypto.Cipher import ChaCha20_Poly1305 as PcdAEAD

CHUNK = 64 * 1024     # above the GIL threshold: the state is updated without the GIL


def _hammer(obj_call, nthreads=4, calls=40):
    ok, busy, errors = [], [], []
    lock = threading.Lock()

    def work(i):
        for _ in range(calls):
            try:
                out = obj_call()
            except RuntimeError as exc:
                if BUSY not in str(exc):
                    errors.append(exc)
                with lock:
                    busy.append(1)
            else:
                with lock:
                    ok.append(out)

    run_threads(work, nthreads)
    assert errors == []
    return ok, len(busy)


@pytest.mark.usefixtures("fast_switch")
def test_shared_poly1305_never_corrupts():
    key, chunk = bytes(range(32)), os.urandom(CHUNK)
    for make, absorb, tag in (
        (lambda: Poly1305(key), lambda o: o.update(chunk), lambda o: o.finalize()),
        (lambda: PolyFace.new(key=key, cipher=ChaCha20, nonce=bytes(12)),
         lambda o: o.update(chunk), lambda o: o.digest()),
    ):
        for _ in range(3):
            obj = make()
            ok, _busy = _hammer(lambda: absorb(obj))
            ref = make()
            for _ in ok:
                absorb(ref)
            assert tag(obj) == tag(ref), "the MAC state was corrupted by concurrent update()"


@pytest.mark.usefixtures("fast_switch")
def test_shared_chacha20_never_reuses_key_stream():
    """Two threads encrypting with one ChaCha20 object must never get the same
    key stream (that would be key-stream reuse)."""
    key, zero = bytes(range(32)), bytes(CHUNK)
    for nonce in (bytes(8), bytes(12), bytes(24)):
        for _ in range(3):
            c = ChaCha20.new(key=key, nonce=nonce)
            outs, _busy = _hammer(lambda: c.encrypt(zero))
            stream = ChaCha20.new(key=key, nonce=nonce).encrypt(bytes(CHUNK * len(outs)))
            expected = sorted(stream[i * CHUNK:(i + 1) * CHUNK] for i in range(len(outs)))
            assert sorted(outs) == expected, "key stream handed out twice or skipped"


@pytest.mark.usefixtures("fast_switch")
def test_shared_chacha20_poly1305_cipher_never_corrupts():
    key, nonce, chunk = bytes(range(32)), bytes(12), os.urandom(CHUNK)
    for _ in range(3):
        c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        outs, _busy = _hammer(lambda: c.encrypt(chunk))
        tag = c.digest()
        ref = PcdAEAD.new(key=key, nonce=nonce)
        expected = [ref.encrypt(chunk) for _ in outs]
        assert sorted(outs) == sorted(expected)
        # the tag covers the ciphertext in the order it was produced, which is
        # the key-stream order: the reference's order
        assert tag == ref.digest()


@pytest.mark.usefixtures("fast_switch")
def test_shared_stateful_mixed_methods():
    """seek/digest/verify racing with update/encrypt: each call either runs
    whole or raises the busy error; nothing crashes."""
    key = bytes(range(32))
    chunk = bytes(CHUNK)
    c = ChaCha20.new(key=key, nonce=bytes(12))
    p = Poly1305(key)
    a = ChaCha20_Poly1305.new(key=key, nonce=bytes(12))
    stop = threading.Event()
    errors = []

    def bg(i):
        while not stop.is_set():
            for call in (lambda: c.encrypt(chunk), lambda: p.update(chunk),
                         lambda: a.encrypt(chunk)):
                try:
                    call()
                except RuntimeError as exc:
                    if BUSY not in str(exc):
                        errors.append(exc)
                except Exception as exc:   # noqa: BLE001 - e.g. AlreadyFinalized, TypeError
                    if not isinstance(exc, (TypeError, poly1305x.AlreadyFinalized)):
                        errors.append(exc)

    threads = [threading.Thread(target=bg, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    try:
        for i in range(200):
            try:
                c.seek(i * 64)
            except RuntimeError as exc:
                assert BUSY in str(exc)
        for finish in (a.digest, p.finalize):
            for _ in range(50):
                try:
                    finish()
                    break
                except RuntimeError as exc:
                    assert BUSY in str(exc)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert errors == []



# ---------------------------------------------------------------------------
# A refused call changes nothing: the busy check comes
# before the state machine moves.
# ---------------------------------------------------------------------------

def _refused_while_busy(make, long_call, refused_call, attempts=20):
    """Run long_call(obj) in a thread and refused_call(obj) here while it is
    inside; returns the object once a refusal with the busy error was seen
    and the long call went through (else retries with a new object)."""
    for _ in range(attempts):
        obj = make()
        entered, result = threading.Event(), {}

        def worker():
            entered.set()
            try:
                long_call(obj)
                result["ok"] = True
            except Exception as exc:   # noqa: BLE001 - reported below
                result["exc"] = exc

        t = threading.Thread(target=worker)
        t.start()
        entered.wait()
        refused = False
        while t.is_alive() and not refused:
            try:
                refused_call(obj)
            except RuntimeError as exc:
                assert BUSY in str(exc)
                refused = True
            except TypeError:
                break          # ran before the worker began: this attempt tells nothing
            else:
                break
        t.join()
        if refused:
            assert result.get("ok"), result.get("exc")
            return obj
    pytest.fail("never caught the object busy")


def test_refused_call_leaves_the_state_machine_alone():
    key, nonce = bytes(range(32)), bytes(12)
    big = bytes(16 << 20)
    a = _refused_while_busy(lambda: ChaCha20_Poly1305.new(key=key, nonce=nonce),
                            lambda o: o.encrypt(big), lambda o: o.digest())
    a.encrypt(b"tail")                   # before the fix: "encrypt() method cannot be called"
    ref = PcdAEAD.new(key=key, nonce=nonce)
    ref.encrypt(big)
    ref.encrypt(b"tail")
    assert a.digest() == ref.digest()
    c = _refused_while_busy(lambda: ChaCha20.new(key=key, nonce=nonce),
                            lambda o: o.encrypt(big), lambda o: o.decrypt(b"x"))
    assert c.encrypt(b"tail") == PcdChaCha20.new(key=key, nonce=nonce).encrypt(big + b"tail")[-4:]
    v = _refused_while_busy(lambda: ChaCha20_Poly1305.new(key=key, nonce=nonce),
                            lambda o: o.decrypt(big), lambda o: o.encrypt(b"x"))
    v.decrypt(b"tail")
    with pytest.raises(ValueError, match="MAC check failed"):
        v.verify(bytes(16))
