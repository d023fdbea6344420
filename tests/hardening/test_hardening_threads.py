"""Hardening: threads and the GIL.  8 threads x 1000 mixed operations checked
against cryptography / pycryptodome, the GIL released on long inputs, and the
multi-threaded ChaCha20 (always finishes before it returns or raises).
Shared stateful objects are in test_hardening_shared.py.

Figures quoted in docs/security.md come from here: the stress test runs
STRESS_THREADS x STRESS_OPS checked operations per backend."""
import random
import threading
import time

import pytest

from poly1305x import ChaCha20, ChaCha20_Poly1305, InvalidSignature, InvalidTag
from poly1305x import Poly1305 as PolyFace
from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305
from poly1305x.mac import Poly1305
from tests.support.hardening import assert_clean_exit, random_size, run_python, zero_map
from tests.support.helpers import run_threads
from tests.support.threads import fast_switch  # noqa: F401 - a fixture

from Crypto.Cipher import ChaCha20 as PcdChaCha20
from Crypto.Cipher import ChaCha20_Poly1305 as PcdAEAD
from Crypto.Hash import Poly1305 as PcdPoly1305
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CryptoAEAD
from cryptography.hazmat.primitives.poly1305 import Poly1305 as CryptoPoly1305

STRESS_THREADS = 8
STRESS_OPS = 1000


# ---------------------------------------------------------------------------
# Threads: 8 threads x 1000 mixed operations, every result checked
# ---------------------------------------------------------------------------

STRESS_COUNTS = {}


