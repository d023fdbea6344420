"""ChaCha20 / XChaCha20 (pycryptodome face): known answers, differential
tests against pycryptodome, cryptography and the reference, seek, output=,
threads, key-stream exhaustion and bad input, on every backend."""
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import poly1305x
from poly1305x import ChaCha20
from poly1305x._kernels._vectors import CHACHA20_2_4_2
from tests.support.helpers import h
from tests.support.reference import chacha20_block, chacha20_xor as ref_xor, hchacha20 as ref_hchacha20
from Crypto.Cipher import ChaCha20 as PyCryptodomeChaCha20
import Crypto
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms


SUNSCREEN = CHACHA20_2_4_2["pt"]


def test_rfc8439_2_4_2(backend):
    v = CHACHA20_2_4_2
    key, nonce, expected = v["key"], v["nonce"], v["ct"]
    c = ChaCha20.new(key=key, nonce=nonce)
    c.seek(64)                                  # block counter 1
    assert c.encrypt(SUNSCREEN) == expected
    assert ref_xor(key, nonce, SUNSCREEN, counter=1) == expected


def test_rfc8439_a2_zero_key(backend):
    ks = h("76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d"
           "7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586")
    assert ChaCha20.new(key=bytes(32), nonce=bytes(12)).encrypt(bytes(64)) == ks
    assert chacha20_block(bytes(32), 0, bytes(12)) == ks


def test_hchacha20_draft_vector():
    key = bytes(range(32))
    nonce = h("000000090000004a0000000031415927")
    expected = h("82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc")
    assert bytes(ChaCha20._HChaCha20(key, nonce)) == expected
    assert ref_hchacha20(key, nonce) == expected
    with pytest.raises(ValueError):
        ChaCha20._HChaCha20(key, nonce[:15])


def _pieces(rng, data):
    i = 0
    while i < len(data):
        n = rng.choice([0, 1, 7, 63, 64, 65, 200, 512, 4096, rng.randrange(20000)])
        yield data[i:i + n]
        i += n


@pytest.mark.parametrize("nonce_len", [8, 12, 24])
def test_random_chunks_vs_pycryptodome(backend, nonce_len):
    rng = random.Random(nonce_len)
    for _ in range(12):
        key, nonce = rng.randbytes(32), rng.randbytes(nonce_len)
        data = rng.randbytes(rng.choice([0, 1, 64, 511, 512, 513, rng.randrange(70000)]))
        theirs = PyCryptodomeChaCha20.new(key=key, nonce=nonce).encrypt(data)
        c = ChaCha20.new(key=key, nonce=nonce)
        assert b"".join(c.encrypt(p) for p in _pieces(rng, data)) == theirs
        d = ChaCha20.new(key=key, nonce=nonce)
        assert b"".join(d.decrypt(p) for p in _pieces(rng, theirs)) == data


def test_vs_cryptography(backend):
    """cryptography's ChaCha20 takes a 16-byte nonce = 32-bit counter || 12-byte
    nonce (OpenSSL refuses to carry past 2^32)."""
    rng = random.Random(5)
    for n in (1, 64, 1000, 70000):
        key, nonce = rng.randbytes(32), rng.randbytes(12)
        data = rng.randbytes(n)
        enc = Cipher(algorithms.ChaCha20(key, (7).to_bytes(4, "little") + nonce), None).encryptor()
        c = ChaCha20.new(key=key, nonce=nonce)
        c.seek(7 * 64)
        assert c.encrypt(data) == enc.update(data)


def test_64bit_counter_carry(backend):
    """The 8-byte-nonce variant's block counter carries from word 12 into 13."""
    rng = random.Random(5)
    key, nonce = rng.randbytes(32), rng.randbytes(8)
    start = (1 << 32) - 3
    data = rng.randbytes(64 * 20 + 5)
    c = ChaCha20.new(key=key, nonce=nonce)
    c.seek(start * 64)
    p = PyCryptodomeChaCha20.new(key=key, nonce=nonce)
    p.seek(start * 64)
    expected = p.encrypt(data)
    assert c.encrypt(data) == expected
    assert ref_xor(key, nonce, data, counter=start) == expected


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=1500), pos=st.integers(0, 5000),
       nonce_len=st.sampled_from([8, 12, 24]))
def test_hypothesis_seek(backend, data, pos, nonce_len):
    key, nonce = bytes(range(32)), bytes(range(nonce_len))
    ours = ChaCha20.new(key=key, nonce=nonce)
    theirs = PyCryptodomeChaCha20.new(key=key, nonce=nonce)
    ours.seek(pos)
    theirs.seek(pos)
    assert ours.encrypt(data) == theirs.encrypt(data)


