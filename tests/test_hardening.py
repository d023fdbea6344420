"""Hardening (issue 10): threads and the GIL, hostile and huge input, buffers
held while in use, overlapping / read-only / wrong-size outputs, bytes
subclasses, and key hygiene.

Figures quoted in docs/security.md come from here: the stress test runs
STRESS_THREADS x STRESS_OPS checked operations per backend."""
import array
import ctypes
import gc
import mmap
import os
import random
import struct
import sys
import threading
import time

import pytest

import poly1305x
from poly1305x import ChaCha20, ChaCha20_Poly1305, InvalidSignature, InvalidTag, MessageTooLongError
from poly1305x import Poly1305 as PolyFace
from poly1305x import _engine
from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305
from poly1305x.mac import Poly1305
from reference import P1305, chacha20_block, poly1305 as ref_poly1305

from Crypto.Cipher import ChaCha20 as PcdChaCha20
from Crypto.Cipher import ChaCha20_Poly1305 as PcdAEAD
from Crypto.Hash import Poly1305 as PcdPoly1305
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CryptoAEAD
from cryptography.hazmat.primitives.poly1305 import Poly1305 as CryptoPoly1305

SANITIZED = bool(os.environ.get("POLY1305X_SANITIZED"))
STRESS_THREADS = 8
STRESS_OPS = 1000
AEAD_MAX = (2**32 - 1) * 64          # RFC 8439: 2^38 - 64 bytes of plaintext
BUSY = "being used by another thread"


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _zero_map(n):
    """A read-only memoryview of n zero bytes that costs no memory: an
    anonymous MAP_NORESERVE mapping (reads hit the shared zero page).  Lets
    the tests hand the library buffers of 2^32 and 2^38 bytes."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    MAP_NORESERVE = 0x4000
    p = libc.mmap(None, n, mmap.PROT_READ,
                  mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
    if p in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), f"cannot map {n} bytes of address space")
    arr = (ctypes.c_char * n).from_address(p)
    view = memoryview(arr).cast("B")
    # ctypes arrays made from_address export writable buffers; the mapping is
    # PROT_READ, so hand out a read-only view (a write would fault).
    ro = view.toreadonly()
    ro_release = [view, arr]

    class Mapping:
        def __init__(self):
            self.view = ro

        def close(self):
            self.view.release()
            ro_release[0].release()
            libc.munmap(p, n)

    return Mapping()


def poly1305_zeros(key, n):
    """Poly1305 of n zero bytes, for any n (2^38 included) in microseconds:
    k full zero blocks each add 2^128, so h = 2^128 (r + r^2 + ... + r^k)."""
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:], "little")
    k, tail = divmod(n, 16)
    h = 0
    if k:
        assert r > 1
        h = (1 << 128) * r * (pow(r, k, P1305) - 1) * pow(r - 1, -1, P1305) % P1305
    if tail:
        h = (h + (1 << (8 * tail))) * r % P1305
    return ((h + s) % (1 << 128)).to_bytes(16, "little")


def poly1305_continue(key, h_msg_prefix_zero_blocks, rest):
    """Poly1305 of (k zero blocks) || rest, rest absorbed as in the RFC."""
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:], "little")
    k = h_msg_prefix_zero_blocks
    h = (1 << 128) * r * (pow(r, k, P1305) - 1) * pow(r - 1, -1, P1305) % P1305 if k else 0
    for i in range(0, len(rest), 16):
        block = rest[i:i + 16] + b"\x01"
        h = (h + int.from_bytes(block, "little")) * r % P1305
    return ((h + s) % (1 << 128)).to_bytes(16, "little")


def _run_threads(target, n, *args):
    errors = []

    def wrap(i):
        try:
            target(i, *args)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append((i, exc))

    threads = [threading.Thread(target=wrap, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        i, exc = errors[0]
        raise AssertionError(f"{len(errors)} thread(s) failed; thread {i}: {exc!r}") from exc


@pytest.fixture
def fast_switch():
    """Switch threads every 50 microseconds, to shake out races."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(5e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _size(rng):
    """Mostly short messages, a fifth of them above the 4 KiB GIL threshold."""
    x = rng.random()
    if x < 0.4:
        return rng.randrange(0, 64)
    if x < 0.8:
        return rng.randrange(64, 4096)
    return rng.randrange(4096, 40000)


