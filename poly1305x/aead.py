"""ChaCha20-Poly1305 and XChaCha20-Poly1305 in ``cryptography``'s shape
(``cryptography.hazmat.primitives.ciphers.aead``).

>>> from poly1305x.aead import ChaCha20Poly1305
>>> aead = ChaCha20Poly1305(ChaCha20Poly1305.generate_key())
>>> nonce = bytes(12)
>>> ct = aead.encrypt(nonce, b"data", b"header")
>>> aead.decrypt(nonce, ct, b"header")
b'data'
"""
from poly1305x._core._engine import ChaCha20Poly1305, XChaCha20Poly1305
from poly1305x._errors import InvalidTag

__all__ = ["ChaCha20Poly1305", "XChaCha20Poly1305", "InvalidTag"]
