"""Exception classes.

Each one is a ValueError (or, for MessageTooLongError, what pycryptodome's is),
and also a subclass of the matching class of pycryptodome or ``cryptography``
when that package is installed, so existing ``except`` clauses keep working
after switching to poly1305x."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from poly1305x._peers import PYCRYPTODOME_FAMILIES

__all__ = ["AlreadyFinalized", "InvalidSignature", "InvalidTag", "MessageTooLongError",
           "NotContiguousError"]

#: The TypeError for a str key, wherever a key is taken (written once here).
KEY_NOT_STR = "key must be bytes-like, not str"


def _peer(module: str, name: str) -> tuple[type, ...]:
    try:
        mod = __import__(module, fromlist=[name])
        return (getattr(mod, name),)
    except Exception:  # not installed, or too old to have the class
        return ()


class _Bases:
    """A base in a class statement that stands for several classes (PEP 560):
    ``class C(_Bases(A, B))`` is ``class C(A, B)``, with A and B chosen at run
    time.  Type checkers see the TYPE_CHECKING branch below instead."""

    def __init__(self, *classes: type) -> None:
        self.classes = classes

    def __mro_entries__(self, bases: tuple[object, ...]) -> tuple[type, ...]:
        return self.classes


if TYPE_CHECKING:
    # The bases that always hold; the peers' classes join them at run time.
    _InvalidTagBases = ValueError
    _InvalidSignatureBases = ValueError
    _AlreadyFinalizedBases = Exception
    _MessageTooLongBases = ValueError
else:
    _crypto_exc = "cryptography.exceptions"
    _pycryptodome = sum((_peer(family, "MessageTooLongError")
                         for family in PYCRYPTODOME_FAMILIES), ())
    _InvalidTagBases = _Bases(ValueError, *_peer(_crypto_exc, "InvalidTag"))
    _InvalidSignatureBases = _Bases(ValueError, *_peer(_crypto_exc, "InvalidSignature"))
    _AlreadyFinalizedBases = _Bases(*(_peer(_crypto_exc, "AlreadyFinalized") or (Exception,)))
    _MessageTooLongBases = _Bases(*(_pycryptodome or (ValueError, OverflowError)))


class InvalidTag(_InvalidTagBases):
    """An AEAD tag did not match: the ciphertext, the associated data, the
    nonce or the key is not what the sender used.  No plaintext is released.

    From a batch (``decrypt_many``), ``indices`` lists the failing messages;
    None otherwise."""

    indices: Optional[list[int]] = None


class InvalidSignature(_InvalidSignatureBases):
    """A Poly1305 tag did not match."""


class AlreadyFinalized(_AlreadyFinalizedBases):
    """A cryptography-style MAC object was used after finalize()."""


class MessageTooLongError(_MessageTooLongBases):
    """The ChaCha20 key stream for this key and nonce is used up."""


if not TYPE_CHECKING:   # the classes hold their bases; the names were scaffolding
    del _InvalidTagBases, _InvalidSignatureBases, _AlreadyFinalizedBases, _MessageTooLongBases
    # class statements keep the _Bases objects as __orig_bases__, which is what
    # help() and Sphinx show as the bases; the real ones are in __bases__
    for _cls in (InvalidTag, InvalidSignature, AlreadyFinalized, MessageTooLongError):
        del _cls.__orig_bases__
    del _cls


class NotContiguousError(BufferError, TypeError):
    """A buffer argument is not C-contiguous (a strided memoryview, say).  A
    BufferError, as both peers raise, and a TypeError, as poly1305x raised
    before: ``except BufferError`` and ``except TypeError`` both catch it."""