# ---------------------------------------------------------------------------
# Threads: 8 threads x 1000 mixed operations, every result checked
# ---------------------------------------------------------------------------

STRESS_COUNTS = {}


def test_thread_stress(backend, fast_switch):
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
        nonce, pt, aad = rng0.randbytes(12), rng0.randbytes(_size(rng0)), rng0.randbytes(20)
        sealed.append((nonce, pt, aad, oracle.encrypt(nonce, pt, aad)))
    counts = [dict() for _ in range(STRESS_THREADS)]

    def work(i):
        rng = random.Random(1000 + i)
        done = counts[i]
        for _ in range(STRESS_OPS):
            op = rng.randrange(9)
            done[op] = done.get(op, 0) + 1
            if op == 0:      # shared AEAD, encrypt
                nonce, pt, aad = rng.randbytes(12), rng.randbytes(_size(rng)), rng.randbytes(13)
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
                nonce, pt = rng.randbytes(24), rng.randbytes(_size(rng))
                c = PcdAEAD.new(key=key, nonce=nonce)
                c.update(b"x")
                ct, tag = c.encrypt_and_digest(pt)
                assert shared_x.encrypt(nonce, pt, b"x") == ct + tag
                assert shared_x.decrypt(nonce, ct + tag, b"x") == pt
            elif op == 3:    # private streaming Poly1305 (cryptography face), random chunks
                k, msg = rng.randbytes(32), rng.randbytes(_size(rng))
                p = Poly1305(k)
                pos = 0
                while pos < len(msg):
                    step = rng.randrange(1, 5000)
                    p.update(msg[pos:pos + step])
                    pos += step
                assert p.finalize() == CryptoPoly1305.generate_tag(k, msg)
            elif op == 4:    # private pycryptodome-face Poly1305 (r, s from ChaCha20)
                k, nonce, msg = rng.randbytes(32), rng.randbytes(12), rng.randbytes(_size(rng))
                ours = PolyFace.new(key=k, cipher=ChaCha20, nonce=nonce)
                ours.update(msg[:7]).update(msg[7:])
                theirs = PcdPoly1305.new(key=k, cipher=PcdChaCha20, nonce=nonce, data=msg)
                assert ours.digest() == theirs.digest()
            elif op == 5:    # private ChaCha20 stream, random chunks and a seek
                k, nonce, msg = rng.randbytes(32), rng.randbytes(rng.choice((8, 12, 24))), \
                    rng.randbytes(_size(rng))
                ours, theirs = ChaCha20.new(key=k, nonce=nonce), PcdChaCha20.new(key=k, nonce=nonce)
                pos = rng.randrange(0, 1 << 20)
                ours.seek(pos)
                theirs.seek(pos)
                cut = rng.randrange(len(msg) + 1)
                assert ours.encrypt(msg[:cut]) + ours.encrypt(msg[cut:]) == theirs.encrypt(msg)
            elif op == 6:    # private ChaCha20-Poly1305 cipher object (pycryptodome face)
                k, nonce, msg = rng.randbytes(32), rng.randbytes(12), rng.randbytes(_size(rng))
                ours, theirs = ChaCha20_Poly1305.new(key=k, nonce=nonce), PcdAEAD.new(key=k, nonce=nonce)
                ours.update(b"aad")
                theirs.update(b"aad")
                assert ours.encrypt_and_digest(msg) == theirs.encrypt_and_digest(msg)
            elif op == 7:    # one-shot tag and verify
                k, msg = rng.randbytes(32), rng.randbytes(_size(rng))
                tag = Poly1305.generate_tag(k, msg)
                assert tag == CryptoPoly1305.generate_tag(k, msg)
                Poly1305.verify_tag(k, msg, tag)
                with pytest.raises(InvalidSignature):
                    Poly1305.verify_tag(k, msg, bytes(16) if tag != bytes(16) else b"\1" * 16)
            else:            # in-place encrypt_into / decrypt_into on the shared object
                nonce, pt = rng.randbytes(12), rng.randbytes(_size(rng))
                buf = bytearray(len(pt) + 16)
                shared.encrypt_into(nonce, pt, None, buf)
                assert buf == oracle.encrypt(nonce, pt, None)
                out = bytearray(len(pt))
                shared.decrypt_into(nonce, bytes(buf), None, out)
                assert out == pt

    _run_threads(work, STRESS_THREADS)
    total = sum(sum(c.values()) for c in counts)
    assert total == STRESS_THREADS * STRESS_OPS
    STRESS_COUNTS[backend] = total


