"""QUIC packet protection (RFC 9001) for aioquic's ChaCha20-Poly1305 suite.

aioquic protects each packet twice: the payload with the suite's AEAD (nonce:
the key's iv XOR the packet number), then the header, with a 5-byte mask from
a sample of the protected payload.  ``aioquic.quic.crypto`` builds both
objects, ``AEAD(cipher_name, key, iv)`` and ``HeaderProtection(cipher_name,
key)``, from its module's names when a connection sets up (or updates) its
keys.  :func:`use_with_aioquic` puts poly1305x behind those two names:

* ``TLS_CHACHA20_POLY1305_SHA256``'s objects are poly1305x's
  :class:`QuicChaCha20AEAD` and :class:`QuicChaCha20HeaderProtection`, with
  aioquic's signatures (``encrypt(data, associated_data, packet_number)``,
  ``decrypt(...)``, ``apply(plain_header, protected_payload)``,
  ``remove(packet, pn_offset)``) and aioquic's ``CryptoError``; each call is
  one compiled call: the nonce, the AEAD, the mask and the header bytes;
* the AES suites (and any other name) are aioquic's own objects, unchanged.

>>> from poly1305x.quic import use_with_aioquic
>>> was = use_with_aioquic()          # doctest: +SKIP
>>> use_with_aioquic(was)             # doctest: +SKIP

Connections set up before the call keep the objects they have; a key update
afterwards gets poly1305x's.  aioquic is optional (``pip install
'poly1305x[quic]'``); it is imported when :func:`use_with_aioquic` is called.
"""
from __future__ import annotations

import importlib

from poly1305x._core._engine import QuicChaCha20AEAD, QuicChaCha20HeaderProtection
from poly1305x._swap import Switch

__all__ = ["QuicChaCha20AEAD", "QuicChaCha20HeaderProtection", "use_with_aioquic"]

_switch = Switch()   # ours behind aioquic.quic.crypto's AEAD and HeaderProtection, and back

#: aioquic's cipher names for the ChaCha20-Poly1305 suite (quic.crypto.CIPHER_SUITES).
AEAD_NAME = b"chacha20-poly1305"
HP_NAME = b"chacha20"


def use_with_aioquic(enable: bool = True) -> bool:
    """Serve aioquic's ChaCha20-Poly1305 packet and header protection from
    poly1305x (``enable=True``), or aioquic's own again (``enable=False``),
    for the keys set up afterwards.  Idempotent and thread-safe.

    Returns whether poly1305x was in use before the call.  ImportError when
    aioquic is not installed (``pip install 'poly1305x[quic]'``)."""
    # aioquic's side (its import, the two callables)
    peer = importlib.import_module("poly1305x._aioquic_peer")
    with _switch.lock:
        return _switch.set(enable, peer.bindings)
