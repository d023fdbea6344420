"""Poly1305 in ``cryptography``'s shape
(``cryptography.hazmat.primitives.poly1305.Poly1305``).

>>> from poly1305x.mac import Poly1305
>>> tag = Poly1305.generate_tag(bytes(range(32)), b"message")
>>> Poly1305.verify_tag(bytes(range(32)), b"message", tag)
"""
from poly1305x._core._engine import Poly1305
from poly1305x._errors import AlreadyFinalized, InvalidSignature

__all__ = ["Poly1305", "InvalidSignature", "AlreadyFinalized"]
