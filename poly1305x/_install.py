"""Drop-in mode: serve ``Crypto.Hash.Poly1305``, ``Crypto.Cipher.ChaCha20`` and
``Crypto.Cipher.ChaCha20_Poly1305`` (and their ``Cryptodome.`` twins from
pycryptodomex) -- the "pycryptodome" family -- and, with
``install("cryptography")``, cryptography's ``ChaCha20Poly1305`` and
``Poly1305`` classes from poly1305x, for code that is not changed.

>>> import poly1305x
>>> poly1305x.install()                       # doctest: +SKIP
>>> from Crypto.Cipher import ChaCha20_Poly1305   # poly1305x.ChaCha20_Poly1305
>>> poly1305x.install("cryptography")         # doctest: +SKIP
>>> poly1305x.uninstall()                     # doctest: +SKIP

What ``install("cryptography")`` changes: the attributes ``ChaCha20Poly1305``
of ``cryptography.hazmat.primitives.ciphers.aead`` and ``Poly1305`` of
``cryptography.hazmat.primitives.poly1305`` (poly1305x._install_cryptography).
cryptography's classes cannot be patched, so only the code that looks the name
up after ``install()`` is reached (docs/migrating-cryptography.md).

What :func:`install` changes for pycryptodome, for each of the two package
families that can be imported:

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

Whole-program use: set ``POLY1305X_INSTALL=1`` (pycryptodome),
``=cryptography``, a comma list of families or ``=all``, and import poly1305x
early, or put the ``sitecustomize`` recipe of docs/compatibility.md on
``sys.path``.
"""
import importlib
import os
import sys
import warnings
from types import ModuleType
from typing import Dict, Iterator, Optional

from poly1305x import _install_cryptography as _cg
from poly1305x._peers import PYCRYPTODOME_FAMILIES
from poly1305x._swap import Binding, Switch

__all__ = ["install", "uninstall", "installed"]

#: The package families that carry pycryptodome's API.
_FAMILIES = PYCRYPTODOME_FAMILIES

#: What install() takes: the peer libraries poly1305x can stand in for.
PEERS = ("pycryptodome", "cryptography")

#: Sub-module of a family -> (poly1305x module, names patched in place).
_MODULES = {
    "Hash.Poly1305": ("poly1305x.Poly1305", ("new", "Poly1305_MAC")),
    "Cipher.ChaCha20": ("poly1305x.ChaCha20", ("new", "ChaCha20Cipher")),
    "Cipher.ChaCha20_Poly1305": ("poly1305x.ChaCha20_Poly1305", ("new", "ChaCha20Poly1305Cipher")),
}

# The swaps themselves (records, the restore rules): poly1305x._swap.  One
# switch per peer; both are changed under the pycryptodome switch's lock.
_switch = Switch()
_cg_switch = Switch()
_lock = _switch.lock
# While install("cryptography") waits for a module of cryptography's that is
# not imported yet: the finder on sys.meta_path that serves it on arrival.
_cg_waiting: Optional[_cg.AfterImport] = None
# The module names served, in install order (while _switch is engaged).
_names: list[str] = []


def installed() -> tuple[str, ...]:
    """The names that poly1305x serves now: pycryptodome's modules, then
    cryptography's classes (empty when not installed)."""
    with _lock:
        return tuple(_names) + (_cg.NAMES if _cg_on() else ())


def _cg_on() -> bool:
    return _cg_switch.engaged() or _cg_waiting is not None


def _cg_arrived(module: ModuleType) -> None:
    """One of cryptography's modules was imported while install("cryptography")
    waited for it: serve its name now (unless uninstall() came first)."""
    global _cg_waiting
    with _lock:
        waiting = _cg_waiting
        if waiting is None or module.__name__ not in waiting.names:
            return
        _cg_switch.swap([_cg.binding(module)])
        waiting.names.discard(module.__name__)
        if not waiting.names:
            _cg_stop_waiting()


def _cg_stop_waiting() -> None:
    global _cg_waiting
    if _cg_waiting is not None:
        try:
            sys.meta_path.remove(_cg_waiting)
        except ValueError:
            pass
        _cg_waiting = None


def _peers(peers: tuple[str, ...]) -> tuple[str, ...]:
    """The peers named (default: pycryptodome; "all": both), checked."""
    if not peers:
        return ("pycryptodome",)
    out = []
    for peer in peers:
        if not isinstance(peer, str):
            raise TypeError(f"install() takes peer names (str), not {type(peer).__name__}")
        for name in (PEERS if peer == "all" else (peer,)):
            if name not in PEERS:
                raise ValueError(f"install(): unknown peer {peer!r}; the peers are "
                                 + ", ".join(map(repr, PEERS)) + " and 'all'")
            if name not in out:
                out.append(name)
    return tuple(out)


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


