"""Hardening: buffers.  Held while in use (no resize, release or close),
outputs that overlap the input or the associated data, read-only / wrong-size /
odd outputs, bytes subclasses and non-buffers, inputs changed by another
thread during a call (each byte read once: what is returned is what was
authenticated), what a failed decryption leaves in the output, and the fuzz
corpora replayed."""
import array
import mmap
import random
import threading
import time

import pytest

from poly1305x import ChaCha20, ChaCha20_Poly1305, InvalidTag
from poly1305x import Poly1305 as PolyFace
from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305
from poly1305x.mac import Poly1305
from tests.support.hardening import SANITIZED, fast_switch  # noqa: F401 - a fixture

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
