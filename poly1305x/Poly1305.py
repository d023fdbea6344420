"""Poly1305 in pycryptodome's shape: a drop-in for ``Crypto.Hash.Poly1305``.

>>> from poly1305x import Poly1305, ChaCha20
>>> mac = Poly1305.new(key=bytes(32), cipher=ChaCha20, nonce=bytes(12), data=b"hello")
>>> len(mac.digest())
16
"""
from poly1305x._engine import Poly1305_MAC

__all__ = ["Poly1305_MAC", "new", "digest_size"]

digest_size = 16


def new(*, key, cipher, nonce=None, data=None):
    """Create a new Poly1305 MAC object.

    :param key: the 32-byte key.
    :param cipher: ``poly1305x.ChaCha20`` or ``Crypto.Cipher.ChaCha20`` (r and s
        from ChaCha20 block 0, nonce 8 or 12 bytes), or ``Crypto.Cipher.AES``
        (Poly1305-AES, nonce 16 bytes): any module with pycryptodome's
        ``_derive_Poly1305_key_pair``.
    :param nonce: never reused under one key; random when omitted (see the
        ``nonce`` attribute).
    :param data: the first chunk of the message.
    """
    if not hasattr(cipher, "_derive_Poly1305_key_pair"):
        raise ValueError("Parameter 'cipher' must be AES or ChaCha20")
    if key is None:
        raise TypeError("You must pass a parameter 'key'")
    r, s, nonce = cipher._derive_Poly1305_key_pair(key, nonce)
    mac = Poly1305_MAC(r, s, data)
    mac.nonce = bytes(nonce)
    return mac
