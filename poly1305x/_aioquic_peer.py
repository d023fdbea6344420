"""aioquic's side of :func:`poly1305x.quic.use_with_aioquic`: imported by it on
first use, never at package import.  It imports aioquic at the top and holds
:func:`AEAD` and :func:`HeaderProtection`, the two callables the switch puts
behind ``aioquic.quic.crypto``'s names: poly1305x's objects for the ChaCha20
names, aioquic's own classes (``aioquic._crypto``'s) for the rest."""
from __future__ import annotations

from typing import Any

from poly1305x import quic
from poly1305x._peers import install_hint

try:
    import aioquic._crypto as CRYPTO
    import aioquic.quic.crypto as QUIC_CRYPTO
except ImportError:       # (the missing module stays the exception's context)
    raise ImportError("poly1305x.quic needs aioquic: " + install_hint("quic"))


def AEAD(cipher_name: bytes, key: bytes, iv: bytes) -> Any:
    """aioquic's ``AEAD(cipher_name, key, iv)``: poly1305x for
    chacha20-poly1305 (iv length first, as aioquic checks it)."""
    if cipher_name == quic.AEAD_NAME:
        if len(iv) != 12:
            raise CRYPTO.CryptoError("Invalid iv length")
        return quic.QuicChaCha20AEAD(key, iv, CRYPTO.CryptoError)
    return CRYPTO.AEAD(cipher_name, key, iv)


def HeaderProtection(cipher_name: bytes, key: bytes) -> Any:
    """aioquic's ``HeaderProtection(cipher_name, key)``: poly1305x for
    chacha20."""
    if cipher_name == quic.HP_NAME:
        return quic.QuicChaCha20HeaderProtection(key, CRYPTO.CryptoError)
    return CRYPTO.HeaderProtection(cipher_name, key)


def bindings() -> list[tuple[Any, str, Any]]:
    """The switch's bindings (called under its lock)."""
    return [(QUIC_CRYPTO, "AEAD", AEAD), (QUIC_CRYPTO, "HeaderProtection", HeaderProtection)]