def install(*peers: str) -> tuple[str, ...]:
    """Serve the named peer libraries' ChaCha20-Poly1305, ChaCha20 and
    Poly1305 from poly1305x:

    * ``"pycryptodome"`` (the default): pycryptodome's Poly1305, ChaCha20 and
      ChaCha20_Poly1305 modules (and pycryptodomex's ``Cryptodome.`` twins),
      for code that imported them before as well as after this call;
    * ``"cryptography"``: cryptography's ``ChaCha20Poly1305`` and ``Poly1305``
      classes, for code that looks them up after this call;
    * ``"all"``: both, or the one that can be imported.

    Returns the names that poly1305x now serves (installed()).  A peer already
    served is left as it is.  Raises ImportError, with the reason, when a peer
    named cannot be imported (then nothing changes), ValueError for an
    unknown name."""
    wanted = _peers(peers)
    with _lock:
        pyc: Optional[tuple[Dict[str, Dict[str, ModuleType]], Dict[str, ModuleType]]] = None
        cg: Optional[list[Optional[ModuleType]]] = None
        reasons = []
        for peer in wanted:
            try:
                if peer == "pycryptodome" and not _switch.engaged():
                    pyc = _load_pycryptodome()
                elif peer == "cryptography" and not _cg_on():
                    cg = _cg.load()
            except ImportError as exc:
                reasons.append(exc)
        if reasons and (peers != ("all",) or not (pyc or cg or installed())):
            raise reasons[0]
        if pyc is not None:
            try:
                _switch.swap(_bindings(*pyc))
            except BaseException:
                _names.clear()
                raise
        if cg is not None:
            try:
                _cg_switch.swap(_cg.bindings(cg))
                missing = [name for name, mod in zip(_cg.MODULES, cg) if mod is None]
                if missing:
                    _cg_wait(missing)
            except BaseException:
                _cg_switch.restore()
                if pyc is not None:
                    _switch.restore()
                    _names.clear()
                raise
        return installed()


def _cg_wait(missing: list[str]) -> None:
    global _cg_waiting
    _cg_waiting = _cg.AfterImport(missing, _cg_arrived)
    sys.meta_path.insert(0, _cg_waiting)


def _load_pycryptodome() -> tuple[Dict[str, Dict[str, ModuleType]], Dict[str, ModuleType]]:
    """pycryptodome's modules of each family that can be imported, and ours."""
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
    return loaded, ours


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


def uninstall(*peers: str) -> None:
    """Undo :func:`install` for the named peers (default: all of them): their
    modules, package attributes, functions and classes are back.  Does nothing
    for a peer that is not installed."""
    wanted = _peers(peers) if peers else PEERS
    with _lock:
        if "cryptography" in wanted:
            _cg_stop_waiting()
            _cg_switch.restore()
        if "pycryptodome" in wanted:
            _switch.restore()
            _names.clear()


#: POLY1305X_INSTALL values that mean "on" (pycryptodome), as "1" always did.
_ENV_ON = ("1", "true", "yes", "on")


def _env_peers(value: str) -> tuple[str, ...]:
    """The peers that POLY1305X_INSTALL names: a comma list of peer names, or
    "all"; "1" (true, yes, on) is the default, pycryptodome.  Another value is
    the default too, with a warning (a misspelt peer name, most likely)."""
    names = tuple(p.strip() for p in value.split(",") if p.strip())
    if any(n in PEERS or n == "all" for n in names):
        return names
    if value.lower() not in _ENV_ON:
        warnings.warn(f"POLY1305X_INSTALL={value!r} names no peer ("
                      + ", ".join(PEERS) + " or all); installing pycryptodome, as for =1",
                      RuntimeWarning, stacklevel=4)
    return ()


def _env_hook() -> None:
    """POLY1305X_INSTALL: install() when poly1305x is imported; "1" for
    pycryptodome, "cryptography", a comma list or "all" for those.  A failure
    is a warning, never an error of ``import poly1305x``."""
    value = os.environ.get("POLY1305X_INSTALL", "").strip()
    if value in ("", "0"):
        return
    try:
        install(*_env_peers(value))
    except Exception as exc:
        warnings.warn(f"POLY1305X_INSTALL is set, but {exc}", RuntimeWarning, stacklevel=3)


_env_hook()
