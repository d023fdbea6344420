"""Cipher adapters for Poly1305 over a block cipher: turn the ``cipher=``
argument of :func:`poly1305x.Poly1305.new` into a function
``derive(key32, nonce) -> (r, s, nonce)``.

Accepted ciphers:

* a pycryptodome-style module with a 128-bit block (``block_size == 16``,
  ``new(key, MODE_ECB)``), e.g. ``Crypto.Cipher.AES``, ``Cryptodome.Cipher.AES``;
* a ``cryptography`` ``BlockCipherAlgorithm`` class with a 128-bit block that
  takes 128-bit keys: ``algorithms.AES``, ``Camellia``, ``SM4``, ``SEED``...;
* a callable ``encrypt_block(key16, block16) -> 16 bytes``;
* a ChaCha20 module with pycryptodome's ``_derive_Poly1305_key_pair``: r and
  s come from ChaCha20 block 0, and ``key_order`` does not apply.  For the
  modules named in ``CHACHA20_MODULES`` (``poly1305x.ChaCha20``,
  ``Crypto.Cipher.ChaCha20``, ``Cryptodome.Cipher.ChaCha20``; see
  :func:`is_chacha20_module`) the engine computes them itself, on poly1305x's
  kernels; another module's own function is called.

For a block cipher E the 32-byte key is split by ``key_order``:

* ``"kr"`` (Bernstein's Poly1305-AES, pycryptodome): E's key is ``key[0:16]``,
  r is ``key[16:32]``;
* ``"rk"`` (BouncyCastle's ``Poly1305(BlockCipher)``): r is ``key[0:16]``, E's
  key is ``key[16:32]``;

and ``s = E(E's key, nonce)`` for a 16-byte nonce (random when None).  r is
returned unclamped: the MAC clamps it.

The adapters know nothing about Poly1305 arithmetic, and the MAC core knows
nothing about ciphers.  They import nothing of poly1305x: the engine's
Poly1305 face (``_face_Poly1305.pxi``) calls them, and keeps the cache of
which modules are ChaCha20 itself.
"""
import functools as _functools
import os
from types import ModuleType

from poly1305x._errors import KEY_NOT_STR

__all__ = ["key_pair_deriver", "block_encryptor", "is_chacha20_module", "CHACHA20_MODULES"]

KEY_ORDERS = ("kr", "rk")

#: ChaCha20 modules whose Poly1305 key pair poly1305x derives itself: its own,
#: pycryptodome's and pycryptodomex's (all three derive it the same way).
CHACHA20_MODULES = frozenset({"poly1305x.ChaCha20", "Crypto.Cipher.ChaCha20",
                              "Cryptodome.Cipher.ChaCha20"})

# Resolved modules and classes (a small, fixed set in any program); plain
# callables are not cached, since a lambda per call would grow the cache.
_cache: dict = {}


def _name(cipher):
    if isinstance(cipher, ModuleType):
        return cipher.__name__
    qualname = getattr(cipher, "__qualname__", None)
    if qualname is None:
        return repr(cipher)
    module = getattr(cipher, "__module__", None)
    return f"{module}.{qualname}" if module else qualname


def is_chacha20_module(cipher):
    """Whether the module ``cipher`` is one of the ChaCha20 modules of
    CHACHA20_MODULES (a module of that name with ``_derive_Poly1305_key_pair``).
    The engine remembers the answer per module (``_engine.is_chacha20``)."""
    return (getattr(cipher, "__name__", None) in CHACHA20_MODULES
            and hasattr(cipher, "_derive_Poly1305_key_pair"))


def _accepts_16(key_size):
    if key_size is None:
        return True  # the module does not say: let new() decide
    if isinstance(key_size, int):
        return key_size == 16
    try:
        return 16 in key_size
    except TypeError:
        return True


def _pycryptodome_encryptor(mod):
    name = _name(mod)
    block = getattr(mod, "block_size", None)
    if block != 16:
        if block == 1:
            raise ValueError(f"cipher {name} is a stream cipher; Poly1305 needs a "
                             f"128-bit block cipher (or ChaCha20)")
        bits = f"{block * 8}-bit" if isinstance(block, int) else f"block_size={block!r}"
        raise ValueError(f"cipher {name} has a {bits} block; Poly1305 needs a "
                         f"128-bit (16-byte) block cipher")
    if not hasattr(mod, "MODE_ECB"):
        raise ValueError(f"cipher {name} has no MODE_ECB; pass a module with "
                         f"new(key, MODE_ECB), a cryptography algorithm or a callable")
    if not _accepts_16(getattr(mod, "key_size", None)):
        raise ValueError(f"cipher {name} refuses a 16-byte key (key sizes "
                         f"{getattr(mod, 'key_size')!r}); Poly1305 with a block cipher "
                         f"uses a 128-bit cipher key")
    return _functools.partial(_pycryptodome_block, mod.new, mod.MODE_ECB)


def _pycryptodome_block(new, ecb, key, block):
    return new(key, ecb).encrypt(block)


