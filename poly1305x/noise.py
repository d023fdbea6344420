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
import struct
import threading
from typing import TYPE_CHECKING, Any, Iterable, Optional, cast

from poly1305x._core._engine import ChaCha20Poly1305 as _AEAD
from poly1305x._peers import install_hint as _install_hint
from poly1305x._peers import no_attribute
from poly1305x._swap import Switch

__all__ = ["ChaChaPolyCipher", "backend", "use_with_noiseprotocol", "encrypt_many",
           "decrypt_many"]

_claim = threading.Lock()  # nonce ranges of the batch functions are claimed under it
_nonce = struct.Struct("<4xQ").pack  # Noise's ChaChaPoly nonce: 32 zero bits, 64-bit LE n

# ChaChaPolyCipher, built on first use (needs noiseprotocol)
_cipher_class: Optional[type[ChaChaPolyCipher]] = None
_switch = Switch()  # ours in noiseprotocol's default cipher table, and back


def _noise() -> tuple[Any, Any, Any]:
    try:
        from noise.backends.default import DefaultNoiseBackend, noise_backend
        from noise.functions.cipher import Cipher
    except ImportError as exc:
        raise ImportError(
            "poly1305x.noise needs noiseprotocol: " + _install_hint("noise")) from exc
    return Cipher, DefaultNoiseBackend, noise_backend


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


_DOC = """Noise's ``ChaChaPoly`` cipher functions (``ENCRYPT(k, n, ad, plaintext)``
/ ``DECRYPT``) on poly1305x, as a noiseprotocol ``Cipher``."""

if TYPE_CHECKING:
    class ChaChaPolyCipher(_ChaChaPoly, metaclass=abc.ABCMeta):
        # Built on first use, over noiseprotocol's Cipher (see _make_cipher_class),
        # whose part noiseprotocol does not type: it is stated here.
        def __init__(self) -> None: ...
        def initialize(self, key: bytes) -> None: ...
        def rekey(self, k: Optional[bytes]) -> bytes: ...


def _make_cipher_class(cipher_base: Any) -> type[ChaChaPolyCipher]:
    # type() rather than a class statement: a class made in a function is a
    # local class to type checkers, a second ChaChaPolyCipher beside the one
    # declared above.  (type() takes noiseprotocol's metaclass, ABCMeta.)
    built = type("ChaChaPolyCipher", (_ChaChaPoly, cipher_base),
                 {"__doc__": _DOC, "__module__": __name__})
    return cast("type[ChaChaPolyCipher]", built)


def _cipher() -> tuple[type[ChaChaPolyCipher], Any, Any]:
    global _cipher_class
    cipher_base, default_class, default = _noise()
    if _cipher_class is None:
        _cipher_class = _make_cipher_class(cipher_base)
    return _cipher_class, default_class, default


if not TYPE_CHECKING:   # (for type checkers, ChaChaPolyCipher is declared above)
    def __getattr__(name):
        # ChaChaPolyCipher subclasses noiseprotocol's Cipher, so it exists
        # only once noiseprotocol is imported: build it when first asked for.
        if name == "ChaChaPolyCipher":
            return _cipher()[0]
        raise no_attribute(__name__, name)


def backend() -> Any:
    """A new noiseprotocol backend (a ``DefaultNoiseBackend``) whose
    ``ChaChaPoly`` cipher is poly1305x; the other functions (DH, hashes,
    AES-GCM) are noiseprotocol's.  Pass it as ``backend=`` to
    ``NoiseConnection.from_name``."""
    cls, default_class, _ = _cipher()
    instance = default_class()
    instance.ciphers = dict(instance.ciphers, ChaChaPoly=cls)
    return instance