@pytest.mark.usefixtures("fast_switch")
def test_thread_stress(backend):
    """Shared AEAD key objects (meant to be shared: immutable after __init__)
    and private streaming objects, used from 8 threads at once with sizes on
    both sides of the GIL threshold; each result is checked against
    cryptography / pycryptodome (C code of their own, independent of ours)."""
    key = bytes(range(32))
    shared = ChaCha20Poly1305(key)
    shared_x = XChaCha20Poly1305(key)
    oracle = CryptoAEAD(key)
    # messages every thread may decrypt with the shared object
    rng0 = random.Random(0)
    sealed = []
    for _ in range(16):
        nonce, pt, aad = rng0.randbytes(12), rng0.randbytes(random_size(rng0)), rng0.randbytes(20)
        sealed.append((nonce, pt, aad, oracle.encrypt(nonce, pt, aad)))
    counts = [dict() for _ in range(STRESS_THREADS)]

    def work(i):
        rng = random.Random(1000 + i)
        done = counts[i]
        for _ in range(STRESS_OPS):
            op = rng.randrange(9)
            done[op] = done.get(op, 0) + 1
            if op == 0:      # shared AEAD, encrypt
                nonce, pt, aad = rng.randbytes(12), rng.randbytes(random_size(rng)), rng.randbytes(13)
                assert shared.encrypt(nonce, pt, aad) == oracle.encrypt(nonce, pt, aad)
            elif op == 1:    # shared AEAD, decrypt (good and tampered)
                nonce, pt, aad, ct = rng.choice(sealed)
                if rng.random() < 0.5:
                    assert shared.decrypt(nonce, ct, aad) == pt
                else:
                    bad = bytearray(ct)
                    bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
                    with pytest.raises(InvalidTag):
                        shared.decrypt(nonce, bytes(bad), aad)
            elif op == 2:    # shared XChaCha20-Poly1305 vs pycryptodome
                nonce, pt = rng.randbytes(24), rng.randbytes(random_size(rng))
                c = PcdAEAD.new(key=key, nonce=nonce)
                c.update(b"x")
                ct, tag = c.encrypt_and_digest(pt)
                assert shared_x.encrypt(nonce, pt, b"x") == ct + tag
                assert shared_x.decrypt(nonce, ct + tag, b"x") == pt
            elif op == 3:    # private streaming Poly1305 (cryptography face), random chunks
                k, msg = rng.randbytes(32), rng.randbytes(random_size(rng))
                p = Poly1305(k)
                pos = 0
                while pos < len(msg):
                    step = rng.randrange(1, 5000)
                    p.update(msg[pos:pos + step])
                    pos += step
                assert p.finalize() == CryptoPoly1305.generate_tag(k, msg)
            elif op == 4:    # private pycryptodome-face Poly1305 (r, s from ChaCha20)
                k, nonce, msg = rng.randbytes(32), rng.randbytes(12), rng.randbytes(random_size(rng))
                ours = PolyFace.new(key=k, cipher=ChaCha20, nonce=nonce)
                ours.update(msg[:7]).update(msg[7:])
                theirs = PcdPoly1305.new(key=k, cipher=PcdChaCha20, nonce=nonce, data=msg)
                assert ours.digest() == theirs.digest()
            elif op == 5:    # private ChaCha20 stream, random chunks and a seek
                k, nonce, msg = rng.randbytes(32), rng.randbytes(rng.choice((8, 12, 24))), \
                    rng.randbytes(random_size(rng))
                ours, theirs = ChaCha20.new(key=k, nonce=nonce), PcdChaCha20.new(key=k, nonce=nonce)
                pos = rng.randrange(0, 1 << 20)
                ours.seek(pos)
                theirs.seek(pos)
                cut = rng.randrange(len(msg) + 1)
                assert ours.encrypt(msg[:cut]) + ours.encrypt(msg[cut:]) == theirs.encrypt(msg)
            elif op == 6:    # private ChaCha20-Poly1305 cipher object (pycryptodome face)
                k, nonce, msg = rng.randbytes(32), rng.randbytes(12), rng.randbytes(random_size(rng))
                ours, theirs = ChaCha20_Poly1305.new(key=k, nonce=nonce), PcdAEAD.new(key=k, nonce=nonce)
                ours.update(b"aad")
                theirs.update(b"aad")
                assert ours.encrypt_and_digest(msg) == theirs.encrypt_and_digest(msg)
            elif op == 7:    # one-shot tag and verify
                k, msg = rng.randbytes(32), rng.randbytes(random_size(rng))
                tag = Poly1305.generate_tag(k, msg)
                assert tag == CryptoPoly1305.generate_tag(k, msg)
                Poly1305.verify_tag(k, msg, tag)
                with pytest.raises(InvalidSignature):
                    Poly1305.verify_tag(k, msg, bytes(16) if tag != bytes(16) else b"\1" * 16)
            else:            # in-place encrypt_into / decrypt_into on the shared object
                nonce, pt = rng.randbytes(12), rng.randbytes(random_size(rng))
                buf = bytearray(len(pt) + 16)
                shared.encrypt_into(nonce, pt, None, buf)
                assert buf == oracle.encrypt(nonce, pt, None)
                out = bytearray(len(pt))
                shared.decrypt_into(nonce, bytes(buf), None, out)
                assert out == pt

    run_threads(work, STRESS_THREADS)
    total = sum(sum(c.values()) for c in counts)
    assert total == STRESS_THREADS * STRESS_OPS
    STRESS_COUNTS[backend] = total


def test_gil_is_released_for_long_inputs():
    """While a long MAC runs in one thread, another thread keeps running
    Python code: the GIL is released (above 4 KiB) for the whole call."""
    m = zero_map(1 << 30)
    try:
        window = {}
        ticks = []
        done = threading.Event()

        def worker():
            window["t0"] = time.perf_counter()
            Poly1305.generate_tag(bytes(range(32)), m.view)
            window["t1"] = time.perf_counter()
            done.set()

        t = threading.Thread(target=worker)
        t.start()
        while not done.is_set():
            ticks.append(time.perf_counter())
        t.join()
    finally:
        m.close()
    t0, t1 = window["t0"], window["t1"]
    inside = [x for x in ticks if t0 <= x <= t1]
    assert t1 - t0 > 0.02, "the call was too short to tell"
    assert len(inside) > 1000, (len(inside), t1 - t0)
    # the longest stretch the main thread was held off is a small part of the call
    gaps = [b - a for a, b in zip(inside, inside[1:])]
    assert max(gaps) < 0.5 * (t1 - t0), (max(gaps), t1 - t0)


