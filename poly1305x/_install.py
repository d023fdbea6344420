"""Drop-in mode: serve ``Crypto.Hash.Poly1305``, ``Crypto.Cipher.ChaCha20`` and
``Crypto.Cipher.ChaCha20_Poly1305`` (and their ``Cryptodome.`` twins from
pycryptodomex) from poly1305x, for code that is not changed.

>>> import poly1305x
>>> poly1305x.install()                       # doctest: +SKIP
>>> from Crypto.Cipher import ChaCha20_Poly1305   # poly1305x.ChaCha20_Poly1305
>>> poly1305x.uninstall()                     # doctest: +SKIP

What :func:`install` changes, for each of the two package families that can be
imported:

1. ``sys.modules[name]`` and the attribute of the parent package
   (``Crypto.Cipher.ChaCha20``...) now give poly1305x's module, so every later
   ``import`` / ``from ... import`` binds poly1305x;
2. pycryptodome's own module objects are patched in place: their ``new``
   function and their object class (``ChaCha20Cipher``, ``Poly1305_MAC``,
   ``ChaCha20Poly1305Cipher``) become poly1305x's.  Code that bound the module
   object before ``install()`` (``from Crypto.Cipher import ChaCha20_Poly1305``
   at the top of a library) reaches poly1305x on its next ``new(...)``.

Only a reference to pycryptodome's ``new`` *function* taken before
``install()`` (``from Crypto.Cipher.ChaCha20 import new``) keeps running
pycryptodome's ``new``; as it builds its object through the (patched) class of
its module, the object it returns is poly1305x's all the same.  A reference to
one of pycryptodome's classes taken before ``install()`` stays pycryptodome's
class (``isinstance`` against it is False for poly1305x objects), and objects
created before ``install()`` stay pycryptodome's objects.

:func:`uninstall` puts everything back: the ``sys.modules`` entries, the
package attributes and the patched names (a name that someone else rebound
since ``install()`` is left alone).  Both functions are idempotent and
thread-safe.

Whole-program use: set ``POLY1305X_INSTALL=1`` and import poly1305x early, or
put the ``sitecustomize`` recipe of docs/compatibility.md on ``sys.path``.
"""
import importlib
import os
import sys
import warnings
from types import ModuleType
from typing import Dict, Iterator

from poly1305x._peers import PYCRYPTODOME_FAMILIES
from poly1305x._swap import Binding, Switch

__all__ = ["install", "uninstall", "installed"]

#: The package families that carry pycryptodome's API.
_FAMILIES = PYCRYPTODOME_FAMILIES

#: Sub-module of a family -> (poly1305x module, names patched in place).
_MODULES = {
    "Hash.Poly1305": ("poly1305x.Poly1305", ("new", "Poly1305_MAC")),
    "Cipher.ChaCha20": ("poly1305x.ChaCha20", ("new", "ChaCha20Cipher")),
    "Cipher.ChaCha20_Poly1305": ("poly1305x.ChaCha20_Poly1305", ("new", "ChaCha20Poly1305Cipher")),
}

# The swap itself (records, the lock, the restore rules): poly1305x._swap.
_switch = Switch()
_lock = _switch.lock
# The module names served, in install order (while _switch is engaged).
_names: list[str] = []


def installed() -> tuple[str, ...]:
    """The module names that poly1305x serves now (empty when not installed)."""
    with _lock:
        return tuple(_names)


def _load_family(family: str) -> Dict[str, ModuleType]:
    """pycryptodome's three original modules of one family, by sub-name; raises
    ImportError when the family is not importable (or lacks one of them)."""
    originals = {}
    for sub in _MODULES:
        name = f"{family}.{sub}"
        current = sys.modules.get(name)
        ours = _MODULES[sub][0]
        if current is not None and current is sys.modules.get(ours):
            raise ImportError(f"{name} is poly1305x's module already (replaced outside install())")
        originals[sub] = importlib.import_module(name)
    return originals


def install() -> tuple[str, ...]:
    """Make pycryptodome's Poly1305, ChaCha20 and ChaCha20_Poly1305 modules (and
    pycryptodomex's ``Cryptodome.`` twins) poly1305x's, for code that imported
    them before as well as after this call.

    Returns the names of the modules that poly1305x now serves.  Calling it
    again changes nothing.  Raises ImportError, with the reason, when neither
    pycryptodome nor pycryptodomex can be imported."""
    with _lock:
        if _switch.engaged():
            return installed()
        ours = {sub: importlib.import_module(mod) for sub, (mod, _) in _MODULES.items()}
        loaded, reasons = {}, []
        for family in _FAMILIES:
            try:
                loaded[family] = _load_family(family)
            except (ImportError, OSError) as exc:   # OSError: its C libraries did not load
                reasons.append(f"{family}: {exc}")
        if not loaded:
            raise ImportError(
                "poly1305x.install() stands in for pycryptodome, but neither pycryptodome "
                "(package 'Crypto') nor pycryptodomex (package 'Cryptodome') can be imported ("
                + "; ".join(reasons) + "). Install one (pip install pycryptodome), or use "
                "poly1305x's modules directly: from poly1305x import ChaCha20_Poly1305")
        try:
            _switch.swap(_bindings(loaded, ours))
        except BaseException:
            _names.clear()
            raise
        return installed()


def _bindings(loaded: Dict[str, Dict[str, ModuleType]],
              ours: Dict[str, ModuleType]) -> Iterator[Binding]:
    """What install() rebinds, module by module: the patched names of
    pycryptodome's module object, its ``sys.modules`` entry and its package's
    attribute."""
    for family, originals in loaded.items():
        for sub, original in originals.items():
            name, mine = f"{family}.{sub}", ours[sub]
            parent_name, _, leaf = name.rpartition(".")
            _names.append(name)
            for attr in _MODULES[sub][1]:
                yield original, attr, getattr(mine, attr)
            yield sys.modules, name, mine
            yield sys.modules[parent_name], leaf, mine


def uninstall() -> None:
    """Undo :func:`install`: pycryptodome's modules, package attributes and
    functions are back.  Does nothing when poly1305x is not installed."""
    with _lock:
        _switch.restore()
        _names.clear()


def _env_hook() -> None:
    """POLY1305X_INSTALL=1 (any value but empty or 0): install() when poly1305x
    is imported.  A failure is a warning, never an error of ``import poly1305x``."""
    if os.environ.get("POLY1305X_INSTALL", "").strip() in ("", "0"):
        return
    try:
        install()
    except Exception as exc:
        warnings.warn(f"POLY1305X_INSTALL is set, but {exc}", RuntimeWarning, stacklevel=3)


_env_hook()
