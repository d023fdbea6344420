"""One swap-and-restore mechanism for every switch that routes a peer library
through poly1305x (``install()``, ``use_with_pyhpke``, ``use_with_rfc9180``,
``use_with_noiseprotocol``, ``use_with_paramiko``, ``use_with_asyncssh``).

A :class:`Switch` replaces bindings -- an attribute of an object (a module, a
class) or an item of a dict -- with poly1305x's values, and puts the previous
ones back:

* every binding is recorded before it is changed, so a swap that fails half
  way is undone completely;
* a binding is restored only while it still holds poly1305x's value: one that
  someone else rebound since is left alone;
* a previous value that did not exist (an attribute only inherited, a missing
  key) is deleted again, not set;
* everything, including reading the current bindings, happens under the
  switch's own re-entrant lock.
"""
import threading
from typing import Any, Callable, Iterable, List, MutableMapping, Optional, Tuple

__all__ = ["Switch", "MISSING"]

#: The previous value of a binding that did not exist.
MISSING: Any = object()

#: (target, key, poly1305x's value): ``target[key]`` for a dict, else the
#: attribute ``key`` of ``target``.
Binding = Tuple[Any, str, Any]


def _is_item(target: Any) -> bool:
    return isinstance(target, MutableMapping)


def _current(target: Any, key: Any) -> Any:
    if _is_item(target):
        return target.get(key, MISSING)
    return vars(target).get(key, MISSING)       # its own attribute, not an inherited one


def _put(target: Any, key: Any, value: Any) -> None:
    if _is_item(target):
        if value is MISSING:
            target.pop(key, None)
        else:
            target[key] = value
    elif value is MISSING:
        delattr(target, key)
    else:
        setattr(target, key, value)


class Switch:
    """A set of bindings that poly1305x swaps in and out as one."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        # (target, key, previous value, poly1305x's value), in swap order
        self._records: List[Tuple[Any, Any, Any, Any]] = []

    def engaged(self) -> bool:
        """Whether a swap is recorded (some of its bindings may have been
        rebound by others since)."""
        with self.lock:
            return bool(self._records)

    def intact(self) -> bool:
        """Whether a swap is recorded and every binding still holds
        poly1305x's value."""
        with self.lock:
            return bool(self._records) and all(
                _current(t, k) is ours for t, k, _, ours in self._records)

    def swap(self, bindings: Iterable[Binding]) -> None:
        """Put each binding's value in place, recording the previous one
        first; on any error, restore what was already swapped and re-raise."""
        with self.lock:
            try:
                for target, key, ours in bindings:
                    self._records.append((target, key, _current(target, key), ours))
                    _put(target, key, ours)
            except BaseException:
                self.restore()
                raise

    def restore(self) -> None:
        """Put the recorded previous values back, last swapped first, where
        the binding still holds poly1305x's value; forget the records."""
        with self.lock:
            while self._records:
                target, key, previous, ours = self._records.pop()
                if _current(target, key) is ours:
                    _put(target, key, previous)

    def set(self, enable: bool, bindings: Callable[[], Iterable[Binding]]) -> bool:
        """The ``use_with_*(enable)`` protocol: with ``enable``, swap in the
        bindings that ``bindings()`` (called under the lock) returns, unless
        they are in place; without, restore.  Returns whether poly1305x's
        bindings were all in place before the call."""
        with self.lock:
            was_on = self.intact()
            if enable and not was_on:
                self.restore()                      # what is left of an older swap
                self.swap(bindings())
            elif not enable and self._records:
                self.restore()
            return was_on

    def value(self, index: int = 0) -> Optional[Any]:
        """The previous value of the ``index``-th recorded binding (for an
        adapter that calls the original it replaced), or None."""
        with self.lock:
            if index < len(self._records):
                previous = self._records[index][2]
                return None if previous is MISSING else previous
            return None
