"""Many AEAD messages in one call (encrypt_many / decrypt_many, their _into
forms, one key or one key per message): differential against single calls,
cryptography and pycryptodome on every backend (the multi-buffer kernels),
known answers inside a batch, tampering with one message, every input error
raised before any output, threads sharing one key object."""
import random
import threading

import pytest

from poly1305x import aead as aeads
from poly1305x.aead import ChaCha20Poly1305, InvalidTag, XChaCha20Poly1305
from tests.support.helpers import h, run_threads
from tests.core.test_aead import SUNSCREEN, SUNSCREEN_VECTORS
from Crypto.Cipher import ChaCha20_Poly1305 as PyCryptodomeAEAD
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CryptoAEAD

KAT_KEY = h("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
KAT_AAD = h("50515253c0c1c2c3c4c5c6c7")
# lengths around the kernels' edges: block boundaries, the one-message short
# path (448), the multi-buffer limit (1024), long messages
EDGES = [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 448, 449, 960, 1023, 1024, 1025, 5000]


def random_batch(rng, count, nonce_len=12, maxlen=5000):
    nonces = [rng.randbytes(nonce_len) for _ in range(count)]
    sizes = [rng.choice(EDGES) if rng.random() < 0.4 else
             rng.randrange(rng.choice([100, 1100, maxlen + 1])) for _ in range(count)]
    data = [rng.randbytes(n) for n in sizes]
    aad = [None if rng.random() < 0.3 else rng.randbytes(rng.randrange(70))
           for _ in range(count)]
    return nonces, data, aad


def seal_one(cls, key, nonce, pt, aad):
    """The peers' answer: cryptography (12-byte nonce), pycryptodome (24)."""
    if cls is ChaCha20Poly1305:
        return CryptoAEAD(key).encrypt(nonce, pt, aad)
    c = PyCryptodomeAEAD.new(key=key, nonce=nonce)
    c.update(aad or b"")
    ct, tag = c.encrypt_and_digest(pt)
    return ct + tag


# ---------------------------------------------------------------------------
# Differential
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("cls, nonce_len", [(ChaCha20Poly1305, 12), (XChaCha20Poly1305, 24)])
def test_random_batches_vs_peers_and_single_calls(backend, cls, nonce_len):
    rng = random.Random(nonce_len)
    for count in (1, 2, 7, 9, 16, 17, 40, 300):
        key = rng.randbytes(32)
        a = cls(key)
        nonces, data, aad = random_batch(rng, count, nonce_len,
                                         maxlen=5000 if count < 100 else 600)
        cts = a.encrypt_many(nonces, data, aad)
        assert cts == [seal_one(cls, key, n, d, x) for n, d, x in zip(nonces, data, aad)]
        assert cts == [a.encrypt(n, d, x) for n, d, x in zip(nonces, data, aad)]
        assert a.decrypt_many(nonces, cts, aad) == data
        assert a.decrypt_many(nonces, cts, aad, strict=False) == data
        # the _into forms: the same bytes back to back
        out = bytearray(sum(len(d) + 16 for d in data) + 5)
        offs = a.encrypt_many_into(nonces, data, aad, out)
        assert bytes(out[:-5]) == b"".join(cts) and out[-5:] == bytes(5)
        assert offs == [sum(len(d) + 16 for d in data[:i]) for i in range(count)]
        back = bytearray(sum(map(len, data)))
        assert a.decrypt_many_into(nonces, cts, aad, back) == [
            sum(map(len, data[:i])) for i in range(count)]
        assert bytes(back) == b"".join(data)


def test_equal_lengths_one_group(backend):
    """Full lane groups of one length, for every block count of the lanes and
    group sizes around the lane widths (4, 8, 16)."""
    rng = random.Random(5)
    key = rng.randbytes(32)
    a, c = ChaCha20Poly1305(key), CryptoAEAD(key)
    for n in (0, 64, 200, 1024):
        for count in (2, 3, 4, 5, 8, 15, 16, 33):
            nonces = [rng.randbytes(12) for _ in range(count)]
            data = [rng.randbytes(n) for _ in range(count)]
            assert a.encrypt_many(nonces, data, None) == [
                c.encrypt(x, d, None) for x, d in zip(nonces, data)]


def test_aad_lengths_in_a_group(backend):
    """Associated data around the Poly1305 lanes' limit (256 bytes; longer
    MACs message by message), mixed in one group, and empty vs None."""
    rng = random.Random(6)
    key = rng.randbytes(32)
    a, c = ChaCha20Poly1305(key), CryptoAEAD(key)
    for alens in ([0] * 16, [255, 256, 257, 0] * 4, [1000] + [16] * 15, [None, 0] * 8):
        nonces = [rng.randbytes(12) for _ in alens]
        data = [rng.randbytes(rng.choice([0, 30, 64, 500])) for _ in alens]
        aad = [None if x is None else rng.randbytes(x) for x in alens]
        cts = a.encrypt_many(nonces, data, aad)
        assert cts == [c.encrypt(n, d, x) for n, d, x in zip(nonces, data, aad)]
        assert a.decrypt_many(nonces, cts, aad) == data


def test_kat_inside_a_batch(backend):
    """RFC 8439 section 2.8.2 (and the XChaCha draft's A.3.1) at several
    positions of batches of other messages."""
    rng = random.Random(7)
    for param in SUNSCREEN_VECTORS:
        cls, nonce, ct, tag = param.values
        nonce, want = h(nonce), h(ct) + h(tag)
        a = cls(KAT_KEY)
        for pos, count in ((0, 1), (0, 5), (3, 5), (16, 20), (19, 20)):
            nonces, data, aad = random_batch(rng, count, len(nonce), maxlen=300)
            nonces[pos], data[pos], aad[pos] = nonce, SUNSCREEN, KAT_AAD
            if len(set(nonces)) < count:
                continue
            cts = a.encrypt_many(nonces, data, aad)
            assert cts[pos] == want
            assert a.decrypt_many(nonces, cts, aad)[pos] == SUNSCREEN
            assert aeads.encrypt_many([KAT_KEY] * count if cls is ChaCha20Poly1305 else
                                      [a] * count, nonces, data, aad)[pos] == want


def test_multi_key(backend):
    rng = random.Random(9)
    count = 50
    objs = [ChaCha20Poly1305(rng.randbytes(32)) if i % 3 else XChaCha20Poly1305(rng.randbytes(32))
            for i in range(count)]
    raw = [rng.randbytes(32) for _ in range(count)]
    keys = [raw[i] if i % 5 == 0 else objs[i] for i in range(count)]
    nonces = [rng.randbytes(24 if isinstance(k, XChaCha20Poly1305) else 12) for k in keys]
    _, data, aad = random_batch(rng, count, maxlen=2000)
    want = [(ChaCha20Poly1305(k) if isinstance(k, bytes) else k).encrypt(n, d, x)
            for k, n, d, x in zip(keys, nonces, data, aad)]
    assert aeads.encrypt_many(keys, nonces, data, aad) == want
    assert aeads.decrypt_many(keys, nonces, want, aad) == data
    out = bytearray(sum(len(d) + 16 for d in data))
    aeads.encrypt_many_into(keys, nonces, data, aad, out)
    assert bytes(out) == b"".join(want)
    back = bytearray(sum(map(len, data)))
    aeads.decrypt_many_into(keys, nonces, want, aad, back)
    assert bytes(back) == b"".join(data)
    # the same nonce under different keys is fine; under one key it is not
    same = [bytes(12)] * 3
    three = [ChaCha20Poly1305(bytes([i]) * 32) for i in range(3)]
    assert len(set(aeads.encrypt_many(three, same, [b"x"] * 3, None))) == 3
    with pytest.raises(ValueError, match=r"nonces\[2\] repeats"):
        aeads.encrypt_many([three[0], three[1], three[0]], same, [b"x"] * 3, None)


def test_empty_batch():
    a = ChaCha20Poly1305(bytes(32))
    assert a.encrypt_many([], [], None) == []
    assert a.decrypt_many([], [], []) == []
    assert a.encrypt_many_into((), (), None, bytearray()) == []
    assert aeads.decrypt_many([], [], [], None) == []


def test_any_iterable_and_buffers():
    a = ChaCha20Poly1305(bytes(32))
    nonces = (bytes(11) + bytes([i]) for i in range(3))
    data = [b"abc", bytearray(b"de"), memoryview(b"fgh")]
    cts = a.encrypt_many(nonces, data, iter([None, b"x", memoryview(b"yz")]))
    assert cts == [a.encrypt(bytes(11) + bytes([i]), bytes(d), x)
                   for i, d, x in zip(range(3), data, [None, b"x", b"yz"])]


# ---------------------------------------------------------------------------
# Bad tags
# ---------------------------------------------------------------------------

def _tampered(rng, cts, nonces, aad, i, how):
    cts, nonces, aad = list(cts), list(nonces), list(aad)
    if how == "ct":
        b = bytearray(cts[i])
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        cts[i] = bytes(b)
    elif how == "aad":
        aad[i] = (aad[i] or b"") + b"!"
    elif how == "nonce":
        nonces[i] = bytes([nonces[i][0] ^ 1]) + nonces[i][1:]
    else:                               # truncated below a tag
        cts[i] = cts[i][:rng.randrange(16)]
    return cts, nonces, aad


@pytest.mark.parametrize("how", ["ct", "aad", "nonce", "short"])
def test_tampering_with_one_message(backend, how):
    rng = random.Random(how)
    a = ChaCha20Poly1305(rng.randbytes(32))
    for count in (1, 3, 16, 40):
        nonces, data, aad = random_batch(rng, count, maxlen=2000)
        cts = a.encrypt_many(nonces, data, aad)
        i = rng.randrange(count)
        bad_cts, bad_nonces, bad_aad = _tampered(rng, cts, nonces, aad, i, how)
        if len(set(bad_nonces)) < count:
            continue
        with pytest.raises(InvalidTag) as info:
            a.decrypt_many(bad_nonces, bad_cts, bad_aad)
        assert info.value.indices == [i]
        assert f"indices {i})" in str(info.value)
        got = a.decrypt_many(bad_nonces, bad_cts, bad_aad, strict=False)
        assert got == data[:i] + [None] + data[i + 1:]
        # _into, strict: the buffer is left as it was; not strict: slot i zeroed
        size = sum(max(len(c) - 16, 0) for c in bad_cts)
        buf = bytearray(b"\xaa" * size)
        with pytest.raises(InvalidTag):
            a.decrypt_many_into(bad_nonces, bad_cts, bad_aad, buf)
        assert buf == b"\xaa" * size
        offs = a.decrypt_many_into(bad_nonces, bad_cts, bad_aad, buf, strict=False)
        assert offs[i] is None and offs.count(None) == 1
        want = b"".join(d if j != i else bytes(max(len(bad_cts[i]) - 16, 0))
                        for j, d in enumerate(data))
        assert bytes(buf) == want


def test_many_bad_tags_named_by_index_only():
    a = ChaCha20Poly1305(bytes(32))
    nonces = [bytes(11) + bytes([i]) for i in range(30)]
    secret = b"\x7fSECRET-PLAINTEXT"
    cts = a.encrypt_many(nonces, [secret] * 30, None)
    bad = [c if i % 2 else c[:-1] + bytes([c[-1] ^ 1]) for i, c in enumerate(cts)]
    with pytest.raises(InvalidTag) as info:
        a.decrypt_many(nonces, bad, None)
    assert info.value.indices == list(range(0, 30, 2))
    text = str(info.value)
    assert "15 of 30" in text and "SECRET" not in text and secret.hex() not in text


# ---------------------------------------------------------------------------
# Input errors: all raised before any output
# ---------------------------------------------------------------------------

def _inputs(count=5):
    rng = random.Random(count)
    nonces, data, aad = random_batch(rng, count, maxlen=300)
    return nonces, data, aad


BAD_INPUTS = [
    ("str data", lambda n, d, a: (n, d[:-1] + ["text"], a), TypeError, r"data\[4\]"),
    ("int data", lambda n, d, a: (n, d[:-1] + [5], a), TypeError, r"data\[4\]"),
    ("str aad", lambda n, d, a: (n, d, a[:-1] + ["x"]), TypeError, r"associated_data\[4\]"),
    ("int nonce", lambda n, d, a: (n[:-1] + [12], d, a), TypeError, r"nonces\[4\]"),
    ("short nonce", lambda n, d, a: (n[:-1] + [bytes(11)], d, a), ValueError,
     r"nonces\[4\] must be 12 bytes"),
    ("xchacha nonce", lambda n, d, a: (n[:-1] + [bytes(24)], d, a), ValueError,
     r"nonces\[4\] must be 12 bytes"),
    ("repeated nonce", lambda n, d, a: (n[:-1] + [n[1]], d, a), ValueError,
     r"nonces\[4\] repeats"),
    ("fewer nonces", lambda n, d, a: (n[:-1], d, a), ValueError, "same length"),
    ("more aad", lambda n, d, a: (n, d, a + [None]), ValueError, "same length"),
    ("bytes as data", lambda n, d, a: (n, b"".join(d), a), TypeError, "sequence"),
    ("bytes as nonces", lambda n, d, a: (bytes(60), d, a), TypeError, "sequence"),
    ("not iterable", lambda n, d, a: (n, 5, a), TypeError, "sequence"),
    ("strided", lambda n, d, a: (n, d[:-1] + [memoryview(bytes(20))[::2]], a), BufferError,
     r"data\[4\]"),
]


@pytest.mark.parametrize("name, change, exc, match", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
@pytest.mark.parametrize("seal", [True, False])
def test_input_errors_before_any_output(name, change, exc, match, seal):
    a = ChaCha20Poly1305(bytes(range(32)))
    nonces, data, aad = _inputs()
    if not seal:
        data = a.encrypt_many(nonces, data, aad)
    n, d, x = change(nonces, data, aad)
    many = a.encrypt_many if seal else a.decrypt_many
    into = a.encrypt_many_into if seal else a.decrypt_many_into
    if name == "repeated nonce" and not seal:
        # opening refuses no repeat: message 4 (another nonce now) fails its
        # own tag, as decrypt would, and the others open
        with pytest.raises(InvalidTag) as info:
            many(n, d, x)
        assert info.value.indices == [4]
        assert many(n, d, x, strict=False) == [a.decrypt(*m) for m in zip(n[:4], d, x)] + [None]
        return
    with pytest.raises(exc, match=match):
        many(n, d, x)
    buf = bytearray(b"\x55" * 20000)
    with pytest.raises(exc, match=match):
        into(n, d, x, buf)
    assert buf == b"\x55" * 20000


def test_output_buffer_errors():
    a = ChaCha20Poly1305(bytes(32))
    nonces, data, aad = _inputs()
    need = sum(len(d) + 16 for d in data)
    buf = bytearray(b"\x55" * (need - 1))
    with pytest.raises(ValueError, match=f"at least {need} bytes"):
        a.encrypt_many_into(nonces, data, aad, buf)
    assert buf == b"\x55" * (need - 1)
    with pytest.raises(TypeError, match="not writable"):
        a.encrypt_many_into(nonces, data, aad, bytes(need))


def test_key_errors_multi_key():
    good = [bytes(32)] * 3
    nonces = [bytes(11) + bytes([i]) for i in range(3)]
    with pytest.raises(ValueError, match=r"keys\[1\] must be 32 bytes"):
        aeads.encrypt_many([good[0], bytes(31), good[2]], nonces, [b""] * 3, None)
    with pytest.raises(TypeError, match=r"keys\[2\]"):
        aeads.encrypt_many([good[0], good[1], "k" * 32], nonces, [b""] * 3, None)
    with pytest.raises(ValueError, match="same length"):
        aeads.encrypt_many(good[:2], nonces, [b""] * 3, None)
    with pytest.raises(ValueError, match=r"nonces\[0\] must be 24 bytes"):
        aeads.encrypt_many([XChaCha20Poly1305(bytes(32))], [bytes(12)], [b""], None)
    with pytest.raises(RuntimeError, match="not initialised"):
        aeads.encrypt_many([ChaCha20Poly1305.__new__(ChaCha20Poly1305)], [bytes(12)], [b""],
                           None)


def test_inputs_overlapping_the_output():
    """_into with inputs inside the output buffer: in-place decryption of a
    sealed buffer, and aad read from the output."""
    rng = random.Random(3)
    a = ChaCha20Poly1305(rng.randbytes(32))
    nonces, data, aad = random_batch(rng, 20, maxlen=500)
    buf = bytearray(sum(len(d) + 16 for d in data))
    offs = a.encrypt_many_into(nonces, data, aad, buf)
    view = memoryview(buf)
    cts = [view[o:o + len(d) + 16] for o, d in zip(offs, data)]
    assert a.decrypt_many_into(nonces, cts, aad, buf) == [
        sum(map(len, data[:i])) for i in range(20)]
    assert bytes(buf[:sum(map(len, data))]) == b"".join(data)


# ---------------------------------------------------------------------------
# Threads
# ---------------------------------------------------------------------------

def test_threads_share_one_key_object(backend):
    """One key object, many threads, each sealing and opening its own batches
    (big enough to run without the GIL)."""
    key = bytes(range(32))
    a = ChaCha20Poly1305(key)
    c = CryptoAEAD(key)
    errors = []
    lock = threading.Lock()

    def work(t):
        rng = random.Random(t)
        try:
            for _ in range(3):
                nonces, data, aad = random_batch(rng, 30, maxlen=1500)
                cts = a.encrypt_many(nonces, data, aad)
                assert cts == [c.encrypt(n, d, x) for n, d, x in zip(nonces, data, aad)]
                assert a.decrypt_many(nonces, cts, aad) == data
        except BaseException as exc:  # reported by the main thread
            with lock:
                errors.append(exc)

    run_threads(work, 4)
    assert not errors, errors[0]


def test_list_emptied_by_another_thread_during_the_batch():
    """The batch holds a reference to every item it reads: another thread
    emptying the caller's list while the batch runs without the GIL frees
    nothing the batch still reads (a crash or wrong output fails; a list
    emptied before the call began may be refused instead)."""
    key = bytes(range(32))
    a, c = ChaCha20Poly1305(key), CryptoAEAD(key)
    for round_ in range(20):
        nonces = [round_.to_bytes(4, "little") + i.to_bytes(8, "little") for i in range(64)]
        data = [bytes([i]) * 900 for i in range(64)]      # referenced by the list only
        want = [c.encrypt(n, d, None) for n, d in zip(nonces, data)]
        go = threading.Event()

        def empty():
            go.wait()
            data.clear()

        t = threading.Thread(target=empty)
        t.start()
        go.set()
        try:
            got = a.encrypt_many(nonces, data, None)
        except (RuntimeError, ValueError):
            got = None
        t.join()
        if got is not None:
            assert got == want


def test_one_message_invalid_tag_has_no_indices():
    a = ChaCha20Poly1305(bytes(32))
    with pytest.raises(InvalidTag) as info:
        a.decrypt(bytes(12), bytes(16), None)
    assert info.value.indices is None
    with pytest.raises(InvalidTag) as info:
        a.decrypt_many([bytes(12)], [bytes(16)], None)
    assert info.value.indices == [0]
