"""Type stub for poly1305x.ChaCha20_Poly1305 (pycryptodome's
Crypto.Cipher.ChaCha20_Poly1305 face)."""
from typing import Optional

from typing_extensions import Buffer

from poly1305x._core._engine import ChaCha20Poly1305Cipher as ChaCha20Poly1305Cipher

__all__ = ["ChaCha20Poly1305Cipher", "new", "key_size"]

key_size: int

def new(*, key: Buffer, nonce: Optional[Buffer] = None) -> ChaCha20Poly1305Cipher: ...
