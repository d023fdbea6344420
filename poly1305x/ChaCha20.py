"""ChaCha20 and XChaCha20 in pycryptodome's shape: a drop-in for
``Crypto.Cipher.ChaCha20``.

>>> from poly1305x import ChaCha20
>>> c = ChaCha20.new(key=bytes(32), nonce=bytes(12))
>>> ct = c.encrypt(b"attack at dawn")
>>> ChaCha20.new(key=bytes(32), nonce=bytes(12)).decrypt(ct)
b'attack at dawn'
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable, Optional, Union

from poly1305x._core._engine import ChaCha20Cipher, chacha20_poly1305_key_pair, hchacha20_subkey
from poly1305x._errors import MessageTooLongError

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = ["ChaCha20Cipher", "MessageTooLongError", "new", "block_size", "key_size"]

block_size: int = 1
key_size: int = 32


class _Kernels:
    """Stands where pycryptodome keeps its C library handles (``_raw_chacha20_lib``
    and friends).  poly1305x loads no such library: its kernels are the backend
    chosen with :func:`poly1305x.set_backend`, so rebinding these names changes
    nothing.  They exist so that code (and pycryptodome's own tests) that look
    them up keep working."""

    def __repr__(self) -> str:
        return "<poly1305x ChaCha20 kernels: the active backend (poly1305x.set_backend)>"


_raw_chacha20_lib = _raw_chacha20_portable_lib = _Kernels()
_raw_chacha20_avx2_bmi2_lib: None = None

#: With several threads, each one processes at least this many bytes
#: (pycryptodome's private tuning knob, mirrored: ``new()`` reads it).
_MIN_BYTES_PER_THREAD = 1024 * 1024


def _HChaCha20(key: Buffer, nonce: Buffer) -> bytearray:
    """HChaCha20 subkey derivation (pycryptodome's private helper, mirrored)."""
    return hchacha20_subkey(key, nonce)


#: (r, s, nonce) for Poly1305 from ChaCha20 block 0; a random 12-byte nonce
#: when ``nonce`` is None.  pycryptodome's private helper, mirrored (its tests
#: call it); ``Poly1305.new`` derives the pair itself, in one call.
_derive_Poly1305_key_pair = chacha20_poly1305_key_pair


# nonce: as pycryptodome, anything bytes() takes (a list of ints too)
def new(*, key: Buffer, nonce: Optional[Union[Buffer, Iterable[int]]] = None,
        threads: int = 1) -> ChaCha20Cipher:
    """Create a ChaCha20 (8- or 12-byte nonce) or XChaCha20 (24-byte nonce)
    cipher.  The nonce is any bytes-like object or, as in pycryptodome,
    anything ``bytes()`` takes (a list of ints); random (8 bytes) when omitted.  ``threads`` > 1 (0: all
    cores) splits inputs of 2 MiB and more across threads, without the GIL.
    The checks and messages are the cipher object's (the engine's ChaCha20
    face)."""
    if nonce is None:
        nonce = os.urandom(8)
    if threads == 1 and type(threads) is int:
        return ChaCha20Cipher(key, nonce)
    return ChaCha20Cipher(key, nonce, threads, _MIN_BYTES_PER_THREAD)
