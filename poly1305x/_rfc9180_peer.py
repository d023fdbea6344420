"""rfc9180's side of :func:`poly1305x.hpke.use_with_rfc9180`: imported by it on
first use, never at package import.  It imports rfc9180 at the top and holds,
as this module's functions, what goes into rfc9180's classes:
``AEADBase._get_cipher`` (:func:`get_cipher`, through the switch) and the
serialising ``Context.seal`` and ``open`` (:func:`wrap_context`, once).

rfc9180.primitives.aead.AEADBase picks its cipher factory once, in __init__,
by calling self._get_cipher(); every HPKE object (and so every context) builds
its own AEADBase.  Replacing that one method on the class makes the
ChaCha20-Poly1305 AEADBase objects built afterwards use
poly1305x.aead.ChaCha20Poly1305, whose encrypt/decrypt have the shape
AEADBase.seal/open call.  AES-GCM and export-only are passed to the original.

rfc9180's Context.seal/open read self.seq, run the AEAD, then store seq + 1.
poly1305x releases the GIL while it encrypts (from 4 KiB), which would widen
that read-then-write into a nonce-reuse window for threads sharing one
context.  So, once use_with_rfc9180() has been switched on, seal and open of
each context whose AEAD runs on poly1305x are serialised on a lock of that
context (rfc9180's own methods run inside it, unchanged).  Contexts on
rfc9180's own cipher pass straight through.  The wrappers stay after
use_with_rfc9180(False): contexts built while it was on still run on
poly1305x, and still need the lock."""
from __future__ import annotations

import threading
from typing import Any

from poly1305x._core._engine import ChaCha20Poly1305 as _AEAD
from poly1305x._peers import install_hint
from poly1305x.hpke import AEAD_ID

try:
    from rfc9180.context import Context
    from rfc9180.primitives.aead import AEADBase
except ImportError:       # (the missing module stays the exception's context)
    raise ImportError("use_with_rfc9180() needs rfc9180: " + install_hint("rfc9180"))

# rfc9180's methods ours delegate to: AEADBase._get_cipher as found when
# enabled; Context.seal and open as found when first wrapped.
ORIGINAL: dict[str, Any] = {}
_lock = threading.Lock()  # guards the wrapping and each context's lock creation


def get_cipher(self: Any) -> Any:
    if int(self.aead_id) == AEAD_ID:
        return _AEAD
    return ORIGINAL["_get_cipher"](self)


def bindings() -> list[tuple[Any, str, Any]]:
    """The switch's one binding (called under its lock)."""
    current = AEADBase._get_cipher
    if current is not get_cipher:
        ORIGINAL["_get_cipher"] = current
    return [(AEADBase, "_get_cipher", get_cipher)]


def _context_lock(ctx: Any) -> Any:
    lock = ctx.__dict__.get("_poly1305x_lock")
    if lock is None:
        with _lock:
            lock = ctx.__dict__.setdefault("_poly1305x_lock", threading.Lock())
    return lock


def seal(self: Any, *args: Any, **kwargs: Any) -> Any:
    if getattr(self.aead, "cipher", None) is not _AEAD:
        return ORIGINAL["seal"](self, *args, **kwargs)
    with _context_lock(self):
        return ORIGINAL["seal"](self, *args, **kwargs)


def open(self: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A001 (rfc9180's name)
    if getattr(self.aead, "cipher", None) is not _AEAD:
        return ORIGINAL["open"](self, *args, **kwargs)
    with _context_lock(self):
        return ORIGINAL["open"](self, *args, **kwargs)


def wrap_context() -> None:
    """Put the serialising seal and open into rfc9180's Context, once."""
    with _lock:
        if "seal" in ORIGINAL:
            return
        for ours in (seal, open):
            method = vars(Context)[ours.__name__]
            ORIGINAL[ours.__name__] = method
            ours.__qualname__ = method.__qualname__
            ours.__doc__ = method.__doc__
            ours.__wrapped__ = method  # type: ignore[attr-defined]
            setattr(Context, ours.__name__, ours)
