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
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional

from poly1305x._core._engine import ChaCha20Poly1305Cipher

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = ["ChaCha20Poly1305Cipher", "new", "key_size"]

key_size: int = 32


def new(*, key: Buffer, nonce: Optional[Buffer] = None) -> ChaCha20Poly1305Cipher:
    """Create a ChaCha20-Poly1305 (8- or 12-byte nonce, RFC 8439) or
    XChaCha20-Poly1305 (24-byte nonce) cipher; a random 12-byte nonce when
    omitted (see the ``nonce`` attribute).  As in pycryptodome, the nonce is
    bytes, a bytearray or a memoryview (a strided one too), not a list.  The
    checks and messages are the cipher object's (the engine's
    ChaCha20_Poly1305 face)."""
    if nonce is None:
        nonce = os.urandom(12)
    return ChaCha20Poly1305Cipher(key, nonce)