def _cryptography_encryptor(cls):
    from cryptography.hazmat.primitives.ciphers import BlockCipherAlgorithm, Cipher, modes

    name = _name(cls)
    if not issubclass(cls, BlockCipherAlgorithm):
        hint = " (use poly1305x.ChaCha20 for ChaCha20)" if "ChaCha20" in cls.__name__ else ""
        raise ValueError(f"cipher {name} is not a block cipher; Poly1305 needs a "
                         f"128-bit block cipher{hint}")
    if cls.block_size != 128:
        raise ValueError(f"cipher {name} has a {cls.block_size}-bit block; Poly1305 "
                         f"needs a 128-bit block cipher")
    if 128 not in cls.key_sizes:
        raise ValueError(f"cipher {name} refuses a 16-byte key (key sizes in bits: "
                         f"{sorted(cls.key_sizes)}); Poly1305 with a block cipher uses "
                         f"a 128-bit cipher key")
    return _functools.partial(_cryptography_block, Cipher, cls, modes.ECB())


def _cryptography_block(Cipher, cls, ecb, key, block):
    return Cipher(cls(key), ecb).encryptor().update(block)


def _callable_encryptor(fn):
    return _functools.partial(_callable_block, fn, _name(fn))


def _callable_block(fn, name, key, block):
    out = fn(key, block)
    try:
        n = len(out)
    except TypeError:
        raise ValueError(f"cipher callable {name} returned {type(out).__name__}, "
                         f"not 16 bytes") from None
    if n != 16:
        raise ValueError(f"cipher callable {name} returned {n} bytes; "
                         f"encrypt_block(key16, block16) must return 16 bytes")
    return bytes(out)


def block_encryptor(cipher):
    """``encrypt_block(key16, block16) -> bytes`` for ``cipher``, or None when
    ``cipher`` is a ChaCha20 module that derives (r, s) itself.  ValueError
    for anything else."""
    if isinstance(cipher, type) and hasattr(cipher, "key_sizes"):
        return _cryptography_encryptor(cipher)
    if hasattr(cipher, "new") and hasattr(cipher, "block_size"):
        if hasattr(cipher, "_derive_Poly1305_key_pair") and cipher.block_size != 16:
            return None
        return _pycryptodome_encryptor(cipher)
    if hasattr(cipher, "_derive_Poly1305_key_pair"):
        return None
    if callable(cipher):
        return _callable_encryptor(cipher)
    raise ValueError(
        f"Parameter 'cipher' must be AES or ChaCha20, or another 128-bit block cipher: "
        f"a pycryptodome cipher module (e.g. Crypto.Cipher.AES), a cryptography block "
        f"cipher algorithm class (e.g. algorithms.Camellia) or a callable "
        f"encrypt_block(key16, block16) -> 16 bytes; {_name(cipher)} is not supported")


def _bad_key(key, name):
    if isinstance(key, str):
        raise TypeError(KEY_NOT_STR)
    raise ValueError(f"Poly1305 with {name} requires a 32-byte key")


def _bad_nonce(nonce, name):
    if isinstance(nonce, str):
        raise TypeError("nonce must be bytes-like, not str")
    raise ValueError(f"Poly1305 with {name} requires a 16-byte nonce")


def _block_deriver(encrypt_block, key_order, name):
    # s = E(cipher key, nonce); r is the other half of the 32-byte key.
    r_half, k_half = (slice(16, 32), slice(0, 16)) if key_order == "kr" else \
        (slice(0, 16), slice(16, 32))
    return _functools.partial(_block_derive, encrypt_block, r_half, k_half, name)


def _block_derive(encrypt_block, r_half, k_half, name, key, nonce):
    if len(key) != 32 or isinstance(key, str):
        _bad_key(key, name)
    if nonce is None:
        nonce = os.urandom(16)
    elif len(nonce) != 16 or isinstance(nonce, str):
        _bad_nonce(nonce, name)
    return key[r_half], encrypt_block(key[k_half], nonce), nonce


def key_pair_deriver(cipher, key_order="kr"):
    """``derive(key32, nonce) -> (r, s, nonce)`` for ``cipher`` and
    ``key_order`` ("kr" or "rk"); see the module docstring."""
    cacheable = isinstance(cipher, (ModuleType, type))
    if cacheable:
        try:
            return _cache[cipher, key_order]
        except KeyError:
            pass
    if key_order not in KEY_ORDERS:
        raise ValueError(f"key_order must be 'kr' (cipher key first, Poly1305-AES) "
                         f"or 'rk' (r first, BouncyCastle), not {key_order!r}")
    encrypt_block = block_encryptor(cipher)
    if encrypt_block is None:
        if key_order != "kr":
            raise ValueError(f"key_order applies to block ciphers; {_name(cipher)} "
                             f"derives r and s from its key stream")
        derive = cipher._derive_Poly1305_key_pair
    else:
        name = getattr(cipher, "__name__", None) or "the cipher"
        derive = _block_deriver(encrypt_block, key_order, name.rsplit(".", 1)[-1])
    if cacheable:
        _cache[cipher, key_order] = derive
    return derive
