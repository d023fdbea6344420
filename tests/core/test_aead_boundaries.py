"""ChaCha20-Poly1305 against cryptography at the lengths where the long
message's loop changes gear, on every backend: around each multiple of the
encrypt-then-MAC slice (16 KiB: the cipher pass then the MAC pass over each
slice, and decryption's private copy of one), of the ChaCha20 kernels' steps
(8 blocks = 512 B on ymm, 16 blocks = 1 KiB on zmm) and of the short-message
path, with odd associated-data lengths; sealed and opened, fresh, in place
and through the _into forms; and the OpenSSH packet framing over the same
loop against asyncssh."""
import random

import pytest

from poly1305x import ChaCha20, ChaCha20_Poly1305, InvalidTag
from poly1305x.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CryptoAEAD

SLICE = 16384
SHORT = 448            # the short path's limit (SHORT_AEAD in _core/_engine.pxd)


def _lengths():
    out = set()
    for base in [k * SLICE for k in range(4)] + [512, 1024, 3 * 512, 5 * 1024, SHORT]:
        for d in (-64, -63, -1, 0, 1, 63, 64):
            if base + d >= 0:
                out.add(base + d)
    return sorted(out)


LENGTHS = _lengths()
AAD_LENGTHS = (0, 1, 15, 17, 33)


def _data(n, seed):
    return random.Random(seed).randbytes(n)


def test_lengths_cover_every_slice_boundary():
    for k in range(4):
        for d in (-64, -63, -1, 0, 1, 63, 64):
            assert k * SLICE + d in LENGTHS or k * SLICE + d < 0


@pytest.mark.parametrize("n", LENGTHS)
def test_seal_open_vs_cryptography(backend, n):
    key, nonce = _data(32, n), _data(12, n + 1)
    aad = _data(AAD_LENGTHS[n % len(AAD_LENGTHS)], n + 2)
    pt = _data(n, n + 3)
    want = CryptoAEAD(key).encrypt(nonce, pt, aad)
    aead = ChaCha20Poly1305(key)
    assert aead.encrypt(nonce, pt, aad) == want
    assert aead.decrypt(nonce, want, aad) == pt
    # the _into forms
    buf = bytearray(n + 16)
    assert aead.encrypt_into(nonce, pt, aad, buf) == n + 16 and buf == want
    out = bytearray(n)
    assert aead.decrypt_into(nonce, want, aad, out) == n and out == pt
    # in place: the input is a view of the output buffer
    buf = bytearray(pt) + bytearray(16)
    assert aead.encrypt_into(nonce, memoryview(buf)[:n], aad, buf) == n + 16 and buf == want
    assert aead.decrypt_into(nonce, bytes(buf), aad, memoryview(buf)[:n]) == n
    assert buf[:n] == pt
    # a bad tag: InvalidTag, and the caller's buffer holds no plaintext
    bad = bytearray(want)
    bad[n // 2 if n else 0] ^= 1
    out = bytearray(b"\xaa" * n)
    with pytest.raises(InvalidTag):
        aead.decrypt_into(nonce, bytes(bad), aad, out)
    assert out == bytes(n)


@pytest.mark.parametrize("n", LENGTHS)
def test_pycryptodome_face_in_place_vs_cryptography(backend, n):
    key, nonce = _data(32, ~n), _data(12, n + 5)
    aad = _data(AAD_LENGTHS[(n + 1) % len(AAD_LENGTHS)], n + 6)
    pt = _data(n, n + 7)
    want = CryptoAEAD(key).encrypt(nonce, pt, aad)
    buf = bytearray(pt)
    c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    c.update(aad)
    assert c.encrypt(buf, output=buf) is None
    assert bytes(buf) == want[:n] and c.digest() == want[n:]
    d = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    d.update(aad)
    d.decrypt(buf, output=buf)
    d.verify(want[n:])
    assert bytes(buf) == pt
    d = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    d.update(aad)
    assert d.decrypt_and_verify(want[:n], want[n:]) == pt


@pytest.mark.parametrize("n", LENGTHS)
def test_chacha20_vs_cryptography(backend, n):
    key, nonce = _data(32, n + 8), _data(12, n + 9)
    pt = _data(n, n + 10)
    # cryptography's 16-byte nonce: the 32-bit block counter (1), then ours
    want = Cipher(algorithms.ChaCha20(key, (1).to_bytes(4, "little") + nonce),
                  None).encryptor().update(pt)
    c = ChaCha20.new(key=key, nonce=nonce)
    c.seek(64)
    assert c.encrypt(pt) == want
    buf = bytearray(pt)
    c = ChaCha20.new(key=key, nonce=nonce)
    c.seek(64)
    assert c.encrypt(buf, output=buf) is None and bytes(buf) == want


@pytest.mark.parametrize("n", [n for n in LENGTHS if n >= 5])
def test_openssh_packet_vs_asyncssh(backend, n):
    from asyncssh import encryption as asyncssh_encryption   # the test extra has it
    from poly1305x.openssh import PacketCipher
    key = _data(64, n + 11)
    pkt = (n - 4).to_bytes(4, "big") + _data(n - 4, n + 12)
    theirs = asyncssh_encryption.get_encryption(b"chacha20-poly1305@openssh.com", key, b"")
    ct, tag = theirs.encrypt_packet(7, pkt[:4], pkt[4:])
    pc = PacketCipher(key)
    assert pc.seal(7, pkt) == ct + tag
    assert pc.open(7, ct + tag) == pkt
