"""ChaCha20-Poly1305 and XChaCha20-Poly1305 in pycryptodome's shape: a drop-in
for ``Crypto.Cipher.ChaCha20_Poly1305``.

>>> from poly1305x import ChaCha20_Poly1305
>>> c = ChaCha20_Poly1305.new(key=bytes(32), nonce=bytes(12))
>>> c.update(b"header")
>>> ct, tag = c.encrypt_and_digest(b"secret")
>>> d = ChaCha20_Poly1305.new(key=bytes(32), nonce=bytes(12))
>>> d.update(b"header")
>>> d.decrypt_and_verify(ct, tag)
b'secret'
"""
import os

from poly1305x._core._engine import ChaCha20Poly1305Cipher

__all__ = ["ChaCha20Poly1305Cipher", "new", "key_size"]

key_size = 32


def new(*, key, nonce=None):
    """Create a ChaCha20-Poly1305 (8- or 12-byte nonce, RFC 8439) or
    XChaCha20-Poly1305 (24-byte nonce) cipher; a random 12-byte nonce when
    omitted (see the ``nonce`` attribute).  As in pycryptodome, the nonce is
    bytes, a bytearray or a memoryview (a strided one too), not a list."""
    if len(key) != 32:
        raise ValueError("Key must be 32 bytes long")
    if nonce is None:
        nonce = os.urandom(12)
    if len(nonce) not in (8, 12, 24):
        raise ValueError("Nonce must be 8, 12 or 24 bytes long")
    if isinstance(nonce, str) or not isinstance(nonce, (bytes, bytearray, memoryview)):
        raise TypeError("nonce must be bytes, bytearray or memoryview")
    return ChaCha20Poly1305Cipher(key, nonce)