def use_with_noiseprotocol(enable: bool = True) -> bool:
    """Make noiseprotocol's default backend use poly1305x for ``ChaChaPoly``
    (``enable=True``), or its own ``cryptography`` cipher again
    (``enable=False``).  Affects connections created afterwards with no
    ``backend=`` argument; idempotent.

    Returns whether poly1305x was in use before the call.  ImportError when
    noiseprotocol is not installed (``pip install 'poly1305x[noise]'``)."""
    with _switch.lock:
        cls, _, default = _cipher()
        return _switch.set(enable, lambda: [(default.ciphers, "ChaChaPoly", cls)])


# ---------------------------------------------------------------------------
# Many transport messages in one batch
# ---------------------------------------------------------------------------

def _transport(connection: Any, messages: Iterable[bytes],
               sending: bool) -> tuple[Any, Any, list[bytes]]:
    """The cipher state, our AEAD object (None: not a poly1305x connection)
    and the messages as a list, checked as NoiseConnection.encrypt/decrypt
    check one message, with noiseprotocol's exceptions."""
    from noise.constants import MAX_MESSAGE_LEN
    from noise.exceptions import NoiseHandshakeError, NoiseInvalidMessage
    if not connection.handshake_finished:
        raise NoiseHandshakeError("Handshake not finished yet!")
    messages = list(messages)
    for i, m in enumerate(messages):
        if not isinstance(m, bytes) or len(m) > MAX_MESSAGE_LEN:
            raise NoiseInvalidMessage(f"messages[{i}]: data must be bytes and less or "
                                      f"equal {MAX_MESSAGE_LEN} bytes in length")
    proto = connection.noise_protocol
    cs = proto.cipher_state_encrypt if sending else proto.cipher_state_decrypt
    cipher = cs.cipher
    aead = getattr(cipher, "cipher", None) if isinstance(cipher, _cipher()[0]) else None
    return cs, aead, messages


def _reserve(cs: Any, count: int) -> int:
    """Claim nonces n .. n + count - 1 of the cipher state in one step."""
    from noise.constants import MAX_NONCE
    from noise.exceptions import NoiseMaxNonceError
    with _claim:
        first = cs.n
        if first + count > MAX_NONCE:
            raise NoiseMaxNonceError("Nonce has depleted!")
        cs.n = first + count
    return cast(int, first)


def encrypt_many(connection: Any, messages: Iterable[bytes]) -> list[bytes]:
    """The transport messages of an established noiseprotocol
    ``NoiseConnection`` in one batch: the list of what ``connection.encrypt``
    would return for each, in order.  A connection whose cipher is not
    poly1305x's (see :func:`backend`) encrypts them one by one."""
    cs, aead, messages = _transport(connection, messages, True)
    if aead is None or not cs.has_key():
        return [connection.encrypt(m) for m in messages]
    first = _reserve(cs, len(messages))
    nonces = [_nonce(first + i) for i in range(len(messages))]
    return cast(list[bytes], aead.encrypt_many(nonces, messages, None))


def decrypt_many(connection: Any, messages: Iterable[bytes]) -> list[bytes]:
    """The inverse of :func:`encrypt_many`: the plaintexts of consecutive
    transport messages.  All or nothing: if any message fails its tag,
    noiseprotocol's ``NoiseInvalidMessage`` names the failing indices, no
    plaintext is returned, and the connection's receive counter is where it
    was before the call (if no other call moved it meanwhile)."""
    from noise.exceptions import NoiseInvalidMessage
    from poly1305x._errors import InvalidTag
    cs, aead, messages = _transport(connection, messages, False)
    if aead is None or not cs.has_key():
        return [connection.decrypt(m) for m in messages]
    count = len(messages)
    first = _reserve(cs, count)
    nonces = [_nonce(n) for n in range(first, first + count)]
    try:
        return cast(list[bytes], aead.decrypt_many(nonces, messages, None))
    except InvalidTag as exc:
        with _claim:
            if cs.n == first + count:
                cs.n = first
        raise NoiseInvalidMessage(f"Failed authentication of messages {exc.indices}") from None
