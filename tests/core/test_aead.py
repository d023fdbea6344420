"""ChaCha20-Poly1305 and XChaCha20-Poly1305, both faces: RFC 8439 and
Wycheproof vectors, the XChaCha draft vector, differential tests against
cryptography and pycryptodome with random splits, tampering and bad input,
on every backend."""
import json
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import poly1305x
from poly1305x import ChaCha20_Poly1305, InvalidTag
from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305
from poly1305x._kernels._vectors import AEAD_2_8_2
from tests.support.helpers import chunks, flipped, h, run_threads
from tests.support.reference import chacha20_poly1305_seal as ref_seal
from Crypto.Cipher import ChaCha20_Poly1305 as PyCryptodomeAEAD
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CryptoAEAD

VECTORS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "vectors")


def wycheproof(name):
    with open(os.path.join(VECTORS, name)) as fh:
        data = json.load(fh)
    cases = []
    for group in data["testGroups"]:
        for t in group["tests"]:
            cases.append(t)
    return cases


CHACHA_CASES = wycheproof("chacha20_poly1305_test.json")
XCHACHA_CASES = wycheproof("xchacha20_poly1305_test.json")


def _check_wycheproof(backend, cases, cls, nonce_len):
    ran = 0
    for t in cases:
        key, iv, aad = h(t["key"]), h(t["iv"]), h(t["aad"])
        msg, ct, tag = h(t["msg"]), h(t["ct"]), h(t["tag"])
        valid = t["result"] == "valid"
        if len(iv) != nonce_len or len(key) != 32:
            # invalid parameter sizes must be refused, never processed
            assert not valid
            with pytest.raises(ValueError):
                if len(key) != 32:
                    cls(key)
                else:
                    cls(key).decrypt(iv, ct + tag, aad)
            with pytest.raises(ValueError):
                ChaCha20_Poly1305.new(key=key, nonce=iv).decrypt_and_verify(ct, tag)
            ran += 1
            continue
        if valid:
            assert cls(key).encrypt(iv, msg, aad) == ct + tag, t["tcId"]
            assert cls(key).decrypt(iv, ct + tag, aad) == msg, t["tcId"]
            c = ChaCha20_Poly1305.new(key=key, nonce=iv)
            c.update(aad)
            assert c.encrypt_and_digest(msg) == (ct, tag)
        else:
            with pytest.raises(InvalidTag):
                cls(key).decrypt(iv, ct + tag, aad)
            c = ChaCha20_Poly1305.new(key=key, nonce=iv)
            c.update(aad)
            with pytest.raises(ValueError, match="MAC check failed"):
                c.decrypt_and_verify(ct, tag)
        ran += 1
    assert ran == len(cases)


def test_wycheproof_chacha20_poly1305(backend):
    assert len(CHACHA_CASES) >= 300
    _check_wycheproof(backend, CHACHA_CASES, ChaCha20Poly1305, 12)


def test_wycheproof_xchacha20_poly1305(backend):
    assert len(XCHACHA_CASES) >= 280
    _check_wycheproof(backend, XCHACHA_CASES, XChaCha20Poly1305, 24)


SUNSCREEN = AEAD_2_8_2["pt"]


# RFC 8439 section 2.8.2 and draft-irtf-cfrg-xchacha-03 appendix A.3.1 seal the
# same text under the same key and aad: (cryptography face, nonce, ct, tag).
SUNSCREEN_VECTORS = [
    pytest.param(ChaCha20Poly1305, AEAD_2_8_2["nonce"].hex(), AEAD_2_8_2["ct"].hex(),
                 AEAD_2_8_2["tag"].hex(), id="rfc8439-2.8.2"),
    pytest.param(XChaCha20Poly1305, "404142434445464748494a4b4c4d4e4f5051525354555657",
                 "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6"
                 "440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c"
                 "1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e",
                 "c0875924c1c7987947deafd8780acf49", id="xchacha-draft-A.3.1"),
]