def test_gil_is_released_for_long_inputs():
    """While a long MAC runs in one thread, another thread keeps running
    Python code: the GIL is released (above 4 KiB) for the whole call."""
    m = _zero_map(1 << 30)
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


# Shared *stateful* objects (a streaming MAC, a ChaCha20 stream, a
# pycryptodome-style AEAD cipher) are not meant to be shared, but doing so must
# never corrupt their state: a call that finds the object busy in another
# thread raises RuntimeError("... is being used by another thread"), and every
# call that did run is applied exactly once, as if the calls had taken turns.

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

    _run_threads(work, nthreads)
    assert errors == []
    return ok, len(busy)


def test_shared_poly1305_never_corrupts(fast_switch):
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


def test_shared_chacha20_never_reuses_key_stream(fast_switch):
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


def test_shared_chacha20_poly1305_cipher_never_corrupts(fast_switch):
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


def test_shared_stateful_mixed_methods(fast_switch):
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
        for _ in range(50):
            try:
                a.digest()
                break
            except RuntimeError as exc:
                assert BUSY in str(exc)
        for _ in range(50):
            try:
                p.finalize()
                break
            except RuntimeError as exc:
                assert BUSY in str(exc)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert errors == []


# ---------------------------------------------------------------------------
# Buffers held while in use
# ---------------------------------------------------------------------------

def _while_running(op, try_break):
    """Run op() in a thread; while it runs, try_break() must raise BufferError.
    Returns (number of BufferErrors seen, op's result).  The loop stops at the
    first try_break() that succeeds: when BufferErrors came before it, the
    library held the buffer from before that moment, so the success happened
    after op's call returned."""
    for _attempt in range(5):
        started, done = threading.Event(), threading.Event()
        result = {}

        def worker():
            started.set()
            result["value"] = op()
            done.set()

        t = threading.Thread(target=worker)
        t.start()
        started.wait()
        time.sleep(0.002)          # let the worker reach the C call
        refused = 0
        while not done.is_set():
            try:
                try_break()
            except BufferError:
                refused += 1
            else:
                break
        t.join()
        if refused:
            return refused, result["value"]
    pytest.fail("the buffer could be changed while the library held it")


BIG = 48 << 20


def test_bytearray_cannot_be_resized_while_held():
    data = bytearray(b"\xa5" * BIG)
    key = bytes(range(32))
    expected = Poly1305.generate_tag(key, bytes(data))

    def op():
        return Poly1305.generate_tag(key, data)

    def resize():
        data.append(0)

    refused, tag = _while_running(op, resize)
    assert refused > 0 and tag == expected


def test_bytearray_in_place_output_cannot_be_resized_while_held():
    key, nonce = bytes(range(32)), bytes(12)
    data = bytearray(BIG)
    expected = PcdChaCha20.new(key=key, nonce=nonce).encrypt(bytes(BIG))

    def op():
        ChaCha20.new(key=key, nonce=nonce).encrypt(data, output=data)

    def resize():
        del data[-1:]

    refused, _ = _while_running(op, resize)
    # at most the one byte deleted after the call returned is missing
    assert refused > 0 and len(data) >= BIG - 1 and data == expected[:len(data)]


