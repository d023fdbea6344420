"""Type stub for poly1305x.Poly1305 (pycryptodome's Crypto.Hash.Poly1305 face)."""
from typing import Iterable, Optional, Union

from typing_extensions import Buffer

from poly1305x._core._engine import Poly1305_MAC as Poly1305_MAC

__all__ = ["Poly1305_MAC", "new", "mac_with_cipher", "digest_size"]

digest_size: int

# cipher: poly1305x.ChaCha20 / Crypto.Cipher.ChaCha20, a pycryptodome block
# cipher module, a cryptography algorithm class, or a callable
# encrypt_block(key16, block16) -> bytes: anything, checked at run time.
# nonce: with ChaCha20, as pycryptodome, anything bytes() takes (a list of ints too)
def new(*, key: Buffer, cipher: object, nonce: Optional[Union[Buffer, Iterable[int]]] = None,
        data: Optional[Buffer] = None, key_order: str = "kr") -> Poly1305_MAC: ...
def mac_with_cipher(cipher: object, key: Buffer, nonce: Union[Buffer, Iterable[int]],
                    data: Buffer, key_order: str = "kr") -> bytes: ...
