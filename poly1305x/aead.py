"""ChaCha20-Poly1305 and XChaCha20-Poly1305 in ``cryptography``'s shape
(``cryptography.hazmat.primitives.ciphers.aead``).

>>> from poly1305x.aead import ChaCha20Poly1305
>>> aead = ChaCha20Poly1305(ChaCha20Poly1305.generate_key())
>>> nonce = bytes(12)
>>> ct = aead.encrypt(nonce, b"data", b"header")
>>> aead.decrypt(nonce, ct, b"header")
b'data'

Many messages in one call (docs/batch.md): ``encrypt_many`` / ``decrypt_many``
and their ``_into`` forms, on the classes (one key) and here (one key per
message).

>>> nonces = [bytes(12), bytes(11) + b"1"]
>>> cts = aead.encrypt_many(nonces, [b"a", b"bc"], None)
>>> aead.decrypt_many(nonces, cts, None)
[b'a', b'bc']
"""
from poly1305x._core._engine import (
    ChaCha20Poly1305, XChaCha20Poly1305, decrypt_many, decrypt_many_into, encrypt_many,
    encrypt_many_into,
)
from poly1305x._errors import InvalidTag

__all__ = ["ChaCha20Poly1305", "XChaCha20Poly1305", "InvalidTag", "encrypt_many",
           "decrypt_many", "encrypt_many_into", "decrypt_many_into"]
