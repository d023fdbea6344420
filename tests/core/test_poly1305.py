"""Poly1305: known answers, the buffering, differential tests against
cryptography (OpenSSL), pycryptodome and the big-integer reference, and bad
input.  Every test that takes `backend` runs on each kernel backend."""
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import poly1305x
from poly1305x import ChaCha20, InvalidSignature, Poly1305
from poly1305x.mac import Poly1305 as MacPoly1305
from poly1305x._kernels._vectors import POLY1305_2_5_2
from tests.support.helpers import chunks, h
from tests.support.reference import poly1305 as ref_poly1305

from cryptography.hazmat.primitives.poly1305 import Poly1305 as crypto_poly  # noqa: E402
from Crypto.Hash import Poly1305 as PyCryptodomePoly1305  # noqa: E402
from Crypto.Cipher import AES as PyCryptodomeAES, ChaCha20 as PyCryptodomeChaCha20  # noqa: E402

IETF_TEXT = (
    b"Any submission to the IETF intended by the Contributor for publication as all or part "
    b"of an IETF Internet-Draft or RFC and any statement made within the context of an IETF "
    b"activity is considered an \"IETF Contribution\". Such statements include oral statements "
    b"in IETF sessions, as well as written and electronic communications made at any time or "
    b"place, which are addressed to")
JABBERWOCKY = (b"'Twas brillig, and the slithy toves\nDid gyre and gimble in the wabe:\n"
               b"All mimsy were the borogoves,\nAnd the mome raths outgrabe.")


def r_s(r, s=""):
    """A 32-byte key from hex r and s, each zero-padded to 16 bytes."""
    return h(r).ljust(16, b"\0") + h(s).ljust(16, b"\0")


# RFC 8439 section 2.5.2 and Appendix A.3 (key, message, tag)
RFC8439 = [
    (POLY1305_2_5_2["key"], POLY1305_2_5_2["msg"], POLY1305_2_5_2["tag"]),
    (bytes(32), bytes(64), bytes(16)),                                            # A.3 #1
    (r_s("", "36e5f6b5c5e06070f0efca96227a863e"), IETF_TEXT,
     h("36e5f6b5c5e06070f0efca96227a863e")),                                       # #2
    (r_s("36e5f6b5c5e06070f0efca96227a863e"), IETF_TEXT,
     h("f3477e7cd95417af89a6b8794c310cf0")),                                       # #3
    (h("1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0"), JABBERWOCKY,
     h("4541669a7eaaee61e708dc7cbcc5eb62")),                                       # #4
    (r_s("02"), b"\xff" * 16, r_s("03")[:16]),                                    # #5
    (r_s("02", "ff" * 16), h("02").ljust(16, b"\0"), r_s("03")[:16]),             # #6
    (r_s("01"), b"\xff" * 16 + b"\xf0" + b"\xff" * 15 + b"\x11" + b"\0" * 15,
     r_s("05")[:16]),                                                             # #7
    (r_s("01"), b"\xff" * 16 + b"\xfb" + b"\xfe" * 15 + b"\x01" * 16, bytes(16)),  # #8
    (r_s("02"), b"\xfd" + b"\xff" * 15, h("fa" + "ff" * 15)),                     # #9
    (r_s("0100000000000000 04"),
     h("e33594d7505e43b9 0000000000000000 3394d7505e4379cd 0100000000000000")
     + bytes(16) + h("01").ljust(16, b"\0"),
     h("1400000000000000 55").ljust(16, b"\0")),                                  # #10
    (r_s("0100000000000000 04"),
     h("e33594d7505e43b9 0000000000000000 3394d7505e4379cd 0100000000000000") + bytes(16),
     h("13").ljust(16, b"\0")),                                                   # #11
]


@pytest.mark.parametrize("key,msg,tag", RFC8439, ids=[f"rfc8439-{i}" for i in range(len(RFC8439))])
def test_rfc8439_vectors(backend, key, msg, tag):
    assert ref_poly1305(key, msg) == tag           # the reference agrees with the RFC
    assert MacPoly1305.generate_tag(key, msg) == tag
    mac = MacPoly1305(key)
    for i in range(len(msg)):
        mac.update(msg[i:i + 1])
    assert mac.finalize() == tag
    assert poly1305x.Poly1305.Poly1305_MAC(key[:16], key[16:], msg).digest() == tag


def test_objects_record_their_backend(backend):
    assert MacPoly1305(bytes(32)).backend == backend
    assert Poly1305.Poly1305_MAC(bytes(16), bytes(16), None).backend == backend