@pytest.mark.parametrize("cls, nonce, ct, tag", SUNSCREEN_VECTORS)
def test_sunscreen_vectors(backend, cls, nonce, ct, tag):
    key = h("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
    aad = h("50515253c0c1c2c3c4c5c6c7")
    nonce, ct, tag = h(nonce), h(ct), h(tag)
    assert ref_seal(key, nonce, aad, SUNSCREEN) == (ct, tag)
    assert cls(key).encrypt(nonce, SUNSCREEN, aad) == ct + tag
    c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    c.update(aad)
    assert c.encrypt_and_digest(SUNSCREEN) == (ct, tag)


@pytest.mark.parametrize("seed", range(4))
def test_random_vs_cryptography_and_pycryptodome(backend, seed):
    rng = random.Random(seed)
    for _ in range(20):
        key, nonce = rng.randbytes(32), rng.randbytes(12)
        aad = rng.randbytes(rng.randrange(300))
        pt = rng.randbytes(rng.choice([0, 1, 15, 16, 64, 447, 448, 449, 512, 4096,
                                        rng.randrange(20000)]))
        expected = CryptoAEAD(key).encrypt(nonce, pt, aad)
        assert ChaCha20Poly1305(key).encrypt(nonce, pt, aad) == expected
        assert ChaCha20Poly1305(key).decrypt(nonce, expected, aad) == pt
        # pycryptodome face, with aad and data split at random
        c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        for piece in chunks(aad, rng, 50):
            c.update(piece)
        ct = b"".join(c.encrypt(p) for p in chunks(pt, rng))
        assert ct + c.digest() == expected
        d = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        d.update(aad)
        out = b"".join(d.decrypt(p) for p in chunks(expected[:-16], rng))
        d.verify(expected[-16:])
        assert out == pt
        p = PyCryptodomeAEAD.new(key=key, nonce=nonce)
        p.update(aad)
        assert p.encrypt_and_digest(pt) == (expected[:-16], expected[-16:])


@pytest.mark.parametrize("nonce_len", [8, 24])
def test_8_and_24_byte_nonces_vs_pycryptodome(backend, nonce_len):
    rng = random.Random(nonce_len)
    for n in (0, 100, 5000, 70000):
        key, nonce, aad, pt = rng.randbytes(32), rng.randbytes(nonce_len), rng.randbytes(20), rng.randbytes(n)
        theirs = PyCryptodomeAEAD.new(key=key, nonce=nonce)
        theirs.update(aad)
        ours = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        ours.update(aad)
        assert ours.encrypt_and_digest(pt) == theirs.encrypt_and_digest(pt)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(pt=st.binary(max_size=3000), aad=st.binary(max_size=300),
       cuts=st.lists(st.integers(0, 3000), max_size=6))
def test_hypothesis_splits(backend, pt, aad, cuts):
    key, nonce = bytes(range(32)), bytes(range(12))
    expected = CryptoAEAD(key).encrypt(nonce, pt, aad)
    c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    c.update(aad)
    prev, parts = 0, []
    for cut in sorted(cuts):
        cut = min(cut, len(pt))
        parts.append(c.encrypt(pt[prev:cut]))
        prev = cut
    parts.append(c.encrypt(pt[prev:]))
    assert b"".join(parts) + c.digest() == expected


def test_long_message(backend):
    rng = random.Random(2)
    key, nonce = rng.randbytes(32), rng.randbytes(12)
    pt = rng.randbytes((3 << 20) + 11)
    expected = CryptoAEAD(key).encrypt(nonce, pt, b"aad")
    assert ChaCha20Poly1305(key).encrypt(nonce, pt, b"aad") == expected
    assert ChaCha20Poly1305(key).decrypt(nonce, expected, b"aad") == pt
    c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    c.update(b"aad")
    assert c.encrypt_and_digest(pt) == (expected[:-16], expected[-16:])


def test_tamper_every_byte(backend):
    key, nonce, aad = bytes(range(32)), bytes(12), b"header"
    pt = b"attack at dawn, with 40 bytes of text..."
    sealed = ChaCha20Poly1305(key).encrypt(nonce, pt, aad)
    aead = ChaCha20Poly1305(key)
    for i in range(len(sealed)):
        with pytest.raises(InvalidTag):
            aead.decrypt(nonce, flipped(sealed, i), aad)
    for i in range(len(aad)):
        bad_aad = bytearray(aad)
        bad_aad[i] ^= 0x80
        with pytest.raises(InvalidTag):
            aead.decrypt(nonce, sealed, bytes(bad_aad))
    for i in range(12):
        bad_nonce = bytearray(nonce)
        bad_nonce[i] ^= 1
        with pytest.raises(InvalidTag):
            aead.decrypt(bytes(bad_nonce), sealed, aad)
    with pytest.raises(InvalidTag):
        aead.decrypt(nonce, sealed[:15], aad)
    with pytest.raises(InvalidTag):
        aead.decrypt(nonce, sealed, None)


@pytest.mark.parametrize("n", [40, 100000])
def test_failed_tag_leaves_no_plaintext(backend, n):
    key, nonce = bytes(range(32)), bytes(12)
    pt = b"\x42" * n
    sealed = bytearray(ChaCha20Poly1305(key).encrypt(nonce, pt, None))
    sealed[-1] ^= 1
    out = bytearray(n)
    with pytest.raises(InvalidTag):
        ChaCha20Poly1305(key).decrypt_into(nonce, bytes(sealed), None, out)
    assert out == bytes(n)
    c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    with pytest.raises(ValueError, match="MAC check failed"):
        c.decrypt_and_verify(bytes(sealed[:-16]), bytes(sealed[-16:]))


def test_encrypt_into_decrypt_into(backend):
    key, nonce = bytes(range(32)), bytes(range(12))
    pt = bytes(range(256)) * 30
    expected = CryptoAEAD(key).encrypt(nonce, pt, b"a")
    aead = ChaCha20Poly1305(key)
    buf = bytearray(len(pt) + 16)
    assert aead.encrypt_into(nonce, pt, b"a", buf) == len(buf)
    assert buf == expected
    out = bytearray(len(pt))
    assert aead.decrypt_into(nonce, bytes(buf), b"a", out) == len(pt)
    assert out == pt
    with pytest.raises(ValueError, match="buffer must be"):
        aead.encrypt_into(nonce, pt, b"a", bytearray(len(pt)))
    with pytest.raises(TypeError, match="not writable"):
        aead.encrypt_into(nonce, pt, b"a", bytes(len(pt) + 16))
    with pytest.raises(ValueError, match="buffer must be"):
        aead.decrypt_into(nonce, bytes(buf), b"a", bytearray(len(pt) + 1))


def test_pycryptodome_output_and_in_place(backend):
    key, nonce = bytes(range(32)), bytes(range(12))
    pt = bytes(range(200)) * 50
    c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    ct, tag = c.encrypt_and_digest(pt)
    buf = bytearray(pt)
    e = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    assert e.encrypt(buf, output=buf) is None
    assert buf == ct and e.digest() == tag
    d = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    d.decrypt(buf, output=buf)
    d.verify(tag)
    assert buf == pt
    with pytest.raises(ValueError, match="same length"):
        ChaCha20_Poly1305.new(key=key, nonce=nonce).encrypt(pt, output=bytearray(3))
    with pytest.raises(TypeError):
        ChaCha20_Poly1305.new(key=key, nonce=nonce).encrypt(pt, output=bytes(len(pt)))


def test_pycryptodome_state_machine():
    key = bytes(32)
    c = ChaCha20_Poly1305.new(key=key, nonce=bytes(12))
    c.update(b"a")
    c.encrypt(b"b")
    with pytest.raises(TypeError, match="update"):
        c.update(b"a")
    with pytest.raises(TypeError, match="decrypt"):
        c.decrypt(b"a")
    with pytest.raises(TypeError, match="verify"):
        c.verify(bytes(16))
    tag = c.digest()
    assert c.digest() == tag and c.hexdigest() == tag.hex()
    with pytest.raises(TypeError, match="encrypt"):
        c.encrypt(b"x")
    d = ChaCha20_Poly1305.new(key=key, nonce=bytes(12))
    d.decrypt(b"x")
    with pytest.raises(TypeError, match="encrypt"):
        d.encrypt(b"x")
    with pytest.raises(TypeError, match="digest"):
        d.digest()
    r = ChaCha20_Poly1305.new(key=key)
    assert len(r.nonce) == 12
    with pytest.raises(ValueError, match="Key must be 32 bytes"):
        ChaCha20_Poly1305.new(key=bytes(16), nonce=bytes(12))
    with pytest.raises(ValueError, match="Nonce must be 8, 12 or 24"):
        ChaCha20_Poly1305.new(key=key, nonce=bytes(13))
    with pytest.raises(TypeError):
        ChaCha20_Poly1305.new(key=key, nonce="n" * 12)
    with pytest.raises(TypeError):
        ChaCha20_Poly1305.new(key=key, nonce=bytes(12)).encrypt("text")
    assert ChaCha20_Poly1305.key_size == 32


def test_cryptography_face_errors():
    with pytest.raises(ValueError, match="key must be 32 bytes"):
        ChaCha20Poly1305(bytes(31))
    with pytest.raises(TypeError):
        ChaCha20Poly1305("k" * 32)
    with pytest.raises(ValueError, match="key must be 32 bytes"):
        XChaCha20Poly1305(bytes(16))
    aead = ChaCha20Poly1305(ChaCha20Poly1305.generate_key())
    with pytest.raises(ValueError, match="Nonce must be 12 bytes"):
        aead.encrypt(bytes(11), b"x", None)
    with pytest.raises(ValueError, match="Nonce must be 24 bytes"):
        XChaCha20Poly1305(bytes(32)).encrypt(bytes(12), b"x", None)
    with pytest.raises(TypeError):
        aead.encrypt(bytes(12), "text", None)
    with pytest.raises(TypeError):
        aead.encrypt(bytes(12), b"x", "aad")
    with pytest.raises(TypeError, match="contiguous"):
        aead.encrypt(bytes(12), memoryview(bytes(10))[::2], None)
    assert len(ChaCha20Poly1305.generate_key()) == 32


def test_invalid_tag_is_cryptographys_too():
    from cryptography.exceptions import InvalidTag as CInvalidTag
    with pytest.raises(CInvalidTag):
        ChaCha20Poly1305(bytes(32)).decrypt(bytes(12), bytes(20), None)
    assert issubclass(InvalidTag, ValueError)


def test_shared_object_across_threads(backend):
    aead = ChaCha20Poly1305(bytes(range(32)))
    ref = CryptoAEAD(bytes(range(32)))
    errors = []

    def work(seed):
        rng = random.Random(seed)
        for _ in range(200):
            nonce, pt = rng.randbytes(12), rng.randbytes(rng.randrange(9000))
            if aead.encrypt(nonce, pt, b"x") != ref.encrypt(nonce, pt, b"x"):
                errors.append(seed)

    run_threads(work, 4)
    assert errors == []
