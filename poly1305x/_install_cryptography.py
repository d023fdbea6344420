"""The cryptography half of ``poly1305x.install("cryptography")``: the classes
served in place of ``cryptography.hazmat.primitives.ciphers.aead.ChaCha20Poly1305``
and ``cryptography.hazmat.primitives.poly1305.Poly1305``, and the bindings
that the install switch swaps.

The served classes are poly1305x's ``aead.ChaCha20Poly1305`` (its compiled
twin with cryptography's 2**31 - 1 byte limits, _engine.ChaCha20Poly1305Cryptography)
and ``mac.Poly1305``: subclasses that add no method of their own, so each call
runs poly1305x's compiled method directly, with cryptography's refusal to be
pickled or copied.  Being heap classes, they also take an attribute set on
them, which lets a test harness count the calls that reach them in code that
bound the class long before.
"""
import sys
from types import ModuleType
from typing import Any, Callable, Iterable, Iterator, NoReturn, Optional

from poly1305x import _errors, mac
from poly1305x._core._engine import ChaCha20Poly1305Cryptography
from poly1305x._swap import Binding

__all__ = ["ChaCha20Poly1305", "Poly1305", "NAMES", "MODULES", "load", "bindings", "binding",
           "AfterImport"]

#: cryptography's module -> the name in it that poly1305x serves.
_TARGETS = (
    ("cryptography.hazmat.primitives.ciphers.aead", "ChaCha20Poly1305"),
    ("cryptography.hazmat.primitives.poly1305", "Poly1305"),
)
#: The names that install("cryptography") serves, as installed() lists them.
NAMES = tuple(f"{module}.{name}" for module, name in _TARGETS)
#: cryptography's modules that hold them.
MODULES = tuple(module for module, _ in _TARGETS)


def _refuse_pickle(self: Any, protocol: Any = None) -> NoReturn:
    cls = type(self)
    raise TypeError(f"cannot pickle '{cls.__module__}.{cls.__qualname__}' object")


class ChaCha20Poly1305(ChaCha20Poly1305Cryptography):
    """poly1305x's ChaCha20Poly1305, served as cryptography's (same
    constructor, methods, keywords and exceptions)."""

    __slots__ = ()
    __reduce_ex__ = _refuse_pickle     # pickle, copy.copy and copy.deepcopy all ask it
    __reduce__ = _refuse_pickle


class Poly1305(mac.Poly1305):
    """poly1305x's Poly1305, served as cryptography's."""

    __slots__ = ()
    __reduce_ex__ = _refuse_pickle
    __reduce__ = _refuse_pickle


_SERVED = {"ChaCha20Poly1305": ChaCha20Poly1305, "Poly1305": Poly1305}


def load() -> list[Optional[ModuleType]]:
    """cryptography's modules that hold the served names, where they are
    imported already (None for one that is not: AfterImport serves it when
    it is).  ImportError (with the reason) when cryptography cannot be
    imported, or when poly1305x's exceptions are not subclasses of its own
    (cryptography was not importable when poly1305x was first imported)."""
    try:
        from cryptography import exceptions
    except (ImportError, OSError) as exc:     # OSError: its native library did not load
        raise ImportError(
            f"poly1305x.install('cryptography') stands in for cryptography's ChaCha20Poly1305 "
            f"and Poly1305, but cryptography cannot be imported ({exc}). Install it "
            "(pip install cryptography), or use poly1305x.aead / poly1305x.mac directly") from exc
    for ours, theirs in ((_errors.InvalidTag, exceptions.InvalidTag),
                         (_errors.InvalidSignature, exceptions.InvalidSignature),
                         (_errors.AlreadyFinalized, exceptions.AlreadyFinalized)):
        if not issubclass(ours, theirs):
            raise ImportError(
                f"poly1305x.{ours.__name__} is not a subclass of cryptography's "
                f"{theirs.__name__} (cryptography was not importable when poly1305x was "
                "imported), so except clauses for cryptography's exceptions would miss "
                "poly1305x's; restart the program with cryptography installed")
    return [sys.modules.get(module) for module, _ in _TARGETS]


def bindings(modules: list[Optional[ModuleType]]) -> Iterator[Binding]:
    """The module attributes that install("cryptography") rebinds, of the
    modules given (None: not imported yet)."""
    for module, (_, name) in zip(modules, _TARGETS):
        if module is not None:
            yield module, name, _SERVED[name]


def binding(module: ModuleType) -> Binding:
    """The one rebinding of a module of _TARGETS, when it arrives."""
    name = dict(_TARGETS)[module.__name__]
    return module, name, _SERVED[name]


class AfterImport:
    """On ``sys.meta_path`` while install("cryptography") waits for one of
    cryptography's modules that nothing imported yet: the module is found
    and run as usual, then ``then(module)`` is called, before the importer
    sees it.  (install() does not import cryptography's AEAD module itself:
    a program that never uses it does not pay for it, and a client that
    imports it lazily keeps doing so.)  A finder and a loader by protocol:
    importlib.abc would import importlib.resources at start-up."""

    def __init__(self, names: Iterable[str], then: Callable[[ModuleType], None]) -> None:
        self.names, self.then = set(names), then

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in self.names:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _ThenLoader(spec.loader, self.then)  # type: ignore[assignment]
        return spec


class _ThenLoader:
    def __init__(self, loader: Any, then: Callable[[ModuleType], None]) -> None:
        self.loader, self.then = loader, then

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        self.then(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)