def test_memoryview_cannot_be_released_while_held():
    key = bytes(range(32))
    base = bytearray(b"\x5a" * BIG)
    expected = Poly1305.generate_tag(key, bytes(base))
    views = {}

    def op():
        views["mv"] = mv = memoryview(base)
        return mv, Poly1305.generate_tag(key, mv)

    def release():
        mv = views.get("mv")
        if mv is not None:
            mv.release()

    # the view is created inside op(): a release before the call would make it
    # raise ValueError in the worker, which _while_running would report
    refused, (mv, tag) = _while_running(op, release)
    assert refused > 0 and tag == expected
    mv.release()


def test_mmap_cannot_be_closed_while_held():
    key = bytes(range(32))
    m = mmap.mmap(-1, BIG)
    m.write(b"\x33" * BIG)
    expected = Poly1305.generate_tag(key, b"\x33" * BIG)

    def op():
        return Poly1305.generate_tag(key, m)

    refused, tag = _while_running(op, m.close)
    assert refused > 0 and tag == expected
    m.close()


# ---------------------------------------------------------------------------
# Huge lengths: 2^32 and 2^38 bytes (address space only, no memory)
# ---------------------------------------------------------------------------

@pytest.fixture
def default_backend():
    before = poly1305x.backend()
    poly1305x.set_backend(poly1305x.backends()[0])
    yield poly1305x.backend()
    poly1305x.set_backend(before)


def test_poly1305_over_4_gib(default_backend):
    """No 32-bit length truncation anywhere on the MAC path."""
    n = (1 << 32) + 5
    m = _zero_map(n)
    key = bytes(range(7, 39))
    try:
        expected = poly1305_zeros(key, n)
        assert Poly1305.generate_tag(key, m.view) == expected
        p = Poly1305(key)                       # one chunk of 2^32 + 3, then 2 bytes
        p.update(m.view[:n - 2])
        p.update(m.view[n - 2:])
        assert p.finalize() == expected
    finally:
        m.close()


