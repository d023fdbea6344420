"""pyhpke's side of :func:`poly1305x.hpke.use_with_pyhpke`: imported by it on
first use, never at package import.  It imports pyhpke at the top and defines
:class:`PyHPKEChaCha20Poly1305Key`, poly1305x's key class as a pyhpke
``AEADKeyInterface``, which the switch puts into ``pyhpke.aead_key``."""
from __future__ import annotations

from poly1305x._peers import install_hint
from poly1305x.hpke import ChaCha20Poly1305Key

try:
    import pyhpke.aead_key as AEAD_KEY_MODULE
    from pyhpke.aead_key_interface import AEADKeyInterface
except ImportError:       # (the missing module stays the exception's context)
    raise ImportError("use_with_pyhpke() needs pyhpke: " + install_hint("hpke"))
if not hasattr(AEAD_KEY_MODULE, "ChaCha20Poly1305Key"):
    raise ImportError("this pyhpke version has no pyhpke.aead_key.ChaCha20Poly1305Key "
                      "to replace; use poly1305x.hpke directly")


class PyHPKEChaCha20Poly1305Key(ChaCha20Poly1305Key, AEADKeyInterface):
    """poly1305x's ChaCha20Poly1305Key as a pyhpke.AEADKeyInterface."""

    __slots__ = ()