def test_output_and_in_place(backend):
    rng = random.Random(9)
    key, nonce = rng.randbytes(32), rng.randbytes(12)
    data = rng.randbytes(10000)
    expected = PyCryptodomeChaCha20.new(key=key, nonce=nonce).encrypt(data)
    out = bytearray(len(data))
    assert ChaCha20.new(key=key, nonce=nonce).encrypt(data, output=out) is None
    assert out == expected
    buf = bytearray(data)
    ChaCha20.new(key=key, nonce=nonce).encrypt(buf, output=buf)          # in place
    assert buf == expected
    mv = memoryview(bytearray(data))
    ChaCha20.new(key=key, nonce=nonce).decrypt(mv, output=mv)
    # overlapping but not identical input and output
    buf = bytearray(data + bytes(7))
    ChaCha20.new(key=key, nonce=nonce).encrypt(memoryview(buf)[:len(data)],
                                               output=memoryview(buf)[7:])
    assert bytes(buf[7:]) == expected


def test_output_errors():
    c = ChaCha20.new(key=bytes(32), nonce=bytes(12))
    with pytest.raises(TypeError, match="bytearray or a writeable memoryview"):
        c.encrypt(b"abc", output=b"abc")
    with pytest.raises(ValueError, match="same length"):
        c.encrypt(b"abc", output=bytearray(2))
    with pytest.raises(TypeError, match="bytearray or a writeable memoryview"):
        c.encrypt(b"abc", output=memoryview(b"abc"))


def test_threads_match_single_thread(backend):
    rng = random.Random(1)
    key, nonce = rng.randbytes(32), rng.randbytes(12)
    data = rng.randbytes((5 << 20) + 37)
    expected = ChaCha20.new(key=key, nonce=nonce).encrypt(data)
    for threads in (0, 2, 3):
        c = ChaCha20.new(key=key, nonce=nonce, threads=threads)
        head = c.encrypt(data[:5])              # then continue mid-block
        assert head + c.encrypt(data[5:]) == expected
        c2 = ChaCha20.new(key=key, nonce=nonce, threads=threads)
        out = bytearray(len(data))
        c2.encrypt(data, output=out)
        assert out == expected
    with pytest.raises(ValueError):
        ChaCha20.new(key=key, nonce=nonce, threads=-1)


@pytest.mark.parametrize("nonce_len,blocks", [(12, 1 << 32), (24, 1 << 32), (8, 1 << 64)])
def test_key_stream_exhaustion(backend, nonce_len, blocks):
    key, nonce = bytes(32), bytes(nonce_len)
    limit = blocks * 64
    for impl in (ChaCha20, PyCryptodomeChaCha20):
        c = impl.new(key=key, nonce=nonce)
        c.seek(limit - 10)
        c.encrypt(b"a" * 10)
        assert c.encrypt(b"") == b""
        with pytest.raises(Crypto.MessageTooLongError, match="exhausted"):
            c.encrypt(b"a")
        c = impl.new(key=key, nonce=nonce)
        c.seek(limit - 64)
        with pytest.raises(poly1305x.MessageTooLongError if impl is ChaCha20
                           else Crypto.MessageTooLongError):
            c.encrypt(b"a" * 65)
        with pytest.raises(ValueError, match="seeking"):
            c.seek(limit)
    # the last block itself is right (the 32-bit counter does not wrap into the nonce)
    c = ChaCha20.new(key=key, nonce=nonce)
    p = PyCryptodomeChaCha20.new(key=key, nonce=nonce)
    c.seek(limit - 64)
    p.seek(limit - 64)
    assert c.encrypt(bytes(64)) == p.encrypt(bytes(64))


def test_state_rules_and_bad_input():
    c = ChaCha20.new(key=bytes(32), nonce=bytes(12))
    c.encrypt(b"x")
    with pytest.raises(TypeError, match="only be used for encryption"):
        c.decrypt(b"x")
    d = ChaCha20.new(key=bytes(32), nonce=bytes(12))
    d.decrypt(b"x")
    with pytest.raises(TypeError, match="only be used for decryption"):
        d.encrypt(b"x")
    with pytest.raises(ValueError, match="key must be 32 bytes"):
        ChaCha20.new(key=bytes(31), nonce=bytes(12))
    with pytest.raises(ValueError, match="Nonce must be 8/12"):
        ChaCha20.new(key=bytes(32), nonce=bytes(16))
    with pytest.raises(TypeError):
        ChaCha20.new(key=bytes(32), nonce=bytes(12)).encrypt("text")
    with pytest.raises(TypeError):
        ChaCha20.new(key="k" * 32, nonce=bytes(12))
    with pytest.raises(TypeError, match="contiguous"):
        ChaCha20.new(key=bytes(32), nonce=bytes(12)).encrypt(memoryview(bytes(10))[::2])
    with pytest.raises(OverflowError):
        ChaCha20.new(key=bytes(32), nonce=bytes(12)).seek(-1)
    c = ChaCha20.new(key=bytes(32))
    assert len(c.nonce) == 8 and isinstance(c.nonce, bytes)
    assert ChaCha20.block_size == 1 and c.block_size == 1 and ChaCha20.key_size == 32
