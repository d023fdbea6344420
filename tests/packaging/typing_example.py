"""A typed user of poly1305x's public API: `mypy --strict` must accept it with
the installed package's types (inline annotations, and the .pyi stubs of the
compiled modules; tests/packaging/test_typing.py, nox -s stubtest), and it
runs.  Not collected by pytest.

The assert_type lines pin what the types promise; one that drifts to Any or
to a wrong type fails mypy here."""
import os
from typing import List

from typing_extensions import assert_type

import poly1305x
from poly1305x import ChaCha20, ChaCha20_Poly1305, Poly1305, hpke
from poly1305x._core._engine import ChaCha20Cipher, ChaCha20Poly1305Cipher, Poly1305_MAC
from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305
from poly1305x.mac import Poly1305 as CryptographyPoly1305


def backends() -> List[str]:
    names = poly1305x.backends()
    assert_type(names, List[str])
    assert_type(poly1305x.backend(), str)
    assert_type(poly1305x.cpu_features(), frozenset[str])
    poly1305x.set_backend(names[0])
    return names


def pycryptodome_face(key: bytes) -> bytes:
    mac = Poly1305.new(key=key, cipher=ChaCha20, nonce=bytes(12), data=b"hello")
    assert_type(mac, Poly1305_MAC)
    tag = mac.update(b" world").digest()
    assert_type(tag, bytes)
    mac.verify(tag)
    assert_type(Poly1305.mac_with_cipher(ChaCha20, key, bytes(12), b"hello world"), bytes)

    c = ChaCha20.new(key=key, nonce=bytes(12))
    assert_type(c, ChaCha20Cipher)
    ct = c.encrypt(b"attack at dawn")
    assert_type(ct, bytes)
    out = bytearray(len(ct))
    d = ChaCha20.new(key=key, nonce=bytes(12))
    assert_type(d.decrypt(ct, output=out), None)
    assert bytes(out) == b"attack at dawn"

    aead = ChaCha20_Poly1305.new(key=key, nonce=bytes(24))
    assert_type(aead, ChaCha20Poly1305Cipher)
    aead.update(b"header")
    ct, tag = aead.encrypt_and_digest(b"secret")
    aead2 = ChaCha20_Poly1305.new(key=key, nonce=bytes(24))
    aead2.update(b"header")
    pt = aead2.decrypt_and_verify(ct, tag)
    assert_type(pt, bytes)
    return pt


def cryptography_face(key: bytes) -> bytes:
    tag = CryptographyPoly1305.generate_tag(key, b"message")
    CryptographyPoly1305.verify_tag(key, b"message", tag)
    m = CryptographyPoly1305(key)
    m.update(memoryview(b"message"))
    assert m.finalize() == tag

    k = ChaCha20Poly1305(ChaCha20Poly1305.generate_key())
    ct = k.encrypt(bytes(12), b"data", None)
    try:
        k.decrypt(bytes(12), ct[:-1] + bytes([ct[-1] ^ 1]), None)
    except poly1305x.InvalidTag as exc:
        assert isinstance(exc, ValueError)
    x = XChaCha20Poly1305(os.urandom(32))
    buf = bytearray(4 + 16)
    n = x.encrypt_into(bytes(24), b"data", b"aad", buf)
    assert_type(n, int)
    return k.decrypt(bytes(12), ct, None)


def hpke_face(key: bytes) -> bytes:
    base_nonce = bytes(range(1, 13))
    ctx = hpke.Context(key, base_nonce)
    ct = ctx.seal(b"aad", b"payload")
    assert_type(ct, bytes)
    return hpke.Context(key, base_nonce).open(b"aad", ct)


def install_face() -> None:
    try:
        names = poly1305x.install()
    except ImportError:
        return
    assert_type(names, tuple[str, ...])
    poly1305x.uninstall()


if __name__ == "__main__":
    key = os.urandom(32)
    print(backends())
    assert pycryptodome_face(key) == b"secret"
    assert cryptography_face(key) == b"data"
    assert hpke_face(key) == b"payload"
    install_face()
    print("typing example ran")
