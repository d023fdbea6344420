"""Hardening: buffers.  Held while in use (no resize, release or close),
outputs that overlap the input or the associated data, read-only / wrong-size /
odd outputs, bytes subclasses and non-buffers, and the fuzz corpora replayed.
(Inputs changed by another thread during a decryption, and what a failed
decryption leaves behind, are in test_hardening_decrypt.py.)"""
import array
import mmap
import random
import threading
import time

import pytest

from poly1305x import ChaCha20, ChaCha20_Poly1305
from poly1305x import Poly1305 as PolyFace
from poly1305x.aead import ChaCha20Poly1305
from poly1305x.mac import Poly1305

from Crypto.Cipher import ChaCha20 as PcdChaCha20
from Crypto.Hash import Poly1305 as PcdPoly1305
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CryptoAEAD
from cryptography.hazmat.primitives.poly1305 import Poly1305 as CryptoPoly1305


# ---------------------------------------------------------------------------
# Buffers held while in use
# ---------------------------------------------------------------------------

def _while_running(make):
    """make(size) builds one attempt over `size` bytes: (op, try_break, check).
    op() runs in a thread; while it runs, try_break() must raise BufferError.
    The loop stops at the first try_break() that succeeds: when BufferErrors
    came before it, the library held the buffer from before that moment, so the
    success happened after op's call returned; check(op's result) then runs.
    Each attempt is built afresh at twice the size of the one before, so a CPU
    fast enough to finish op() within the main thread's first look (48 MiB of
    Poly1305 is about 2 ms on AVX-512 IFMA) gets a longer op, not a failure."""
    size = 32 << 20
    for _attempt in range(5):
        op, try_break, check = make(size)
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
            check(result["value"])
            return
        size *= 2
    pytest.fail("the buffer could be changed while the library held it")


def test_bytearray_cannot_be_resized_while_held():
    key = bytes(range(32))

    def make(size):
        data = bytearray(b"\xa5" * size)
        expected = Poly1305.generate_tag(key, bytes(data))

        def check(tag):
            assert tag == expected

        return (lambda: Poly1305.generate_tag(key, data)), (lambda: data.append(0)), check

    _while_running(make)


def test_bytearray_in_place_output_cannot_be_resized_while_held():
    key, nonce = bytes(range(32)), bytes(12)

    def make(size):
        data = bytearray(size)
        expected = PcdChaCha20.new(key=key, nonce=nonce).encrypt(bytes(size))

        def op():
            ChaCha20.new(key=key, nonce=nonce).encrypt(data, output=data)

        def resize():
            del data[-1:]

        def check(_):
            # at most the one byte deleted after the call returned is missing
            assert len(data) >= size - 1 and data == expected[:len(data)]

        return op, resize, check

    _while_running(make)


def test_memoryview_cannot_be_released_while_held():
    key = bytes(range(32))

    def make(size):
        base = bytearray(b"\x5a" * size)
        expected = Poly1305.generate_tag(key, bytes(base))
        views = {}

        def op():
            views["mv"] = mv = memoryview(base)
            return mv, Poly1305.generate_tag(key, mv)

        def release():
            mv = views.get("mv")
            if mv is not None:
                mv.release()

        def check(value):
            mv, tag = value
            assert tag == expected
            mv.release()

        return op, release, check

    # the view is created inside op(): a release before the call would make it
    # raise ValueError in the worker, which _while_running would report
    _while_running(make)


def test_mmap_cannot_be_closed_while_held():
    key = bytes(range(32))
    maps = []

    def make(size):
        m = mmap.mmap(-1, size)
        maps.append(m)
        m.write(b"\x33" * size)
        expected = Poly1305.generate_tag(key, b"\x33" * size)

        def check(tag):
            assert tag == expected

        return (lambda: Poly1305.generate_tag(key, m)), m.close, check

    try:
        _while_running(make)
    finally:
        for m in maps:
            m.close()


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
# The fuzz corpora (tests/fuzz/corpus), replayed: in the sanitizer job this
# runs every saved input through the ASan+UBSan build.
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("target", ["poly1305", "aead_open", "openssh"])
def test_fuzz_corpus_replays_clean(target):
    from tests.fuzz import replay
    assert replay.replay(target) > 0
