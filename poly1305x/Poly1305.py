"""Poly1305 in pycryptodome's shape: a drop-in for ``Crypto.Hash.Poly1305``.

>>> from poly1305x import Poly1305, ChaCha20
>>> mac = Poly1305.new(key=bytes(32), cipher=ChaCha20, nonce=bytes(12), data=b"hello")
>>> len(mac.digest())
16

``new`` is compiled (``poly1305x._core._engine.new``): one call for a ChaCha20
module (poly1305x's, pycryptodome's or pycryptodomex's); every other cipher
comes back to ``_new_other`` below.
"""
from poly1305x._core import _engine
from poly1305x._ciphers import is_chacha20 as _is_chacha20
from poly1305x._ciphers import key_pair_deriver as _deriver
from poly1305x._core._engine import Poly1305 as _OneTimeKey
from poly1305x._core._engine import Poly1305_MAC
from poly1305x._core._engine import poly1305_chacha20_new as _chacha20_new
from poly1305x._core._engine import poly1305_chacha20_tag as _chacha20_tag
from poly1305x._core._engine import new

__all__ = ["Poly1305_MAC", "new", "mac_with_cipher", "digest_size"]

digest_size = 16

_tag = _OneTimeKey.generate_tag


def _new_other(key, cipher, nonce, data, key_order):
    """``new()`` for what the engine's fast path does not know: a ChaCha20
    module seen for the first time, a block cipher, a callable."""
    if key_order == "kr" and _is_chacha20(cipher):     # remembered from now on
        return _chacha20_new(key, nonce, data)
    derive = _deriver(cipher, key_order)                # ValueError for a bad cipher
    if key is None:
        raise TypeError("You must pass a parameter 'key'")
    r, s, nonce = derive(key, nonce)
    mac = Poly1305_MAC(r, s, data)
    mac.nonce = bytes(nonce)
    return mac


_engine.set_poly1305_new_other(_new_other)


def mac_with_cipher(cipher, key, nonce, data, key_order="kr"):
    """The 16-byte tag of ``data`` in one call, with no MAC object: the same
    tag as ``new(key=key, cipher=cipher, nonce=nonce, data=data,
    key_order=key_order).digest()``.  ``nonce`` is required."""
    if nonce is None:
        raise TypeError("mac_with_cipher() needs the nonce (a tag is useless "
                        "without it); use new() for a random one")
    if key_order == "kr" and _is_chacha20(cipher):
        return _chacha20_tag(key, nonce, data)
    r, s, _ = _deriver(cipher, key_order)(key, nonce)
    return _tag(b"".join((r, s)), data)