def test_aead_associated_data_over_4_gib(default_backend):
    """A 64-bit associated-data length in the final length block."""
    n = (1 << 32) + 3
    m = _zero_map(n)
    key, nonce, pt = bytes(range(32)), bytes(range(12)), b"hello, world"
    try:
        sealed = ChaCha20Poly1305(key).encrypt(nonce, pt, m.view)
        otk = chacha20_block(key, 0, nonce)[:32]
        ct = sealed[:-16]
        assert ct == bytes(a ^ b for a, b in zip(pt, chacha20_block(key, 1, nonce)))
        tail = ct + bytes(-len(ct) % 16) + struct.pack("<QQ", n, len(ct))
        assert sealed[-16:] == poly1305_continue(otk, (n + 15) // 16, tail)
        assert ChaCha20Poly1305(key).decrypt(nonce, sealed, m.view) == pt
        c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        c.update(m.view)
        assert c.encrypt_and_digest(pt) == (ct, sealed[-16:])
    finally:
        m.close()


def test_aead_limit_2_pow_38():
    """Above 2^38 - 64 bytes of plaintext: encrypt raises OverflowError and
    decrypt InvalidTag, before any output is allocated (no MemoryError)."""
    m = _zero_map((1 << 38) + 64)
    aead = ChaCha20Poly1305(bytes(32))
    try:
        with pytest.raises(OverflowError, match="2\\*\\*38"):
            aead.encrypt(bytes(12), m.view[:AEAD_MAX + 1], None)
        with pytest.raises(InvalidTag):
            aead.decrypt(bytes(12), m.view[:AEAD_MAX + 1 + 16], None)
        with pytest.raises(OverflowError):          # the length is checked first
            aead.encrypt_into(bytes(12), m.view[:AEAD_MAX + 1], None, bytearray(16))
    finally:
        m.close()


@pytest.mark.parametrize("nonce_len", [12, 24])
def test_stream_longer_than_key_stream_raises(nonce_len):
    """Asking a 32-bit-counter stream for more than 2^38 bytes is the
    documented MessageTooLongError, not a MemoryError or a wrapped counter."""
    m = _zero_map((1 << 38) + 1)
    try:
        c = ChaCha20.new(key=bytes(32), nonce=bytes(nonce_len))
        with pytest.raises(MessageTooLongError, match="exhausted"):
            c.encrypt(m.view)
        c = ChaCha20_Poly1305.new(key=bytes(32), nonce=bytes(nonce_len))
        with pytest.raises(MessageTooLongError, match="exhausted"):
            c.encrypt(m.view)
    finally:
        m.close()


@pytest.mark.parametrize("position", [(1 << 32) - 7, (1 << 32) + 60, (1 << 38) - 64 - 5,
                                      (1 << 36) + 1])
def test_seek_near_2_pow_32_and_2_pow_38(backend, position):
    """Positions near 2^32 bytes and the 2^38-byte end of the 32-bit-counter
    stream agree with pycryptodome; the end raises, never wraps."""
    key, nonce = bytes(range(32)), bytes(range(12))
    n = min(100, (1 << 38) - position)
    ours, theirs = ChaCha20.new(key=key, nonce=nonce), PcdChaCha20.new(key=key, nonce=nonce)
    ours.seek(position)
    theirs.seek(position)
    assert ours.encrypt(bytes(n)) == theirs.encrypt(bytes(n))
    if position + n == (1 << 38):
        with pytest.raises(MessageTooLongError):
            ours.encrypt(b"x")


def test_seek_8_byte_nonce_across_2_pow_38(backend):
    """The 64-bit counter carries from word 12 into word 13 at 2^38 bytes."""
    key, nonce = bytes(range(32)), bytes(range(8))
    for position in ((1 << 38) - 100, (1 << 70) - 64 * 3 - 1):
        ours, theirs = ChaCha20.new(key=key, nonce=nonce), PcdChaCha20.new(key=key, nonce=nonce)
        ours.seek(position)
        theirs.seek(position)
        assert ours.encrypt(bytes(300)[:(1 << 70) - position]) == \
            theirs.encrypt(bytes(300)[:(1 << 70) - position])


def test_seek_bad_positions():
    c = ChaCha20.new(key=bytes(32), nonce=bytes(12))
    with pytest.raises(ValueError):
        c.seek(1 << 38)
    with pytest.raises(ValueError):
        ChaCha20.new(key=bytes(32), nonce=bytes(8)).seek(1 << 70)
    with pytest.raises(OverflowError):
        c.seek(-1)
    for bad in (1.5, "64", None, b"\x40"):
        with pytest.raises(TypeError):
            c.seek(bad)
    a = ChaCha20_Poly1305.new(key=bytes(32), nonce=bytes(12))
    with pytest.raises(ValueError):
        a._cipher.seek(1 << 38)
    with pytest.raises(TypeError):
        a._cipher.seek(2.0)


# ---------------------------------------------------------------------------
# output=: overlapping, read-only, too small, odd types
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 63, 64, 65, 447, 448, 449, 5000])
def test_chacha20_overlapping_output(backend, n):
    key, nonce = bytes(range(32)), bytes(range(12))
    data = random.Random(n).randbytes(n)
    expected = PcdChaCha20.new(key=key, nonce=nonce).encrypt(data)
    for shift in (-65, -64, -17, -1, 1, 16, 63, 64, 65):
        buf = bytearray(n + 200)
        src_at = 100
        buf[src_at:src_at + n] = data
        mv = memoryview(buf)
        ChaCha20.new(key=key, nonce=nonce).encrypt(mv[src_at:src_at + n],
                                                  output=mv[src_at + shift:src_at + shift + n])
        assert bytes(buf[src_at + shift:src_at + shift + n]) == expected, shift
        mv.release()


