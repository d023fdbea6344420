"""Where optional peer libraries live.

pycryptodome ships as two distributions with one API: ``pycryptodome``
(package ``Crypto``) and ``pycryptodomex`` (package ``Cryptodome``).  The
modules that look for it all ask here, in this order.
"""
import importlib
from types import ModuleType
from typing import Optional, Tuple

__all__ = ["PYCRYPTODOME_FAMILIES", "pycryptodome"]

#: The package names that carry pycryptodome's API, in order of preference.
PYCRYPTODOME_FAMILIES: Tuple[str, ...] = ("Crypto", "Cryptodome")


def pycryptodome(*submodules: str) -> Optional[Tuple[ModuleType, ...]]:
    """The sub-modules (e.g. ``"Cipher.AES"``) of the first installed
    pycryptodome family that has them all, as a tuple in the order asked;
    None when no family does.  Errors other than ImportError (a broken
    install) propagate."""
    for family in PYCRYPTODOME_FAMILIES:
        try:
            return tuple(importlib.import_module(f"{family}.{sub}") for sub in submodules)
        except ImportError:
            continue
    return None
