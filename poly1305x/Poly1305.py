"""Poly1305 in pycryptodome's shape: a drop-in for ``Crypto.Hash.Poly1305``.

>>> from poly1305x import Poly1305, ChaCha20
>>> mac = Poly1305.new(key=bytes(32), cipher=ChaCha20, nonce=bytes(12), data=b"hello")
>>> len(mac.digest())
16

``new`` and ``mac_with_cipher`` are compiled, with all of this face's checks
and messages (``poly1305x/_core/_face_Poly1305.pxi``): one call for a ChaCha20
module (poly1305x's, pycryptodome's or pycryptodomex's); every other cipher
goes through the block-cipher adapters of ``poly1305x._core._ciphers``.
"""
from poly1305x._core._engine import Poly1305_MAC, mac_with_cipher, new

__all__ = ["Poly1305_MAC", "new", "mac_with_cipher", "digest_size"]

digest_size: int = 16
