"""Type stub for poly1305x.ChaCha20 (pycryptodome's Crypto.Cipher.ChaCha20 face)."""
from typing import Optional

from typing_extensions import Buffer

from poly1305x._engine import ChaCha20Cipher as ChaCha20Cipher
from poly1305x._errors import MessageTooLongError as MessageTooLongError

__all__ = ["ChaCha20Cipher", "MessageTooLongError", "new", "block_size", "key_size"]

block_size: int
key_size: int

def new(*, key: Buffer, nonce: Optional[Buffer] = None, threads: int = 1) -> ChaCha20Cipher: ...
