"""Type stub for poly1305x.ChaCha20 (pycryptodome's Crypto.Cipher.ChaCha20 face)."""
from typing import Iterable, Optional, Union

from typing_extensions import Buffer

from poly1305x._core._engine import ChaCha20Cipher as ChaCha20Cipher
from poly1305x._errors import MessageTooLongError as MessageTooLongError

__all__ = ["ChaCha20Cipher", "MessageTooLongError", "new", "block_size", "key_size"]

block_size: int
key_size: int

# nonce: as pycryptodome, anything bytes() takes (a list of ints too)
def new(*, key: Buffer, nonce: Optional[Union[Buffer, Iterable[int]]] = None,
        threads: int = 1) -> ChaCha20Cipher: ...
