"""noiseprotocol's side of :mod:`poly1305x.noise`: imported by that module on
first use, never at package import.  It imports noiseprotocol at the top and
defines :class:`ChaChaPolyCipher` (a noiseprotocol ``Cipher``), the backend
that carries it, and the checks and nonce claims of the batch functions."""
from __future__ import annotations

import abc
import threading
from typing import Any, Iterable, cast

from poly1305x._peers import install_hint
from poly1305x.noise import _ChaChaPoly

try:
    from noise.backends.default import DefaultNoiseBackend, noise_backend
    from noise.constants import MAX_MESSAGE_LEN, MAX_NONCE
    from noise.exceptions import NoiseHandshakeError, NoiseInvalidMessage, NoiseMaxNonceError
    from noise.functions.cipher import Cipher
except ImportError:       # (the missing module stays the exception's context)
    raise ImportError("poly1305x.noise needs noiseprotocol: " + install_hint("noise"))

_claim = threading.Lock()  # nonce ranges of the batch functions are claimed under it


# (noiseprotocol is untyped: its Cipher is Any to a type checker)
class ChaChaPolyCipher(_ChaChaPoly, Cipher, metaclass=abc.ABCMeta):  # type: ignore[misc]
    """Noise's ``ChaChaPoly`` cipher functions (``ENCRYPT(k, n, ad, plaintext)``
    / ``DECRYPT``) on poly1305x, as a noiseprotocol ``Cipher``."""


#: noiseprotocol's module-level default backend (use_with_noiseprotocol's target).
DEFAULT = noise_backend


def new_backend() -> Any:
    """A new ``DefaultNoiseBackend`` whose ``ChaChaPoly`` is :class:`ChaChaPolyCipher`."""
    instance = DefaultNoiseBackend()
    instance.ciphers = dict(instance.ciphers, ChaChaPoly=ChaChaPolyCipher)
    return instance


def transport(connection: Any, messages: Iterable[bytes],
              sending: bool) -> tuple[Any, Any, list[bytes]]:
    """The cipher state, our AEAD object (None: not a poly1305x connection)
    and the messages as a list, checked as NoiseConnection.encrypt/decrypt
    check one message, with noiseprotocol's exceptions."""
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
    aead = getattr(cipher, "cipher", None) if isinstance(cipher, ChaChaPolyCipher) else None
    return cs, aead, messages


def reserve(cs: Any, count: int) -> int:
    """Claim nonces n .. n + count - 1 of the cipher state in one step."""
    with _claim:
        first = cs.n
        if first + count > MAX_NONCE:
            raise NoiseMaxNonceError("Nonce has depleted!")
        cs.n = first + count
    return cast(int, first)


def give_back(cs: Any, first: int, count: int) -> None:
    """Undo reserve(cs, count) that returned first, if no other call moved
    the counter since."""
    with _claim:
        if cs.n == first + count:
            cs.n = first


def failed(indices: Any) -> Exception:
    """noiseprotocol's exception for a batch whose tags failed at indices."""
    return NoiseInvalidMessage(f"Failed authentication of messages {indices}")