@pytest.mark.parametrize("seed", range(6))
def test_random_chunking_vs_peers(backend, seed):
    rng = random.Random(seed)
    for _ in range(25):
        key = rng.randbytes(32) if rng.random() < 0.8 else b"\xff" * 32
        n = rng.choice([0, 1, 15, 16, 17, 63, 64, 65, 255, 256, 257, 1000, 4095, 4096, 4097,
                        rng.randrange(40 * 1024)])
        msg = rng.randbytes(n) if rng.random() < 0.8 else b"\xff" * n
        expected = crypto_poly.generate_tag(key, msg)
        assert MacPoly1305.generate_tag(key, msg) == expected
        mac = MacPoly1305(key)
        for piece in chunks(msg, rng, 3000):
            mac.update(piece)
        assert mac.finalize() == expected
        # pycryptodome's one-time-key object agrees too
        assert PyCryptodomePoly1305.Poly1305_MAC(key[:16], key[16:], msg).digest() == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(key=st.binary(min_size=32, max_size=32), msg=st.binary(max_size=2000),
       cuts=st.lists(st.integers(0, 2000), max_size=8))
def test_hypothesis_any_split_same_tag(backend, key, msg, cuts):
    expected = ref_poly1305(key, msg)
    mac = Poly1305.Poly1305_MAC(key[:16], key[16:], None)
    prev = 0
    for c in sorted(cuts):
        c = min(c, len(msg))
        mac.update(msg[prev:c])
        prev = c
    mac.update(msg[prev:])
    assert mac.digest() == expected


def test_block_by_block_and_byte_by_byte(backend):
    rng = random.Random(7)
    key = rng.randbytes(32)
    msg = rng.randbytes(16 * 70 + 9)
    expected = crypto_poly.generate_tag(key, msg)
    for step in (1, 16, 64, 1024):
        mac = MacPoly1305(key)
        for i in range(0, len(msg), step):
            mac.update(msg[i:i + step])
        assert mac.finalize() == expected, step
    mac = MacPoly1305(key)
    for piece in (b"", msg[:64], b"", msg[64:96], msg[96:112], msg[112:], b""):
        mac.update(piece)
    assert mac.finalize() == expected


def test_hibit_of_directly_absorbed_blocks(backend):
    """Whole blocks taken straight from the caller's buffer must carry 2^128: a
    loop that dropped it would equal this 'no hibit' reference instead."""
    rng = random.Random(3)
    key = rng.randbytes(32)
    msg = rng.randbytes(16 * 40)
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:], "little")
    p = (1 << 130) - 5
    acc = 0
    for i in range(0, len(msg), 16):
        acc = (acc + int.from_bytes(msg[i:i + 16], "little")) * r % p
    no_hibit = ((acc + s) % (1 << 128)).to_bytes(16, "little")
    tag = MacPoly1305.generate_tag(key, msg)
    assert tag == ref_poly1305(key, msg)
    assert tag != no_hibit


def test_mac_of_macs_every_length(backend):
    """Tags of every length 0..255 under varying keys, MACed together (the
    poly1305-donna self-test idea), against the reference."""
    ours, ref = [], []
    for n in range(256):
        key = bytes((n + i) & 0xFF for i in range(32))
        msg = bytes((n * 3 + i) & 0xFF for i in range(n))
        ours.append(MacPoly1305.generate_tag(key, msg))
        ref.append(ref_poly1305(key, msg))
    final_key = bytes(range(32))
    assert MacPoly1305.generate_tag(final_key, b"".join(ours)) == ref_poly1305(final_key, b"".join(ref))


@pytest.mark.parametrize("size", [2**16 + 3, 1 << 20])
def test_long_inputs_and_buffer_types(backend, size):
    import array
    rng = random.Random(size)
    key = rng.randbytes(32)
    msg = rng.randbytes(size)
    expected = crypto_poly.generate_tag(key, msg)
    assert MacPoly1305.generate_tag(key, bytearray(msg)) == expected
    assert MacPoly1305.generate_tag(memoryview(msg)[:32], memoryview(msg)[:0]) == \
        crypto_poly.generate_tag(msg[:32], b"")
    assert MacPoly1305.generate_tag(key, array.array("B", msg)) == expected
    assert MacPoly1305.generate_tag(key, memoryview(msg).cast("B", (size,))) == expected


def test_numpy_buffer():
    import numpy as np
    key = bytes(range(32))
    arr = np.arange(1000, dtype=np.uint32)
    assert MacPoly1305.generate_tag(key, arr) == crypto_poly.generate_tag(key, arr.tobytes())


# --- pycryptodome face -------------------------------------------------------

def test_new_with_chacha20_matches_pycryptodome(backend):
    rng = random.Random(11)
    for nonce_len in (8, 12):
        for n in (0, 1, 100, 5000):
            key, nonce, data = rng.randbytes(32), rng.randbytes(nonce_len), rng.randbytes(n)
            theirs = PyCryptodomePoly1305.new(key=key, cipher=PyCryptodomeChaCha20, nonce=nonce,
                                              data=data)
            for cipher in (ChaCha20, PyCryptodomeChaCha20):
                ours = Poly1305.new(key=key, cipher=cipher, nonce=nonce, data=data)
                assert ours.digest() == theirs.digest()
                assert ours.nonce == nonce
                assert ours.hexdigest() == theirs.hexdigest()