@pytest.mark.parametrize("n", [0, 1, 100, 448, 449, 5000])
def test_aead_overlapping_output(backend, n):
    """encrypt_into/decrypt_into with data, associated data and output in one
    buffer, at every kind of overlap."""
    key, nonce, aad = bytes(range(32)), bytes(range(12)), b"associated data!"
    pt = random.Random(n).randbytes(n)
    sealed = CryptoAEAD(key).encrypt(nonce, pt, aad)
    aead = ChaCha20Poly1305(key)
    for shift in (-40, -16, -1, 0, 1, 16, 40):
        # data overlapping the output
        buf = bytearray(n + 300)
        at = 100
        buf[at:at + n] = pt
        mv = memoryview(buf)
        aead.encrypt_into(nonce, mv[at:at + n], aad, mv[at + shift:at + shift + n + 16])
        assert bytes(buf[at + shift:at + shift + n + 16]) == sealed, ("seal", shift)
        buf = bytearray(n + 300)
        buf[at:at + n + 16] = sealed
        mv = memoryview(buf)
        aead.decrypt_into(nonce, mv[at:at + n + 16], aad, mv[at + shift:at + shift + n])
        assert bytes(buf[at + shift:at + shift + n]) == pt, ("open", shift)


@pytest.mark.parametrize("n", [0, 5, 100, 448, 1000])
def test_aead_output_overlapping_associated_data(backend, n):
    """The associated data may live in the output buffer (e.g. a packet
    encrypted in place after its header): the tag covers the associated data
    as it was when the call began."""
    key, nonce = bytes(range(32)), bytes(range(12))
    pt = random.Random(n).randbytes(n)
    aad = b"A" * 24
    sealed = CryptoAEAD(key).encrypt(nonce, pt, aad)
    aead = ChaCha20Poly1305(key)
    buf = bytearray(aad + bytes(n + 16))
    mv = memoryview(buf)
    # output starts 8 bytes into the associated data
    aead.encrypt_into(nonce, pt, mv[:24], mv[8:8 + n + 16])
    assert bytes(buf[8:8 + n + 16]) == sealed


def test_read_only_and_wrong_size_outputs():
    key, nonce = bytes(32), bytes(12)
    ro = mmap.mmap(-1, 64, prot=mmap.PROT_READ)
    for out in (b"x" * 10, memoryview(bytearray(10)).toreadonly(), memoryview(ro)[:10],
                bytes(10)):
        with pytest.raises(TypeError):
            ChaCha20.new(key=key, nonce=nonce).encrypt(b"y" * 10, output=out)
        with pytest.raises(TypeError):
            ChaCha20_Poly1305.new(key=key, nonce=nonce).encrypt(b"y" * 10, output=out)
    with pytest.raises(TypeError):
        ChaCha20Poly1305(key).encrypt_into(nonce, b"y" * 10, None, memoryview(ro)[:26])
    with pytest.raises(TypeError):
        ChaCha20Poly1305(key).decrypt_into(nonce, bytes(26), None, memoryview(ro)[:10])
    for size in (0, 9, 11, 1 << 16):
        with pytest.raises(ValueError):
            ChaCha20.new(key=key, nonce=nonce).encrypt(b"y" * 10, output=bytearray(size))
        with pytest.raises(ValueError):
            ChaCha20_Poly1305.new(key=key, nonce=nonce).decrypt(b"y" * 10, output=bytearray(size))
        with pytest.raises(ValueError):
            ChaCha20Poly1305(key).encrypt_into(nonce, b"y" * 10, None, bytearray(size))
    with pytest.raises(TypeError):                   # not contiguous
        ChaCha20.new(key=key, nonce=nonce).encrypt(b"y" * 10, output=memoryview(bytearray(20))[::2])
    ro.close()
    # a wrong-size output leaves the stream where it was
    c = ChaCha20.new(key=key, nonce=nonce)
    with pytest.raises(ValueError):
        c.encrypt(b"y" * 10, output=bytearray(3))
    assert c.encrypt(b"y" * 10) == PcdChaCha20.new(key=key, nonce=nonce).encrypt(b"y" * 10)


