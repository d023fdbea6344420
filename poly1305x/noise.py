"""ChaCha20-Poly1305 for the Noise Protocol Framework, through noiseprotocol.

noiseprotocol picks the functions of a protocol name from a *backend*: an
object with tables ``ciphers``, ``hashes``, ``diffie_hellmans``... keyed by the
names in the protocol name.  ``NoiseConnection.from_name(name, backend=...)``
takes one, and the module-level default backend is used when none is given.
Two ways in:

* :func:`backend` -- a new noiseprotocol ``DefaultNoiseBackend`` whose
  ``ciphers['ChaChaPoly']`` is :class:`ChaChaPolyCipher`; pass it to
  ``from_name`` for the connections that should run on poly1305x;
* :func:`use_with_noiseprotocol` -- put :class:`ChaChaPolyCipher` into the
  default backend's table, so every ``Noise_*_ChaChaPoly_*`` connection
  created afterwards runs on poly1305x; ``enable=False`` puts noiseprotocol's
  cipher back.

The wire format is unchanged (nonce: 32 zero bits then the 64-bit counter,
little-endian, as the Noise specification section 12.3 says), so either side
of a connection may use poly1305x.  A forged transport message raises
noiseprotocol's own ``NoiseInvalidMessage`` from ``NoiseConnection.decrypt``:
poly1305x's :class:`~poly1305x.InvalidTag` is a ``cryptography`` ``InvalidTag``,
which is what noiseprotocol catches.

Many transport messages at once: :func:`encrypt_many` / :func:`decrypt_many`
seal or open a list of messages of an established connection in one batch
(``ChaCha20Poly1305.encrypt_many``, docs/batch.md), with the nonces n, n+1, ...
that as many ``connection.encrypt`` calls would use, claimed in one step.

noiseprotocol is optional (``pip install 'poly1305x[noise]'``); it is imported
when one of these functions is called.
"""
from __future__ import annotations

import abc
import importlib
import struct
from typing import TYPE_CHECKING, Any, Iterable, Optional, cast

from poly1305x._core._engine import ChaCha20Poly1305 as _AEAD
from poly1305x._peers import no_attribute
from poly1305x._swap import Switch

__all__ = ["ChaChaPolyCipher", "backend", "use_with_noiseprotocol", "encrypt_many",
           "decrypt_many"]

_nonce = struct.Struct("<4xQ").pack  # Noise's ChaChaPoly nonce: 32 zero bits, 64-bit LE n
_switch = Switch()  # ours in noiseprotocol's default cipher table, and back


def _peer() -> Any:
    """poly1305x._noise_peer: noiseprotocol's side (ImportError without it)."""
    return importlib.import_module("poly1305x._noise_peer")


class _ChaChaPoly:
    """The methods of :class:`ChaChaPolyCipher`: what it adds to noiseprotocol's
    ``Cipher`` (which holds ``cipher``, ``initialize`` and ``rekey``)."""

    cipher: Any  # the AEAD object: set by initialize(key), None before

    @property
    def klass(self) -> type[_AEAD]:
        return _AEAD

    def encrypt(self, k: Optional[bytes], n: int, ad: Optional[bytes], plaintext: bytes) -> bytes:
        # 4 zero bytes, then n as 8 little-endian bytes
        return cast(bytes, self.cipher.encrypt((n << 32).to_bytes(12, "little"), plaintext, ad))

    def decrypt(self, k: Optional[bytes], n: int, ad: Optional[bytes], ciphertext: bytes) -> bytes:
        return cast(bytes, self.cipher.decrypt((n << 32).to_bytes(12, "little"), ciphertext, ad))

    @property
    def backend(self) -> str:
        """Name of the poly1305x kernel backend (after ``initialize``)."""
        return cast(str, self.cipher.backend)


if TYPE_CHECKING:
    class ChaChaPolyCipher(_ChaChaPoly, metaclass=abc.ABCMeta):
        # The class is poly1305x._noise_peer's, over noiseprotocol's Cipher,
        # whose part noiseprotocol does not type: it is stated here.
        def __init__(self) -> None: ...
        def initialize(self, key: bytes) -> None: ...
        def rekey(self, k: Optional[bytes]) -> bytes: ...
else:
    def __getattr__(name):
        # ChaChaPolyCipher subclasses noiseprotocol's Cipher, so it lives in
        # the module that imports noiseprotocol: loaded when first asked for.
        if name == "ChaChaPolyCipher":
            return _peer().ChaChaPolyCipher
        raise no_attribute(__name__, name)


def backend() -> Any:
    """A new noiseprotocol backend (a ``DefaultNoiseBackend``) whose
    ``ChaChaPoly`` cipher is poly1305x; the other functions (DH, hashes,
    AES-GCM) are noiseprotocol's.  Pass it as ``backend=`` to
    ``NoiseConnection.from_name``."""
    return _peer().new_backend()


def use_with_noiseprotocol(enable: bool = True) -> bool:
    """Make noiseprotocol's default backend use poly1305x for ``ChaChaPoly``
    (``enable=True``), or its own ``cryptography`` cipher again
    (``enable=False``).  Affects connections created afterwards with no
    ``backend=`` argument; idempotent.

    Returns whether poly1305x was in use before the call.  ImportError when
    noiseprotocol is not installed (``pip install 'poly1305x[noise]'``)."""
    with _switch.lock:
        peer = _peer()
        return _switch.set(enable, lambda: [(peer.DEFAULT.ciphers, "ChaChaPoly",
                                             peer.ChaChaPolyCipher)])


# ---------------------------------------------------------------------------
# Many transport messages in one batch
# ---------------------------------------------------------------------------

def encrypt_many(connection: Any, messages: Iterable[bytes]) -> list[bytes]:
    """The transport messages of an established noiseprotocol
    ``NoiseConnection`` in one batch: the list of what ``connection.encrypt``
    would return for each, in order.  A connection whose cipher is not
    poly1305x's (see :func:`backend`) encrypts them one by one."""
    peer = _peer()
    cs, aead, batch = peer.transport(connection, messages, True)
    if aead is None or not cs.has_key():
        return [connection.encrypt(m) for m in batch]
    first = peer.reserve(cs, len(batch))
    nonces = [_nonce(first + i) for i in range(len(batch))]
    return cast(list[bytes], aead.encrypt_many(nonces, batch, None))


def decrypt_many(connection: Any, messages: Iterable[bytes]) -> list[bytes]:
    """The inverse of :func:`encrypt_many`: the plaintexts of consecutive
    transport messages.  All or nothing: if any message fails its tag,
    noiseprotocol's ``NoiseInvalidMessage`` names the failing indices, no
    plaintext is returned, and the connection's receive counter is where it
    was before the call (if no other call moved it meanwhile)."""
    from poly1305x._errors import InvalidTag
    peer = _peer()
    cs, aead, batch = peer.transport(connection, messages, False)
    if aead is None or not cs.has_key():
        return [connection.decrypt(m) for m in batch]
    count = len(batch)
    first = peer.reserve(cs, count)
    nonces = [_nonce(n) for n in range(first, first + count)]
    try:
        return cast(list[bytes], aead.decrypt_many(nonces, batch, None))
    except InvalidTag as exc:
        peer.give_back(cs, first, count)
        raise peer.failed(exc.indices) from None
