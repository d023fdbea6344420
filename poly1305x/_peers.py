"""Where optional peer libraries live.

pycryptodome ships as two distributions with one API: ``pycryptodome``
(package ``Crypto``) and ``pycryptodomex`` (package ``Cryptodome``).  The
modules that look for it all ask here, in this order.
"""
import importlib
from types import ModuleType
from typing import Optional, Tuple

__all__ = ["PYCRYPTODOME_FAMILIES", "install_hint", "no_attribute", "pycryptodome"]

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


def install_hint(*extras: str) -> str:
    """How to get the packages of poly1305x's ``extras``: a command that works
    in any shell (quoted), from a checkout (there is no release to install
    from yet), or the packages themselves, named from the installed metadata."""
    names = ",".join(extras)
    hint = f"pip install -e '.[{names}]' in a poly1305x checkout"
    try:
        from importlib.metadata import requires
        reqs = requires("poly1305x") or []
    except Exception:  # not installed: running from a source tree
        reqs = []
    pkgs = []
    for req in reqs:
        spec, _, marker = req.partition(";")
        if any(f'extra == "{e}"' in marker for e in extras):
            spec = spec.strip().replace(" ", "")
            if spec not in pkgs:
                pkgs.append(spec)
    if pkgs:
        hint += ", or pip install " + " ".join(f"'{p}'" for p in pkgs)
    return hint


def no_attribute(module: str, name: str) -> AttributeError:
    """The AttributeError of a module ``__getattr__`` (an adapter module whose
    peer-dependent names are built on first use) for a name it does not have."""
    return AttributeError(f"module {module!r} has no attribute {name!r}")
