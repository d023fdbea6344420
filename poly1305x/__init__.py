"""poly1305x: fast Poly1305, ChaCha20 and ChaCha20-Poly1305 for Python.

Faces:

* pycryptodome's: ``poly1305x.Poly1305``, ``poly1305x.ChaCha20``,
  ``poly1305x.ChaCha20_Poly1305`` (modules with ``new(...)``);
* cryptography's: ``poly1305x.mac.Poly1305``,
  ``poly1305x.aead.ChaCha20Poly1305`` and ``XChaCha20Poly1305``.

``backends()`` lists the kernels usable on this CPU, best first; ``backend()``
names the one new objects use; ``POLY1305X_BACKEND`` picks one at import.
"""
import os as _os

try:
    from poly1305x._core._dispatch import backend, backends, cpu_features, set_backend
    from poly1305x._errors import (AlreadyFinalized, InvalidSignature, InvalidTag,
                                   MessageTooLongError)
    from poly1305x import ChaCha20, ChaCha20_Poly1305, Poly1305, aead, mac
    from poly1305x._install import install, installed, uninstall
except ModuleNotFoundError as _exc:
    # A checkout whose compiled modules were never built (or that shadows an
    # installed poly1305x because Python runs from its root): say what to do
    # instead of a traceback into the package.  name= the package: then
    # `python -m poly1305x[.openssh]` prints the message on one line (runpy).
    _here = _os.path.dirname(_os.path.abspath(__file__))
    if (_exc.name or "").startswith("poly1305x.") and \
            _os.path.exists(_os.path.join(_here, "_core", "_dispatch.pyx")):
        raise ImportError(
            f"poly1305x: you are importing from a source tree ({_here}) whose compiled "
            f"modules are not built (no {_exc.name}); build them in place with "
            "pip install -e . at its root (needs a C compiler), or run Python from "
            "another directory to use an installed poly1305x", name=__name__) from None
    raise
except ImportError as _exc:
    if str(_exc).startswith("POLY1305X_BACKEND="):   # a bad name: the message, no frames
        raise ImportError(str(_exc), name=__name__) from None
    raise

__version__ = "0.1.0"
__all__ = [
    "AlreadyFinalized", "ChaCha20", "ChaCha20_Poly1305", "InvalidSignature", "InvalidTag",
    "MessageTooLongError", "Poly1305", "aead", "backend", "backends", "cpu_features", "install",
    "installed", "mac",
    "set_backend", "uninstall", "__version__",
]
