"""poly1305x: fast Poly1305, ChaCha20 and ChaCha20-Poly1305 for Python.

Faces:

* pycryptodome's: ``poly1305x.Poly1305``, ``poly1305x.ChaCha20``,
  ``poly1305x.ChaCha20_Poly1305`` (modules with ``new(...)``);
* cryptography's: ``poly1305x.mac.Poly1305``,
  ``poly1305x.aead.ChaCha20Poly1305`` and ``XChaCha20Poly1305``.

``backends()`` lists the kernels usable on this CPU, best first; ``backend()``
names the one new objects use; ``POLY1305X_BACKEND`` picks one at import.
"""
from poly1305x._core._dispatch import backend, backends, cpu_features, set_backend
from poly1305x._errors import AlreadyFinalized, InvalidSignature, InvalidTag, MessageTooLongError
from poly1305x import ChaCha20, ChaCha20_Poly1305, Poly1305, aead, mac  # noqa: E402
from poly1305x._install import install, uninstall  # noqa: E402

__version__ = "0.1.0"
__all__ = [
    "AlreadyFinalized", "ChaCha20", "ChaCha20_Poly1305", "InvalidSignature", "InvalidTag",
    "MessageTooLongError", "Poly1305", "aead", "backend", "backends", "cpu_features", "install", "mac",
    "set_backend", "uninstall", "__version__",
]