def test_outputs_of_other_item_sizes():
    """Any writable C-contiguous buffer of the right byte length works."""
    key, nonce = bytes(range(32)), bytes(12)
    data = bytes(range(256)) * 4
    expected = PcdChaCha20.new(key=key, nonce=nonce).encrypt(data)
    out = array.array("I", bytes(len(data)))
    ChaCha20.new(key=key, nonce=nonce).encrypt(data, output=out)
    assert out.tobytes() == expected
    out2 = memoryview(bytearray(len(data))).cast("Q")
    ChaCha20.new(key=key, nonce=nonce).encrypt(array.array("H", data), output=out2)
    assert out2.tobytes() == expected


# ---------------------------------------------------------------------------
# bytes subclasses and other odd objects
# ---------------------------------------------------------------------------

class SubBytes(bytes):
    pass


class LyingLen(bytes):
    """Claims to be 32 bytes long whatever it holds."""

    def __len__(self):
        return 32


class SubBytearray(bytearray):
    pass


def test_bytes_subclasses_everywhere(backend):
    key, nonce, msg, aad = bytes(range(32)), bytes(range(12)), b"m" * 300, b"a" * 7
    for wrap in (SubBytes, SubBytearray, memoryview, lambda b: array.array("B", b)):
        k, n, m, a = wrap(key), wrap(nonce), wrap(msg), wrap(aad)
        # pycryptodome's ChaCha20_Poly1305.new() takes bytes, bytearray or
        # memoryview nonces only (a documented rule of that face)
        n2 = n if isinstance(n, (bytes, bytearray, memoryview)) else nonce
        assert Poly1305.generate_tag(k, m) == CryptoPoly1305.generate_tag(key, msg)
        p = Poly1305(k)
        p.update(m)
        p.verify(wrap(CryptoPoly1305.generate_tag(key, msg)))
        sealed = ChaCha20Poly1305(k).encrypt(n, m, a)
        assert sealed == CryptoAEAD(key).encrypt(nonce, msg, aad)
        assert ChaCha20Poly1305(k).decrypt(n, wrap(sealed), a) == msg
        assert ChaCha20.new(key=k, nonce=n).encrypt(m) == \
            PcdChaCha20.new(key=key, nonce=nonce).encrypt(msg)
        c = ChaCha20_Poly1305.new(key=k, nonce=n2)
        c.update(a)
        ct, tag = c.encrypt_and_digest(m)
        d = ChaCha20_Poly1305.new(key=k, nonce=n2)
        d.update(a)
        assert d.decrypt_and_verify(wrap(ct), wrap(tag)) == msg
        assert PolyFace.new(key=k, cipher=ChaCha20, nonce=n, data=m).digest() == \
            PcdPoly1305.new(key=key, cipher=PcdChaCha20, nonce=nonce, data=msg).digest()


def test_lying_len_is_refused_not_overread():
    """A bytes subclass whose __len__ lies passes the faces' len() checks, but
    the engine reads the buffer's real length: ValueError, no over-read."""
    short = LyingLen(b"k" * 5)
    assert len(short) == 32
    with pytest.raises(ValueError):
        ChaCha20.new(key=short, nonce=bytes(12))
    with pytest.raises(ValueError):
        ChaCha20_Poly1305.new(key=short, nonce=bytes(12))
    with pytest.raises(ValueError):
        Poly1305(short)
    with pytest.raises(ValueError):
        ChaCha20Poly1305(short)
    with pytest.raises(ValueError):
        PolyFace.new(key=short, cipher=ChaCha20, nonce=bytes(12))


