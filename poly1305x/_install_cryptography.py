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
import importlib
from types import ModuleType
from typing import Any, Iterator, NoReturn

from poly1305x import _errors, mac
from poly1305x._core._engine import ChaCha20Poly1305Cryptography
from poly1305x._swap import Binding

__all__ = ["ChaCha20Poly1305", "Poly1305", "NAMES", "load", "bindings"]

#: cryptography's module -> the name in it that poly1305x serves.
_TARGETS = (
    ("cryptography.hazmat.primitives.ciphers.aead", "ChaCha20Poly1305"),
    ("cryptography.hazmat.primitives.poly1305", "Poly1305"),
)
#: The names that install("cryptography") serves, as installed() lists them.
NAMES = tuple(f"{module}.{name}" for module, name in _TARGETS)


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


def load() -> list[ModuleType]:
    """cryptography's modules that hold the served names; ImportError (with
    the reason) when cryptography cannot be imported, or when poly1305x's
    exceptions are not subclasses of its own (cryptography was not importable
    when poly1305x was first imported)."""
    try:
        modules = [importlib.import_module(module) for module, _ in _TARGETS]
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
    return modules


def bindings(modules: list[ModuleType]) -> Iterator[Binding]:
    """The module attributes that install("cryptography") rebinds."""
    for module, (_, name) in zip(modules, _TARGETS):
        yield module, name, _SERVED[name]
