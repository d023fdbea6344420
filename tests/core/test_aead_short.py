"""The one-message short path (_short.pxi: one ChaCha20 kernel call for block
0 and the message, one Poly1305 call over the padded MAC input), on every
backend: every length 0..300 and around the path's limits (message and aad),
bytes and other buffers, against cryptography; bad tags on the short path
(InvalidTag, nothing visible); encrypt_into / decrypt_into with the output
aliasing the input; XChaCha20 against pycryptodome; the batch's one-message
and lanes paths around their crossover, mixed in one call."""
import random

import pytest

from poly1305x import ChaCha20_Poly1305 as OurPyCryptodome
from poly1305x._core._engine import chacha20poly1305_open, chacha20poly1305_seal
from poly1305x.aead import ChaCha20Poly1305, InvalidTag, XChaCha20Poly1305
from Crypto.Cipher import ChaCha20_Poly1305 as PyCryptodomeAEAD
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CryptoAEAD

SHORT_MAX = 2048        # _short.pxi's limits
SHORT_AAD = 256
AROUND = sorted({n + d for n in (448, 1024, SHORT_MAX) for d in (-17, -16, -1, 0, 1, 16, 17)})
AAD_AROUND = [SHORT_AAD - 1, SHORT_AAD, SHORT_AAD + 1, 1000]


def _peer_seal(key, nonce, pt, aad):
    return CryptoAEAD(key).encrypt(nonce, pt, aad)


def test_every_length_and_aad_against_cryptography(backend):
    rng = random.Random(0x5407)
    key = rng.randbytes(32)
    ours = ChaCha20Poly1305(key)
    for n in list(range(301)) + AROUND:
        for alen in ([0, 1, 15, 16, 17, 40] if n <= 300 else [0, 16, 40]) + (
                AAD_AROUND if n in (0, 64, SHORT_MAX) else []):
            nonce, pt = rng.randbytes(12), rng.randbytes(n)
            aad = rng.randbytes(alen) if alen else None
            want = _peer_seal(key, nonce, pt, aad)
            assert ours.encrypt(nonce, pt, aad) == want, (n, alen)
            assert ours.decrypt(nonce, want, aad) == pt, (n, alen)


def test_aad_lengths_0_to_40(backend):
    rng = random.Random(40)
    key = rng.randbytes(32)
    ours = ChaCha20Poly1305(key)
    for alen in range(41):
        for n in (0, 1, 63, 64, 65, 255):
            nonce, pt, aad = rng.randbytes(12), rng.randbytes(n), rng.randbytes(alen)
            want = _peer_seal(key, nonce, pt, aad)
            assert ours.encrypt(nonce, pt, aad) == want
            assert ours.decrypt(nonce, want, aad) == pt


@pytest.mark.parametrize("kind", [bytearray, memoryview])
def test_other_buffers_take_the_same_answer(backend, kind):
    rng = random.Random(7)
    key = rng.randbytes(32)
    ours = ChaCha20Poly1305(key)
    for n in (0, 1, 64, 300, SHORT_MAX, SHORT_MAX + 1):
        nonce, pt, aad = rng.randbytes(12), rng.randbytes(n), rng.randbytes(20)
        want = _peer_seal(key, nonce, pt, aad)
        assert ours.encrypt(kind(nonce), kind(pt), kind(aad)) == want
        assert ours.encrypt(nonce, kind(pt), aad) == want
        assert ours.decrypt(nonce, kind(want), kind(aad)) == pt