@pytest.mark.parametrize("bad", [None, 5, "a" * 32, object(), [0] * 32, SubBytes])
def test_non_buffers_are_type_errors(bad):
    with pytest.raises(TypeError):
        Poly1305.generate_tag(bytes(32), bad)
    with pytest.raises(TypeError):
        ChaCha20Poly1305(bytes(32)).encrypt(bytes(12), bad, None)
    with pytest.raises(TypeError):
        ChaCha20Poly1305(bytes(32)).decrypt(bytes(12), bad, None)
    with pytest.raises(TypeError):
        ChaCha20.new(key=bytes(32), nonce=bytes(12)).encrypt(bad)


# ---------------------------------------------------------------------------
# Key hygiene: secrets leave the object's memory on finalize and on free
# ---------------------------------------------------------------------------

def _object_bytes(obj):
    return ctypes.string_at(id(obj), sys.getsizeof(obj))


def _pymalloc():
    return not SANITIZED and os.environ.get("PYTHONMALLOC", "") in ("", "pymalloc")


@pytest.mark.skipif(not _pymalloc(), reason="reads freed memory: only under pymalloc, not ASan")
def test_keys_wiped_on_free():
    """Best effort, as documented: after an object is freed, its key bytes are
    no longer in the memory it occupied.  (Reads the freed block; pymalloc
    keeps the pages mapped.)"""
    key = bytes(range(0xA0, 0xC0))        # distinctive
    makers = {
        "Poly1305": lambda: Poly1305(key),
        "Poly1305_MAC": lambda: PolyFace.new(key=key, cipher=ChaCha20, nonce=bytes(12)),
        "ChaCha20Cipher": lambda: ChaCha20.new(key=key, nonce=bytes(12)),
        "ChaCha20Poly1305": lambda: ChaCha20Poly1305(key),
        "XChaCha20Poly1305": lambda: XChaCha20Poly1305(key),
        "ChaCha20Poly1305Cipher": lambda: ChaCha20_Poly1305.new(key=key, nonce=bytes(12)),
    }
    needles = {
        # what each object holds verbatim: the key (stream state words 4-11 are
        # the key in little-endian order, i.e. the key bytes), or s = key[16:]
        "Poly1305": key[16:],
        "Poly1305_MAC": None,           # (r, s) come from ChaCha20 block 0: checked below
        "ChaCha20Cipher": key,
        "ChaCha20Poly1305": key,
        "XChaCha20Poly1305": None,      # holds the key; checked below
        "ChaCha20Poly1305Cipher": key,
    }
    needles["XChaCha20Poly1305"] = key
    r, s = _engine.chacha20_poly1305_key_pair(key, bytes(12))
    needles["Poly1305_MAC"] = s
    for name, make in makers.items():
        obj = make()
        addr, size = id(obj), sys.getsizeof(obj)
        before = ctypes.string_at(addr, size)
        assert needles[name] in before, f"{name}: test does not find the key in the live object"
        del obj
        gc.collect()
        after = ctypes.string_at(addr, size)
        assert needles[name] not in after, f"{name}: key left in freed memory"


@pytest.mark.skipif(SANITIZED, reason="reads object memory with ctypes")
def test_mac_key_wiped_at_finalize():
    """A finished cryptography-style MAC keeps only its tag."""
    key = bytes(range(0x40, 0x60))
    p = Poly1305(key)
    p.update(b"x" * 100)
    assert key[16:] in _object_bytes(p)
    p.finalize()
    assert key[16:] not in _object_bytes(p)


# ---------------------------------------------------------------------------
# The fuzz corpora (tests/fuzz/corpus), replayed: in the sanitizer job this
# runs every saved input through the ASan+UBSan build.
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("target", ["poly1305", "aead_open", "openssh"])
def test_fuzz_corpus_replays_clean(target):
    fuzz_dir = os.path.join(os.path.dirname(__file__), "fuzz")
    if fuzz_dir not in sys.path:
        sys.path.insert(0, fuzz_dir)
    import replay
    assert replay.replay(target) > 0
