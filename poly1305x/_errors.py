"""Exception classes.

Each one is a ValueError (or, for MessageTooLongError, what pycryptodome's is),
and also a subclass of the matching class of pycryptodome or ``cryptography``
when that package is installed, so existing ``except`` clauses keep working
after switching to poly1305x."""

from poly1305x._peers import PYCRYPTODOME_FAMILIES

__all__ = ["AlreadyFinalized", "InvalidSignature", "InvalidTag", "MessageTooLongError",
           "NotContiguousError"]

#: The TypeError for a str key, wherever a key is taken (written once here).
KEY_NOT_STR = "key must be bytes-like, not str"


def _peer(module: str, name: str) -> tuple:
    try:
        mod = __import__(module, fromlist=[name])
        return (getattr(mod, name),)
    except Exception:  # not installed, or too old to have the class
        return ()


_crypto_exc = "cryptography.exceptions"


class InvalidTag(ValueError, *_peer(_crypto_exc, "InvalidTag")):  # type: ignore[misc]
    """An AEAD tag did not match: the ciphertext, the associated data, the
    nonce or the key is not what the sender used.  No plaintext is released.

    From a batch (``decrypt_many``), ``indices`` lists the failing messages;
    None otherwise."""

    indices = None


class InvalidSignature(ValueError, *_peer(_crypto_exc, "InvalidSignature")):  # type: ignore[misc]
    """A Poly1305 tag did not match."""


class AlreadyFinalized(*(_peer(_crypto_exc, "AlreadyFinalized") or (Exception,))):  # type: ignore[misc]
    """A cryptography-style MAC object was used after finalize()."""


_pycryptodome = sum((_peer(family, "MessageTooLongError") for family in PYCRYPTODOME_FAMILIES), ())


class MessageTooLongError(*(_pycryptodome or (ValueError, OverflowError))):  # type: ignore[misc]
    """The ChaCha20 key stream for this key and nonce is used up."""


class NotContiguousError(BufferError, TypeError):
    """A buffer argument is not C-contiguous (a strided memoryview, say).  A
    BufferError, as both peers raise, and a TypeError, as poly1305x raised
    before: ``except BufferError`` and ``except TypeError`` both catch it."""
