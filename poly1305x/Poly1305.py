"""Poly1305 in pycryptodome's shape: a drop-in for ``Crypto.Hash.Poly1305``.

>>> from poly1305x import Poly1305, ChaCha20
>>> mac = Poly1305.new(key=bytes(32), cipher=ChaCha20, nonce=bytes(12), data=b"hello")
>>> len(mac.digest())
16
"""
from poly1305x._ciphers import key_pair_deriver as _deriver
from poly1305x._engine import Poly1305 as _OneTimeKey
from poly1305x._engine import Poly1305_MAC

__all__ = ["Poly1305_MAC", "new", "mac_with_cipher", "digest_size"]

digest_size = 16

_tag = _OneTimeKey.generate_tag


def new(*, key, cipher, nonce=None, data=None, key_order="kr"):
    """Create a new Poly1305 MAC object.

    :param key: the 32-byte key.
    :param cipher: what turns the key and nonce into Poly1305's (r, s):

        * ``poly1305x.ChaCha20`` or ``Crypto.Cipher.ChaCha20``: r and s from
          ChaCha20 block 0 (nonce 8 or 12 bytes), as pycryptodome does;
        * any block cipher with a 128-bit block (nonce 16 bytes, s = E(k, nonce)):
          a pycryptodome module such as ``Crypto.Cipher.AES`` (Poly1305-AES; tags
          equal pycryptodome's), a ``cryptography`` algorithm class such as
          ``algorithms.AES``, ``Camellia``, ``SM4`` or ``SEED``, or a callable
          ``encrypt_block(key16, block16) -> 16 bytes``.

        ValueError for a cipher whose block is not 128 bits or that refuses a
        16-byte key.
    :param nonce: never reused under one key; random when omitted (see the
        ``nonce`` attribute).
    :param data: the first chunk of the message.
    :param key_order: for block ciphers, how the key is split: ``"kr"``
        (default; cipher key = key[0:16], r = key[16:32]: Bernstein's
        Poly1305-AES and pycryptodome) or ``"rk"`` (r = key[0:16], cipher key =
        key[16:32]: BouncyCastle's ``Poly1305(BlockCipher)``).
    """
    if key is None:
        raise TypeError("You must pass a parameter 'key'")
    r, s, nonce = _deriver(cipher, key_order)(key, nonce)
    mac = Poly1305_MAC(r, s, data)
    mac.nonce = bytes(nonce)
    return mac


def mac_with_cipher(cipher, key, nonce, data, key_order="kr"):
    """The 16-byte tag of ``data`` in one call, with no MAC object: the same
    tag as ``new(key=key, cipher=cipher, nonce=nonce, data=data,
    key_order=key_order).digest()``.  ``nonce`` is required."""
    if nonce is None:
        raise TypeError("mac_with_cipher() needs the nonce (a tag is useless "
                        "without it); use new() for a random one")
    r, s, _ = _deriver(cipher, key_order)(key, nonce)
    return _tag(b"".join((r, s)), data)