def test_bad_tags_on_the_short_path(backend):
    rng = random.Random(0xBAD)
    key = rng.randbytes(32)
    ours = ChaCha20Poly1305(key)
    for n in (0, 1, 15, 16, 64, 65, 300, SHORT_MAX):
        nonce, pt, aad = rng.randbytes(12), rng.randbytes(n), rng.randbytes(13)
        ct = bytearray(ours.encrypt(nonce, pt, aad))
        for pos in (0, n // 2, n, n + 15):          # ciphertext and tag bytes
            bad = bytearray(ct)
            bad[pos] ^= 0x01
            with pytest.raises(InvalidTag):
                ours.decrypt(nonce, bytes(bad), aad)
            out = bytearray(b"\xaa" * n)
            with pytest.raises(InvalidTag):
                ours.decrypt_into(nonce, bytes(bad), aad, out)
            assert out == bytes(n)                  # zeros: no plaintext
        with pytest.raises(InvalidTag):
            ours.decrypt(nonce, bytes(ct), aad + b"x")
        with pytest.raises(InvalidTag):
            chacha20poly1305_open(key, nonce, aad, bytes(ct[:-1]) + bytes([ct[-1] ^ 0x80]))
    for n in range(16):                              # too short to hold a tag
        with pytest.raises(InvalidTag):
            ours.decrypt(bytes(12), bytes(n), None)


def test_checks_and_messages_unchanged_on_bytes(backend):
    ours = ChaCha20Poly1305(bytes(32))
    with pytest.raises(ValueError, match="Nonce must be 12 bytes"):
        ours.encrypt(bytes(11), b"abc", None)
    with pytest.raises(ValueError, match="Nonce must be 12 bytes"):
        ours.decrypt(bytes(13), bytes(32), None)
    with pytest.raises(TypeError):
        ours.encrypt(bytes(12), "text", None)
    with pytest.raises(TypeError):
        ours.encrypt(bytes(12), b"abc", "aad")
    with pytest.raises(ValueError, match="Nonce must be 24 bytes"):
        XChaCha20Poly1305(bytes(32)).encrypt(bytes(12), b"abc", None)


def test_into_with_aliasing(backend):
    rng = random.Random(0xA11A5)
    key = rng.randbytes(32)
    ours = ChaCha20Poly1305(key)
    for n in (0, 1, 17, 64, 200, SHORT_MAX - 1, SHORT_MAX + 5):
        nonce, pt, aad = rng.randbytes(12), rng.randbytes(n), rng.randbytes(24)
        want = _peer_seal(key, nonce, pt, aad)
        # the plaintext at the start of the output (in place)
        buf = bytearray(pt + bytes(16))
        view = memoryview(buf)
        assert ours.encrypt_into(nonce, view[:n], aad, buf) == n + 16
        assert bytes(buf) == want
        # the plaintext shifted inside the output (partial overlap)
        for shift in (1, 8):
            buf = bytearray(n + 16 + shift)
            buf[shift:shift + n] = pt
            view = memoryview(buf)
            assert ours.encrypt_into(nonce, view[shift:shift + n], aad, view[:n + 16]) == n + 16
            assert bytes(buf[:n + 16]) == want
        # the aad inside the output
        buf = bytearray(aad + bytes(n + 16))[:n + 16] if n + 16 >= 24 else None
        if buf is not None:
            assert ours.encrypt_into(nonce, pt, memoryview(buf)[:24], buf) == n + 16
            assert bytes(buf) == want
        # decrypt_into in place over the ciphertext
        buf = bytearray(want)
        view = memoryview(buf)
        assert ours.decrypt_into(nonce, bytes(view), aad, view[:n]) == n
        assert bytes(buf[:n]) == pt


def test_xchacha20_and_the_one_shots(backend):
    rng = random.Random(24)
    key = rng.randbytes(32)
    ours = XChaCha20Poly1305(key)
    for n in list(range(0, 300, 7)) + AROUND:
        nonce, pt, aad = rng.randbytes(24), rng.randbytes(n), rng.randbytes(n % 41)
        c = PyCryptodomeAEAD.new(key=key, nonce=nonce)
        c.update(aad)
        ct, tag = c.encrypt_and_digest(pt)
        assert ours.encrypt(nonce, pt, aad) == ct + tag
        assert ours.decrypt(nonce, ct + tag, aad) == pt
        c = OurPyCryptodome.new(key=key, nonce=nonce)
        c.update(aad)
        assert c.encrypt_and_digest(pt) == (ct, tag)
        nonce12 = nonce[:12]
        want = _peer_seal(key, nonce12, pt, aad)
        assert chacha20poly1305_seal(key, nonce12, aad, pt) == want
        assert chacha20poly1305_open(key, nonce12, aad, want) == pt


def test_batch_mixed_around_the_crossover(backend):
    rng = random.Random(0xC0)
    key = rng.randbytes(32)
    ours = ChaCha20Poly1305(key)
    sizes = [0, 64, 256, 257, 320, 448, 960, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096,
             16384, 70000]
    for count in (1, 2, 3, 4, 8, 9, 12, 16, 17, 64):
        nonces = [rng.randbytes(12) for _ in range(count)]
        data = [rng.randbytes(rng.choice(sizes)) for _ in range(count)]
        aads = [rng.randbytes(rng.choice([0, 16, 300])) or None for _ in range(count)]
        want = [_peer_seal(key, n, d, a) for n, d, a in zip(nonces, data, aads)]
        assert ours.encrypt_many(nonces, data, aads) == want
        assert ours.decrypt_many(nonces, want, aads) == data
        if count > 1:
            bad = list(want)
            bad[count // 2] = bytes([bad[count // 2][0] ^ 1]) + bad[count // 2][1:]
            got = ours.decrypt_many(nonces, bad, aads, strict=False)
            assert got[count // 2] is None
            assert [g for i, g in enumerate(got) if i != count // 2] == \
                [d for i, d in enumerate(data) if i != count // 2]


def test_poly1305_one_shots_on_bytes(backend):
    from cryptography.hazmat.primitives.poly1305 import Poly1305 as CryptoPoly1305
    from poly1305x.mac import InvalidSignature, Poly1305
    rng = random.Random(1305)
    for n in list(range(301)) + [4095, 4096, 5000]:
        key, data = rng.randbytes(32), rng.randbytes(n)
        want = CryptoPoly1305.generate_tag(key, data)
        assert Poly1305.generate_tag(key, data) == want
        assert Poly1305.generate_tag(bytearray(key), memoryview(data)) == want
        Poly1305.verify_tag(key, data, want)
        with pytest.raises(InvalidSignature):
            Poly1305.verify_tag(key, data, bytes([want[0] ^ 1]) + want[1:])
        with pytest.raises(InvalidSignature):
            Poly1305.verify_tag(key, data, want[:15])
    with pytest.raises(ValueError, match="A poly1305 key is 32 bytes long"):
        Poly1305.generate_tag(bytes(31), b"abc")
    with pytest.raises(TypeError):
        Poly1305.generate_tag(bytes(32), "abc")


def test_batch_of_one_is_the_one_call(backend):
    rng = random.Random(1)
    key = rng.randbytes(32)
    for cls, nlen in ((ChaCha20Poly1305, 12), (XChaCha20Poly1305, 24)):
        ours = cls(key)
        for n in (0, 1, 64, 300, SHORT_MAX, SHORT_MAX + 1):
            for alen in (0, 16, SHORT_AAD, SHORT_AAD + 1):
                nonce, pt = rng.randbytes(nlen), rng.randbytes(n)
                aad = rng.randbytes(alen) if alen else None
                want = ours.encrypt(nonce, pt, aad)
                assert ours.encrypt_many([nonce], [pt], [aad]) == [want]
                assert ours.encrypt_many([nonce], [pt], None if aad is None else (aad,)) == [want]
                assert ours.encrypt_many((nonce,), [bytearray(pt)], [aad]) == [want]
                assert ours.decrypt_many([nonce], [want], [aad]) == [pt]
        # the batch's own checks still answer for one message
        with pytest.raises(ValueError):
            ours.encrypt_many([bytes(nlen - 1)], [b"abc"], None)
        with pytest.raises(ValueError):
            ours.encrypt_many([bytes(nlen)], [b"abc"], [b"a", b"b"])
        with pytest.raises(TypeError):
            ours.encrypt_many([bytes(nlen)], ["abc"], None)
        with pytest.raises(RuntimeError):
            cls.__new__(cls).encrypt_many([bytes(nlen)], [b"abc"], None)