def test_new_with_aes_matches_pycryptodome(backend):
    key, nonce = bytes(range(32)), bytes(range(16))
    theirs = PyCryptodomePoly1305.new(key=key, cipher=PyCryptodomeAES, nonce=nonce, data=b"abc")
    ours = Poly1305.new(key=key, cipher=PyCryptodomeAES, nonce=nonce, data=b"abc")
    assert ours.digest() == theirs.digest()


def test_pycryptodome_face_rules():
    mac = Poly1305.new(key=bytes(32), cipher=ChaCha20)
    assert len(mac.nonce) == 12
    assert mac.digest_size == 16 and Poly1305.digest_size == 16
    assert mac.update(b"abc") is mac
    tag = mac.digest()
    assert mac.digest() == tag                  # digest may be repeated
    with pytest.raises(TypeError, match="only call 'digest' or 'hexdigest'"):
        mac.update(b"more")
    mac.verify(tag)
    mac.hexverify(tag.hex())
    with pytest.raises(ValueError, match="MAC check failed"):
        mac.verify(tag[:15])
    with pytest.raises(ValueError, match="MAC check failed"):
        mac.verify(bytes(16) if tag != bytes(16) else b"\1" * 16)
    with pytest.raises(ValueError, match="MAC check failed"):
        mac.hexverify("00" * 16)
    with pytest.raises(ValueError, match="must be AES or ChaCha20"):
        Poly1305.new(key=bytes(32), cipher=object())
    with pytest.raises(ValueError, match="32-byte key"):
        Poly1305.new(key=bytes(31), cipher=ChaCha20)
    with pytest.raises(ValueError, match="8- or 12-byte nonce"):
        Poly1305.new(key=bytes(32), cipher=ChaCha20, nonce=bytes(16))
    with pytest.raises(ValueError, match="Parameter r is not 16 bytes long"):
        Poly1305.Poly1305_MAC(bytes(15), bytes(16), None)
    with pytest.raises(ValueError, match="Parameter s is not 16 bytes long"):
        Poly1305.Poly1305_MAC(bytes(16), bytes(17), None)
    with pytest.raises(NotImplementedError):
        mac.copy()


# --- cryptography face -------------------------------------------------------

def test_cryptography_face_rules():
    key = bytes(range(32))
    tag = crypto_poly.generate_tag(key, b"msg")
    MacPoly1305.verify_tag(key, b"msg", tag)
    with pytest.raises(InvalidSignature):
        MacPoly1305.verify_tag(key, b"msh", tag)
    with pytest.raises(InvalidSignature):
        MacPoly1305.verify_tag(key, b"msg", tag[:15])
    p = MacPoly1305(key)
    p.update(b"msg")
    p.verify(tag)
    with pytest.raises(poly1305x.AlreadyFinalized):
        p.update(b"x")
    with pytest.raises(poly1305x.AlreadyFinalized):
        p.finalize()
    with pytest.raises(poly1305x.AlreadyFinalized):
        p.verify(tag)
    p = MacPoly1305(key)
    with pytest.raises(InvalidSignature):
        p.verify(bytes(16))


def test_exceptions_interoperate_with_cryptography():
    from cryptography.exceptions import AlreadyFinalized, InvalidSignature as CInvalidSignature
    with pytest.raises(CInvalidSignature):
        MacPoly1305.verify_tag(bytes(32), b"a", b"\1" * 16)
    with pytest.raises(ValueError):
        MacPoly1305.verify_tag(bytes(32), b"a", b"\1" * 16)
    p = MacPoly1305(bytes(32))
    p.finalize()
    with pytest.raises(AlreadyFinalized):
        p.finalize()


@pytest.mark.parametrize("bad", [bytes(31), bytes(33), b""])
def test_wrong_key_length(bad):
    with pytest.raises(ValueError, match="32 bytes"):
        MacPoly1305(bad)
    with pytest.raises(ValueError, match="32 bytes"):
        MacPoly1305.generate_tag(bad, b"x")


@pytest.mark.parametrize("bad", ["a str", 12, None, [1, 2, 3]])
def test_wrong_data_type(bad):
    with pytest.raises(TypeError):
        MacPoly1305.generate_tag(bytes(32), bad)
    with pytest.raises(TypeError):
        MacPoly1305(bytes(32)).update(bad)
    with pytest.raises(TypeError):
        Poly1305.Poly1305_MAC(bytes(16), bytes(16), None).update(bad)


def test_str_key_and_noncontiguous_data():
    with pytest.raises(TypeError):
        MacPoly1305("k" * 32)
    strided = memoryview(bytes(64))[::2]
    # a BufferError as the peers raise, and still the TypeError it was
    for exc in (BufferError, TypeError):
        with pytest.raises(exc, match="contiguous"):
            MacPoly1305.generate_tag(bytes(32), strided)
        with pytest.raises(exc, match="contiguous"):
            MacPoly1305(bytes(32)).update(strided)