# ---------------------------------------------------------------------------
# ChaCha20 over several threads (item 1): the call never returns or raises
# while a worker still writes; the position always moves past the whole input.
# Crashed the interpreter before: run in a subprocess.
# ---------------------------------------------------------------------------

THREADED_SIGINT = '''
import os, signal, threading, time
from poly1305x import ChaCha20
from Crypto.Cipher import ChaCha20 as Pcd

key, nonce = bytes(range(32)), bytes(12)
N = 64 << 20
data = bytes(N)
expected = Pcd.new(key=key, nonce=nonce).encrypt(data)
p = Pcd.new(key=key, nonce=nonce)
p.seek(N)
after = p.encrypt(bytes(64))
seen = set()
for delay in (0.0, 0.001, 0.002, 0.003, 0.005, 0.008, 0.012, 0.02, 0.03, 0.05) * 2:
    c = ChaCha20.new(key=key, nonce=nonce, threads=8)
    out = bytearray(N)
    timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()
        c.encrypt(data, output=out)
        timer.join()
        time.sleep(0.01)
        seen.add("returned")
    except KeyboardInterrupt:
        seen.add("interrupted")
    timer.join()
    snapshot = bytes(out)
    time.sleep(0.02)
    assert bytes(out) == snapshot, "the output changed after the call"
    nxt = c.encrypt(bytes(64))
    if snapshot == expected:
        assert nxt == after, "key stream reused after the call"
    else:
        # the interrupt came before the call began: nothing was written or used
        assert snapshot == bytes(N) and nxt == expected[:64], delay
print(sorted(seen))
print("OK")
'''


def test_threaded_chacha20_survives_ctrl_c():
    proc = run_python(THREADED_SIGINT, timeout=300)
    assert_clean_exit(proc)


THREADED_START_FAILS = '''
import threading
from poly1305x import ChaCha20
from Crypto.Cipher import ChaCha20 as Pcd

key, nonce = bytes(range(32)), bytes(8)
N = (16 << 20) + 100
data = bytes(range(256)) * (N // 256) + bytes(N % 256)
expected = Pcd.new(key=key, nonce=nonce).encrypt(data + bytes(64))
real_start = threading.Thread.start

for fail_at, exc in ((1, RuntimeError("can't start new thread")), (3, RuntimeError("x")),
                     (2, KeyboardInterrupt())):
    count = [0]

    def start(self):
        count[0] += 1
        if count[0] >= fail_at:
            raise exc
        real_start(self)

    threading.Thread.start = start
    c = ChaCha20.new(key=key, nonce=nonce, threads=8)
    c.encrypt(b"\\0" * 5)                  # a partial block first
    try:
        out = c.encrypt(data[5:])
        assert isinstance(exc, Exception)
    except KeyboardInterrupt:
        assert not isinstance(exc, Exception)
        out = None
    finally:
        threading.Thread.start = real_start
    if out is not None:
        assert out == expected[5:N], fail_at
    assert c.encrypt(bytes(64)) == expected[N:], fail_at
print("OK")
'''


def test_threaded_chacha20_when_threads_fail_to_start():
    """A thread that cannot start: its share is done by the calling thread
    (the call succeeds); Ctrl-C while starting them: the call finishes the
    output, then raises.  Either way the position is past the input."""
    assert_clean_exit(run_python(THREADED_START_FAILS, timeout=300))


def test_threaded_chacha20_matches_pycryptodome(backend):
    key = bytes(range(32))
    for nonce in (bytes(8), bytes(12), bytes(24)):
        for n, skip in ((3 << 20, 0), ((2 << 20) + 77, 13), ((5 << 20) + 1, 64)):
            data = random.Random(n).randbytes(n)
            ours = ChaCha20.new(key=key, nonce=nonce, threads=4)
            theirs = PcdChaCha20.new(key=key, nonce=nonce)
            assert ours.encrypt(bytes(skip)) == theirs.encrypt(bytes(skip))
            assert ours.encrypt(data) == theirs.encrypt(data)
            assert ours.encrypt(b"x" * 100) == theirs.encrypt(b"x" * 100)
